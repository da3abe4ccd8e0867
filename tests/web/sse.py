"""A server-sent events client for tests: reads a stream in a thread and keeps each event with
the time it arrived (tests/web/test_live.py, tests/web/test_live_postgres.py, bench/live.py)."""

import http.client
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Event:
    name: str
    data: dict[str, Any]
    id: str | None
    at: float  # time.monotonic() when it arrived


@dataclass
class Listener:
    """GET `url` as an event stream; `status` once answered, `events` as they come."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)
    status: int | None = None
    body: str = ""  # an error response's body
    raw: list[str] = field(default_factory=list)  # every line received, comments included
    events: list[Event] = field(default_factory=list)
    ended: bool = False  # the server closed the stream
    _answered: threading.Event = field(default_factory=threading.Event)
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        assert self._answered.wait(30), f"{self.url} answered"

    def _read(self) -> None:
        # http.client, not httpx: `close` can shut its socket from another thread, which the
        # server sees as the browser hanging up.
        parts = urlsplit(self.url)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
        self._connection = connection
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        try:
            connection.request("GET", path, headers={"Accept": "text/event-stream", **self.headers})
            response = connection.getresponse()
            self.status = response.status
            if response.status != 200:
                self.body = response.read().decode()
                return
            self._answered.set()
            name, data, event_id = "message", "", None
            while not self._stop.is_set():
                raw = response.readline()
                if not raw:
                    break
                line = raw.decode().rstrip("\r\n")
                with self._lock:
                    self.raw.append(line)
                if line == "":
                    if data:
                        event = Event(name, json.loads(data), event_id, time.monotonic())
                        with self._lock:
                            self.events.append(event)
                    name, data, event_id = "message", "", None
                elif line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    data += line[6:]
                elif line.startswith("id: "):
                    event_id = line[4:]
            self.ended = not self._stop.is_set()
        except OSError:
            self.ended = not self._stop.is_set()
        finally:
            self._answered.set()
            connection.close()

    def wait_for(
        self, match: Callable[[Event], bool], timeout: float = 15, after: int = 0
    ) -> Event:
        """The first event from index `after` on that `match`es; fail after `timeout` s."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                found = [e for e in self.events[after:] if match(e)]
            if found:
                return found[0]
            time.sleep(0.005)
        raise AssertionError(f"no matching event within {timeout} s; got {self.events}")

    def wait_ended(self, timeout: float = 15) -> None:
        self._thread.join(timeout)
        assert self.ended, f"the stream {self.url} still open after {timeout} s"

    def close(self) -> None:
        """Hang up, as a browser does when the page goes: the server lets go of the stream."""
        self._stop.set()
        sock = getattr(getattr(self, "_connection", None), "sock", None)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed

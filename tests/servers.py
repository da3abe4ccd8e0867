"""Real servers for the tests that need one: an app in a thread, or `ringside serve` in a process.

Most tests use TestClient; these helpers are for what only a listening socket shows
(concurrency, kill -9, two instances, a browser). Such tests are marked `slow` or `browser`.
"""

import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn

from app.web import streams

HOST = "127.0.0.1"


def free_port() -> int:
    """A port nothing listens on now, for a server in another process (which binds it itself).

    Another process may take it before the server does; `serving` avoids the gap by binding
    the socket itself and handing it to uvicorn.
    """
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def wait_until(ready: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll `ready` until it is true; fail the test, saying `what`, after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not ready():
        assert time.monotonic() < deadline, f"{what} within {timeout:g} s"
        time.sleep(0.02)


@contextmanager
def serving(app: Any, port: int | None = None, timeout: float = 20) -> Iterator[str]:
    """Run the ASGI `app` under uvicorn in a thread; yield its base URL once it listens.

    `port` fixes the origin (a browser test that restarts a server on the same one); by default
    the socket is bound to a port the system picks, with no window for another test to take it.
    """
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, port or 0))
    config = uvicorn.Config(app, log_level="warning")
    hub = getattr(getattr(app, "state", None), "events", None)
    # As `ringside serve` does: a server that ends the app's event streams when it stops.
    server = uvicorn.Server(config) if hub is None else streams.Server(config, hub)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started or not thread.is_alive(), timeout, "the server started")
        assert server.started, "the server stopped while starting (its error is logged above)"
        yield f"http://{HOST}:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=timeout)
        sock.close()


def wait_until_up(base: str, process: "subprocess.Popen[Any]", timeout: float = 30) -> None:
    """Poll `base`/healthz until it answers 200; fail if the process exits or time runs out."""

    def up() -> bool:
        assert process.poll() is None, f"the server exited with {process.returncode}"
        try:
            return httpx.get(f"{base}/healthz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    wait_until(up, timeout, f"{base} answered /healthz")

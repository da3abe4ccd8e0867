"""Load over loopback: start a bench server, wait until it is ready, run wrk, read its memory."""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

BENCH = Path(__file__).resolve().parent
_UNITS_MS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3, "h": 3600e3}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def have_wrk() -> bool:
    return shutil.which("wrk") is not None


@dataclass(frozen=True)
class WrkResult:
    requests_per_s: float
    p50_ms: float
    p99_ms: float
    requests: int
    errors: int  # non-2xx/3xx answers plus socket errors (connect, read, write, timeout)


def _duration_ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m|h)", text)
    if not match:
        raise ValueError(f"not a wrk duration: {text!r}")
    return float(match.group(1)) * _UNITS_MS[match.group(2)]


def parse_wrk(output: str) -> WrkResult:
    """The figures of `wrk --latency`'s report."""
    rps = re.search(r"Requests/sec:\s+([\d.]+)", output)
    p50 = re.search(r"^\s+50%\s+(\S+)", output, re.MULTILINE)
    p99 = re.search(r"^\s+99%\s+(\S+)", output, re.MULTILINE)
    total = re.search(r"^\s+(\d+) requests in", output, re.MULTILINE)
    if not (rps and p50 and p99 and total):
        raise ValueError(f"not a wrk --latency report:\n{output}")
    errors = 0
    if non_2xx := re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output):
        errors += int(non_2xx.group(1))
    if socket_errors := re.search(r"Socket errors:(.*)", output):
        errors += sum(int(n) for n in re.findall(r"\d+", socket_errors.group(1)))
    return WrkResult(
        requests_per_s=float(rps.group(1)),
        p50_ms=_duration_ms(p50.group(1)),
        p99_ms=_duration_ms(p99.group(1)),
        requests=int(total.group(1)),
        errors=errors,
    )


def run_wrk(
    url: str,
    duration: float,
    connections: int = 64,
    script: str | None = None,
    script_args: tuple[str, ...] = (),
    headers: tuple[str, ...] = (),
) -> WrkResult:
    """wrk with two threads (one per core) against `url`; a Lua script makes POSTs."""
    command = ["wrk", "-t2", f"-c{connections}", f"-d{duration:g}s", "--latency"]
    for header in headers:
        command += ["-H", header]
    if script is not None:
        command += ["-s", str(BENCH / script)]
    command.append(url)
    if script_args:
        command += ["--", *script_args]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return parse_wrk(output)


def cpu_s(pid: int) -> float:
    """CPU time (user + system) a process and its finished children used, from /proc (Linux).

    The children count too: a large content set is rendered by worker processes at start-up.
    """
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = sum(int(field) for field in fields[11:15])  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    """Resident memory of a process, from /proc (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


class PeakRss:
    """Samples a process's RSS ten times a second while in the `with` block; keeps the peak."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak_mb = pid, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while True:
            self.peak_mb = max(self.peak_mb, rss_mb(self.pid))
            if self._stop.wait(0.1):
                return

    def __enter__(self) -> "PeakRss":
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


class BenchServer:
    """bench/server.py in a subprocess: one uvicorn worker, production settings, no access log."""

    def __init__(self, database_url: str, content_dir: Path | None = None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        command = [sys.executable, str(BENCH / "server.py"), str(self.port), database_url]
        if content_dir is not None:
            command.append(str(content_dir))
        self.started = time.perf_counter()
        env = {k: v for k, v in os.environ.items() if not k.startswith("RINGSIDE_")}
        self.process = subprocess.Popen(command, env=env)
        try:
            self.startup_s = self._wait_ready()
            # On a shared machine the wall time includes waiting for a core; CPU time does not.
            self.startup_cpu_s = cpu_s(self.process.pid)
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, timeout: float = 120) -> float:
        """Seconds from exec to the first 200 from /readyz."""
        deadline = self.started + timeout
        while time.perf_counter() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the bench server exited with {self.process.returncode}")
            try:
                with urllib.request.urlopen(f"{self.base}/readyz", timeout=2) as answer:
                    if answer.status == 200:
                        return time.perf_counter() - self.started
            except (urllib.error.URLError, ConnectionError):
                pass
            time.sleep(0.01)
        raise RuntimeError(f"the bench server was not ready within {timeout:.0f} s")

    def get_json(self, path: str) -> Any:
        with urllib.request.urlopen(f"{self.base}{path}", timeout=10) as answer:
            return json.load(answer)

    def browser_headers(self) -> tuple[str, ...]:
        """What a browser sends for a page: Accept, and the session cookie the app hands out."""
        accept = "Accept: text/html,application/xhtml+xml"
        request = urllib.request.Request(f"{self.base}/", headers={"Accept": accept[8:]})
        with urllib.request.urlopen(request, timeout=10) as answer:
            cookies = [c.split(";", 1)[0] for c in answer.headers.get_all("Set-Cookie") or []]
        return (accept, f"Cookie: {'; '.join(cookies)}") if cookies else (accept,)

    def rss_mb(self) -> float:
        return rss_mb(self.process.pid)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> "BenchServer":
        return self

    def __exit__(
        self,
        _type: type[BaseException] | None,
        _value: BaseException | None,
        _traceback: TracebackType | None,
    ) -> None:
        self.stop()

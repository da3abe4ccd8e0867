"""How soon a change on one screen of a mock interview reaches the other (issue 28).

    python bench/live.py [--rounds 40] [--postgres postgresql+psycopg://postgres@127.0.0.1:5432/test]

Starts `ringside serve` in local mode: one server on a fresh SQLite file (news delivered in the
process), and with --postgres two servers on one fresh schema of that database (news crosses
between them by NOTIFY). A session runs with an interviewer's link; each round the interviewer
marks points through one server while the candidate's stream is held on the other (on SQLite,
the same one), then the candidate autosaves and the interviewer's stream hears it. For each
write it prints, from the moment the request is sent:

- the write's own round trip (the baseline, measured in the same rounds), and
- when the news arrived on the other side's stream.

The page then fetches the view (one GET, as fast as any other); before the streams, the
interviewer's page polled every 2 s: a change waited 1 s on average and up to 2 s.
"""

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import httpx

ROOT = Path(__file__).resolve().parent.parent
CONTENT = ROOT / "tests" / "fixtures" / "content"


class Stream:
    """An event stream read in a thread: each event's version and arrival time."""

    def __init__(self, url: str) -> None:
        self.arrived: dict[int, float] = {}
        self.lock = threading.Lock()
        ready = threading.Event()
        parts = urlsplit(url)
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)

        def read() -> None:
            self.connection.request("GET", f"{parts.path}?{parts.query}")
            response = self.connection.getresponse()
            assert response.status == 200, response.status
            ready.set()
            while line := response.readline():
                if line.startswith(b"data: "):
                    version = json.loads(line[6:]).get("version")
                    with self.lock:
                        self.arrived.setdefault(version, time.perf_counter())

        threading.Thread(target=read, daemon=True).start()
        assert ready.wait(10)

    def wait(self, version: int, timeout: float = 10) -> float:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            with self.lock:
                if version in self.arrived:
                    return self.arrived[version]
            time.sleep(0.0005)
        raise TimeoutError(f"version {version} not heard within {timeout} s")

    def close(self) -> None:
        try:
            if self.connection.sock:
                self.connection.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def server(database_url: str, folder: Path) -> Iterator[str]:
    port = free_port()
    env = {
        **os.environ,
        "RINGSIDE_DATABASE_URL": database_url,
        "RINGSIDE_CONTENT_DIR": str(CONTENT),
        "RINGSIDE_BACKUP_DIR": str(folder / "backups"),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            raise RuntimeError(f"{base} did not start")
        yield base
    finally:
        process.terminate()
        process.wait(timeout=20)


def measure(a: str, b: str, rounds: int) -> dict[str, list[float]]:
    """Writes through `a` heard on `b`'s stream, and the other way round."""
    with httpx.Client(timeout=10) as http:
        made = http.post(f"{a}/api/mock", json={"preset": "custom", "questions": 1, "minutes": 10})
        mock = made.json()["id"]
        http.post(f"{a}/api/mock/{mock}/start", json={"position": 1}).raise_for_status()
        token = http.post(f"{a}/api/mock/{mock}/pair").json()["invite_url"].split("/")[-1]
        version = http.get(f"{a}/api/mock/{mock}").json()["version"]
        candidate = Stream(f"{a}/api/mock/{mock}/events?since={version}")
        interviewer = Stream(f"{b}/api/pair/{token}/events?since={version}")
        out: dict[str, list[float]] = {k: [] for k in ("mark", "mark_heard", "save", "save_heard")}
        try:
            for i in range(rounds):
                sent = time.perf_counter()
                marked = http.post(
                    f"{b}/api/pair/{token}/points", json={"position": 1, "points": [i % 3]}
                )
                out["mark"].append(time.perf_counter() - sent)
                version = marked.json()["version"]
                out["mark_heard"].append(candidate.wait(version) - sent)
                sent = time.perf_counter()
                saved = http.put(
                    f"{a}/api/mock/{mock}/answer", json={"part": "main", "text": f"notes {i}"}
                )
                saved.raise_for_status()
                out["save"].append(time.perf_counter() - sent)
                version += 1
                out["save_heard"].append(interviewer.wait(version) - sent)
                time.sleep(0.05)
        finally:
            candidate.close()
            interviewer.close()
        return out


def report(title: str, out: dict[str, list[float]]) -> None:
    print(f"\n{title}")
    print(f"  {'ms':<44}{'median':>8}{'p90':>8}{'max':>8}")
    labels = {
        "mark": "interviewer's mark: its POST round trip",
        "mark_heard": "  ...heard on the candidate's stream",
        "save": "candidate's autosave: its PUT round trip",
        "save_heard": "  ...heard on the interviewer's stream",
    }
    for key, label in labels.items():
        values = sorted(v * 1000 for v in out[key])
        p90 = values[int(len(values) * 0.9) - 1]
        print(f"  {label:<44}{statistics.median(values):8.1f}{p90:8.1f}{values[-1]:8.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--postgres", help="a PostgreSQL URL: also measure two servers on it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        with server(f"sqlite:///{folder}/live.db", Path(folder)) as base:
            report("SQLite, one server", measure(base, base, args.rounds))
        if args.postgres:
            from sqlalchemy import create_engine
            from sqlalchemy.engine import make_url

            schema = f"ringside_bench_{uuid.uuid4().hex[:12]}"
            admin = create_engine(args.postgres)
            with admin.begin() as connection:
                connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
            url = make_url(args.postgres).update_query_dict({"options": f"-csearch_path={schema}"})
            rendered = url.render_as_string(hide_password=False)
            try:
                with server(rendered, Path(folder)) as a, server(rendered, Path(folder)) as b:
                    report("PostgreSQL, two servers (write on one, stream on the other)",
                           measure(a, b, args.rounds))  # fmt: skip
            finally:
                with admin.begin() as connection:
                    connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
                admin.dispose()


if __name__ == "__main__":
    main()

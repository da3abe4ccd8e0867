"""A full disk, for real: a server whose file size limit (RLIMIT_FSIZE) stops its writes.

It must answer 503 (not 500), log one short line per refusal (not a traceback each), say so
in /readyz, and write again once the limit is lifted, without a restart.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import FIXTURE_CONTENT
from tests.servers import free_port

pytestmark = pytest.mark.skipif(
    shutil.which("prlimit") is None, reason="needs prlimit (util-linux) to limit file sizes"
)


def prlimit(pid: int, soft: str) -> None:
    subprocess.run(["prlimit", f"--pid={pid}", f"--fsize={soft}:unlimited"], check=True)


def test_a_full_disk_answers_503_then_writes_resume(tmp_path: Path) -> None:
    database = tmp_path / "full.db"
    port = free_port()
    env = {
        **os.environ,
        "RINGSIDE_DATABASE_URL": f"sqlite:///{database}",
        "RINGSIDE_CONTENT_DIR": str(FIXTURE_CONTENT),
        "RINGSIDE_BACKUP_KEEP": "0",
    }
    log = (tmp_path / "server.log").open("w+")
    server = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{base}/healthz", timeout=1)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.1)
        with httpx.Client(base_url=base, timeout=10) as client:

            def grade(n: int) -> int:
                body = {"rating": 1 + n % 4, "idempotency_key": f"k{n}"}
                return client.post("/api/review/alpha-busbw", json=body).status_code

            assert grade(0) == 200
            files = [database, database.with_name(database.name + "-wal")]
            biggest = max(f.stat().st_size for f in files if f.exists())
            prlimit(server.pid, str(biggest + 8192))
            log_start = log.tell()

            statuses = [grade(n) for n in range(1, 301)]
            assert 503 in statuses and 500 not in statuses, statuses
            assert set(statuses) <= {200, 503}
            refused = client.post(
                "/api/review/alpha-busbw", json={"rating": 3, "idempotency_key": "full"}
            )
            assert refused.status_code == 503 and "disk is full" in refused.json()["detail"]
            assert refused.headers["retry-after"]
            assert client.get("/api/cards/alpha-busbw").status_code == 200  # reads go on
            ready = client.get("/readyz")
            assert ready.status_code == 503 and ready.json()["writes"] == "storage full"

            log.seek(log_start)
            lines = [json.loads(line) for line in log.read().splitlines() if line.strip()]
            failures = statuses.count(503) + 1
            assert lines and len(lines) <= 2 * failures + 4
            assert all("exception" not in line for line in lines), lines[0]
            assert all(len(json.dumps(line)) < 600 for line in lines)

            prlimit(server.pid, "unlimited")  # space is back
            assert grade(1000) == 200
            assert client.get("/readyz").json()["writes"] == "ok"
            after = client.get("/api/export").json()["review_logs"]
            assert len(after) == statuses.count(200) + 2  # grade 0, the acknowledged, grade 1000
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
        log.close()

"""kill -9 under review load: every acknowledged grade survives, state and log agree."""

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from app.db import Database
from tests.conftest import FIXTURE_CONTENT
from tests.servers import free_port, wait_until_up

pytestmark = pytest.mark.slow

CARDS = ["alpha-ring-bytes", "alpha-busbw", "alpha-drill-bytes", "beta-derive", "beta-order"]


def test_kill_9_loses_no_acknowledged_review(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/crash.db"
    port = free_port()
    env = {**os.environ, "RINGSIDE_DATABASE_URL": url, "RINGSIDE_CONTENT_DIR": str(FIXTURE_CONTENT)}
    server = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    wait_until_up(base, server, timeout=20)

    acknowledged: list[str] = []
    saved_versions: list[int] = []
    lock = threading.Lock()
    stop = threading.Event()
    mock = httpx.post(f"{base}/api/mock", json={"preset": "custom", "questions": 1, "minutes": 30})
    mock_id = mock.json()["id"]
    httpx.post(f"{base}/api/mock/{mock_id}/start")

    def autosave() -> None:
        """Type an answer that grows, saving as the page does; remember what was acknowledged."""
        with httpx.Client(timeout=5) as client:
            for version in range(1, 100_000):
                if stop.is_set():
                    return
                body = {"part": "main", "text": f"draft {version} " + "x" * version}
                try:
                    response = client.put(f"{base}/api/mock/{mock_id}/answer", json=body)
                except httpx.HTTPError:
                    return
                assert response.status_code == 200, response.text
                saved_versions.append(version)

    def load(worker: int) -> None:
        with httpx.Client(timeout=5) as client:
            for n in range(10_000):
                if stop.is_set():
                    return
                key = f"w{worker}-{n}"
                body = {"rating": 1 + n % 4, "idempotency_key": key}
                try:
                    response = client.post(f"{base}/api/review/{CARDS[n % 5]}", json=body)
                except httpx.HTTPError:
                    return  # the server is gone
                assert response.status_code == 200, response.text
                with lock:
                    acknowledged.append(key)

    workers = [threading.Thread(target=load, args=(w,)) for w in range(5)]
    workers.append(threading.Thread(target=autosave))
    for worker in workers:
        worker.start()
    deadline = time.monotonic() + 45  # a loaded 2-core machine acknowledges slowly
    while len(acknowledged) < 150 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(server.pid, signal.SIGKILL)
    server.wait(timeout=10)
    stop.set()
    for worker in workers:
        worker.join(timeout=10)
    assert len(acknowledged) >= 150

    database = Database(url)
    with database.read_session() as session:
        assert session.execute(text("PRAGMA integrity_check")).scalar() == "ok"
        stored = set(session.execute(text("SELECT idempotency_key FROM review_logs")).scalars())
        assert set(acknowledged) <= stored
        logs_per_card = Counter(
            dict(
                session.execute(
                    text("SELECT card_id, count(*) FROM review_logs GROUP BY card_id")
                ).all()
            )  # noqa: E501
        )
        reps = dict(session.execute(text("SELECT card_id, reps FROM card_states")).all())
    assert reps == dict(logs_per_card)  # each log row came with its state change, or neither
    with database.read_session() as session:
        answer = session.execute(text("SELECT answer FROM mock_questions")).scalar_one()
    stored = int(answer.split()[1])
    assert saved_versions and stored >= saved_versions[-1]  # no acknowledged autosave lost
    database.dispose()

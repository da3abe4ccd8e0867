"""Requests holding a read session at once stay fewer than the pool's connections."""

import threading
from pathlib import Path

from sqlalchemy import text

from app.config import Settings
from app.db import POOL_SIZE
from app.main import create_app
from app.web.deps import SessionDep
from tests.conftest import FIXTURE_CONTENT, loopback_client


def test_sessions_beyond_the_limit_wait_without_a_connection(tmp_path: Path) -> None:
    # A request keeps its connection until FastAPI has validated its response in a worker
    # thread; if as many such requests as connections wait for threads while every thread
    # waits for a connection, nothing moves. So only POOL_SIZE requests hold a session at once.
    app = create_app(
        Settings(database_url=f"sqlite:///{tmp_path}/s.db", content_dir=FIXTURE_CONTENT)
    )
    changed = threading.Condition()
    counts = {"entered": 0, "active": 0, "most": 0}
    gate = threading.Semaphore(0)

    @app.get("/api/probe")
    def probe(session: SessionDep) -> dict[str, int]:
        session.execute(text("SELECT 1"))
        with changed:
            counts["entered"] += 1
            counts["active"] += 1
            counts["most"] = max(counts["most"], counts["active"])
            changed.notify_all()
        released = gate.acquire(timeout=30)
        with changed:
            counts["active"] -= 1
            changed.notify_all()
        return {"released": int(released)}

    answers: list[int] = []
    with loopback_client(app) as client:
        requests = [
            threading.Thread(target=lambda: answers.append(client.get("/api/probe").status_code))
            for _ in range(POOL_SIZE + 3)
        ]
        for request in requests:
            request.start()
        with changed:
            assert changed.wait_for(lambda: counts["entered"] == POOL_SIZE, timeout=30)
        gate.release()  # one finishes, so exactly one more may start
        with changed:
            assert changed.wait_for(lambda: counts["entered"] == POOL_SIZE + 1, timeout=30)
            assert counts["most"] == POOL_SIZE
        for _ in range(POOL_SIZE + 2):
            gate.release()
        for request in requests:
            request.join(timeout=30)
    assert answers == [200] * (POOL_SIZE + 3)
    assert counts["most"] == POOL_SIZE

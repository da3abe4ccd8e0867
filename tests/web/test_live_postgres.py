"""Live mock sessions across instances: two `ringside serve` processes on one PostgreSQL schema;
a change made through one is heard on a stream held by the other (PostgreSQL's NOTIFY, heard
by one listening connection per process), and a revoked link ends a stream on either.
"""

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from app.config import Settings
from app.main import create_app
from tests.conftest import FIXTURE_CONTENT
from tests.postgres.schemas import SKIP_REASON, Schemas, schema_of, template_url
from tests.servers import free_port, serving, wait_until_up
from tests.web.sse import Listener
from tests.web.test_live import started_mock

pytestmark = [pytest.mark.slow, pytest.mark.postgres]


def start(url: str, tmp_path: Path) -> tuple["subprocess.Popen[bytes]", str]:
    port = free_port()
    env = {
        **os.environ,
        "RINGSIDE_DATABASE_URL": url,
        "RINGSIDE_CONTENT_DIR": str(FIXTURE_CONTENT),
        "RINGSIDE_BACKUP_DIR": str(tmp_path / "backups"),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    wait_until_up(base, process, timeout=60)
    return process, base


@pytest.fixture
def two_servers(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """Two local-mode servers (one profile, this machine) on one fresh schema."""
    url = template_url()
    if url is None:
        pytest.skip(SKIP_REASON)
    schemas = Schemas(url)
    database = schemas.create()
    processes = []
    try:
        first, a = start(database, tmp_path)  # one at a time: the first applies the migrations
        processes.append(first)
        second, b = start(database, tmp_path)
        processes.append(second)
        yield a, b
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            # SIGTERM with streams open: each server ends them and stops (app.web.streams);
            # uvicorn then re-raises the signal, so the exit status is the signal's.
            assert process.wait(timeout=15) in (0, -15)
        schemas.drop(database)
        schemas.dispose()


def test_a_change_on_one_instance_reaches_a_stream_on_the_other(
    two_servers: tuple[str, str],
) -> None:
    a, b = two_servers
    mock_id, token = started_mock(a)
    since = httpx.get(f"{a}/api/mock/{mock_id}").json()["version"]
    interviewer_on_b = Listener(f"{b}/api/pair/{token}/events?since={since}")
    candidate_on_a = Listener(f"{a}/api/mock/{mock_id}/events?since={since}")
    try:
        # The candidate types on A; the interviewer's stream on B hears it.
        saved = httpx.put(f"{a}/api/mock/{mock_id}/answer", json={"part": "main", "text": "x"})
        assert saved.is_success
        heard = interviewer_on_b.wait_for(lambda e: e.data.get("kind") == "notes")
        assert heard.data["version"] == since + 1
        assert httpx.get(f"{b}/api/pair/{token}").json()["current"]["answer"] == "x"
        # The interviewer marks on B; the candidate's stream on A hears it.
        marked = httpx.post(f"{b}/api/pair/{token}/points", json={"position": 1, "points": [0]})
        assert marked.is_success
        candidate_on_a.wait_for(lambda e: e.data == {"version": since + 2, "kind": "interviewer"})
        # Revoked on A: the interviewer's stream on B ends, and B opens nothing for the token.
        assert httpx.delete(f"{a}/api/mock/{mock_id}/pair").status_code == 204
        interviewer_on_b.wait_for(lambda e: e.name == "gone")
        interviewer_on_b.wait_ended()
        assert httpx.get(f"{b}/api/pair/{token}").status_code == 404
    finally:
        interviewer_on_b.close()
        candidate_on_a.close()


def test_schemas_do_not_hear_each_other(two_servers: tuple[str, str], tmp_path: Path) -> None:
    """LISTEN is database-wide: an app on another schema of the same database, whose session
    has the same id, hears nothing of this one's."""
    a, _b = two_servers
    url = template_url()
    assert url is not None
    schemas = Schemas(url)
    other_database = schemas.create()
    other, c = start(other_database, tmp_path)
    try:
        mock_id, token = started_mock(a)
        other_mock, _ = started_mock(c)
        assert other_mock == mock_id  # the same id on both schemas
        version = httpx.get(f"{c}/api/mock/{other_mock}").json()["version"]
        elsewhere = Listener(f"{c}/api/mock/{other_mock}/events?since={version}")
        here = Listener(f"{a}/api/mock/{mock_id}/events?since=0")
        httpx.post(f"{a}/api/pair/{token}/points", json={"position": 1, "points": [0]})
        here.wait_for(lambda e: e.data.get("kind") == "interviewer")
        assert elsewhere.events == []
        here.close()
        elsewhere.close()
    finally:
        other.terminate()
        assert other.wait(timeout=15) in (0, -15)
        schemas.drop(other_database)
        schemas.dispose()


def test_news_sent_while_the_listener_reconnects_is_not_lost(
    postgres_schemas: Schemas | None,
) -> None:
    """The listening connection dies (a restarted PostgreSQL, a proxy's timeout): it
    reconnects, and every stream reads the session again, so a change made meanwhile, whose
    NOTIFY nobody heard, still reaches the page."""
    if postgres_schemas is None:
        pytest.skip(SKIP_REASON)
    url = postgres_schemas.create()
    try:
        settings = Settings(database_url=url, content_dir=FIXTURE_CONTENT)
        app = create_app(settings)
        with serving(app) as base:
            hub = app.state.events
            assert hub.listening.wait(10)
            mock_id, token = started_mock(base)
            version = httpx.get(f"{base}/api/mock/{mock_id}").json()["version"]
            candidate = Listener(f"{base}/api/mock/{mock_id}/events?since={version}")
            try:
                with postgres_schemas.engine.begin() as connection:
                    ended = connection.execute(
                        text(
                            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                            " WHERE application_name = :name AND query LIKE 'LISTEN%'"
                        ),
                        {"name": schema_of(url)},
                    ).all()
                assert ended == [(True,)]  # the one listening connection of this process
                marked = httpx.post(
                    f"{base}/api/pair/{token}/points", json={"position": 1, "points": [0]}
                )
                assert marked.is_success
                heard = candidate.wait_for(lambda e: e.name == "change")
                assert heard.data["version"] == marked.json()["version"]
                assert hub.listening.wait(10)  # and it listens again, for what comes next
                again = httpx.post(
                    f"{base}/api/pair/{token}/points", json={"position": 1, "points": [1]}
                )
                candidate.wait_for(lambda e: e.data["version"] == again.json()["version"])
            finally:
                candidate.close()
    finally:
        postgres_schemas.drop(url)

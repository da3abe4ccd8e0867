"""Request ids, JSON-line logs, /readyz, and a graceful stop on SIGTERM."""

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.config import Settings
from app.db import Database
from app.main import create_app
from tests.conftest import FIXTURE_CONTENT, ClientFactory, loopback_client
from tests.servers import free_port

ROOT = Path(__file__).resolve().parent.parent


def log_lines(captured: str) -> list[dict[str, Any]]:
    """Every stderr line must be one JSON object."""
    return [json.loads(line) for line in captured.splitlines() if line.strip()]


def test_a_request_id_is_echoed_or_generated(make_client: ClientFactory) -> None:
    client = make_client()
    sent = client.get("/healthz", headers={"X-Request-ID": "trace-42.a:b"})
    assert sent.headers["x-request-id"] == "trace-42.a:b"
    fresh = [client.get("/healthz").headers["x-request-id"] for _ in range(2)]
    assert all(len(rid) == 32 and int(rid, 16) >= 0 for rid in fresh)
    assert fresh[0] != fresh[1]
    # An id that is not a short token is not echoed into headers and logs: a fresh one is.
    for bad in ("a b", "x" * 129, "<script>"):
        replaced = client.get("/healthz", headers={"X-Request-ID": bad}).headers["x-request-id"]
        assert replaced != bad and len(replaced) == 32


def test_info_level_logs_one_json_line_per_request(
    make_client: ClientFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    client = make_client(log_level="info")
    capsys.readouterr()
    client.get("/topics/alpha", headers={"X-Request-ID": "req-1"})
    client.get("/topics/nope", headers={"X-Request-ID": "req-2"})
    requests = [e for e in log_lines(capsys.readouterr().err) if e["logger"] == "ringside.request"]
    assert [(e["request_id"], e["method"], e["path"], e["status"]) for e in requests] == [
        ("req-1", "GET", "/topics/alpha", 200),
        ("req-2", "GET", "/topics/nope", 404),
    ]
    assert all(e["level"] == "info" and e["duration_ms"] >= 0 and e["time"] for e in requests)


def test_quiet_by_default(make_client: ClientFactory, capsys: pytest.CaptureFixture[str]) -> None:
    client = make_client()
    capsys.readouterr()
    assert client.get("/topics/alpha").status_code == 200
    assert client.get("/topics/nope").status_code == 404
    assert capsys.readouterr().err == ""


def test_an_unhandled_error_is_logged_with_its_request_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app = create_app(
        Settings(database_url=f"sqlite:///{tmp_path}/e.db", content_dir=FIXTURE_CONTENT)
    )

    @app.get("/api/broken")
    def broken() -> None:
        raise RuntimeError("the disk is on fire")

    with loopback_client(app, raise_server_exceptions=False) as client:
        capsys.readouterr()
        answer = client.get("/api/broken", headers={"X-Request-ID": "boom-1"})
    assert answer.status_code == 500 and answer.json() == {"detail": "Internal server error."}
    entries = [e for e in log_lines(capsys.readouterr().err) if e.get("request_id") == "boom-1"]
    line = next(e for e in entries if e["logger"] == "ringside.request")
    assert (line["level"], line["status"], line["path"]) == ("warning", 500, "/api/broken")
    error = next(e for e in entries if e["level"] == "error")
    assert "RuntimeError: the disk is on fire" in error["exception"]


def test_readyz_when_ready(client: TestClient) -> None:
    answer = client.get("/readyz")
    assert answer.status_code == 200
    assert answer.json() == {
        "status": "ready",
        "database": "ok",
        "migrations": "ok",
        "writes": "ok",
    }
    assert client.get("/healthz").json()["status"] == "ok"


def test_readyz_names_a_schema_from_another_version(client: TestClient) -> None:
    database: Database = client.app.state.database  # type: ignore[attr-defined]
    with database.write_session() as session:
        session.execute(text("UPDATE alembic_version SET version_num = '9999_from_the_future'"))
    answer = client.get("/readyz")
    assert answer.status_code == 503
    body = answer.json()
    assert body["status"] == "not ready" and body["database"] == "ok"
    assert (
        "9999_from_the_future" in body["migrations"] and "ringside db upgrade" in body["migrations"]
    )


def test_readyz_when_the_database_is_unreachable(client: TestClient, tmp_path: Path) -> None:
    # A folder is not a database file: every connection fails, as with a lost volume.
    unreachable = Database(f"sqlite:///{tmp_path}")
    client.app.state.database = unreachable  # type: ignore[attr-defined]
    answer = client.get("/readyz")
    assert answer.status_code == 503
    assert answer.json() == {
        "status": "not ready",
        "database": "unreachable (OperationalError)",
        "migrations": "unknown",
        "writes": "unknown",
    }
    unreachable.dispose()


SLOW_SERVER = """
import sys
import uvicorn
from app.config import Settings
from app.main import create_app
from app.web.observability import uvicorn_options

settings = Settings()
app = create_app(settings)

@app.get("/slow")
def slow() -> dict[str, str]:
    print("in", flush=True)
    sys.stdin.readline()  # the test releases the request when the shutdown has begun
    return {"finished": "yes"}

uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), **uvicorn_options(settings))
"""


@pytest.mark.slow
def test_sigterm_lets_the_request_in_flight_finish(tmp_path: Path) -> None:
    port = free_port()
    env = {
        **os.environ,
        "RINGSIDE_DATABASE_URL": f"sqlite:///{tmp_path}/s.db",
        "RINGSIDE_CONTENT_DIR": str(FIXTURE_CONTENT),
        "RINGSIDE_LOG_LEVEL": "info",
    }
    server = subprocess.Popen(
        [sys.executable, "-c", SLOW_SERVER, str(port)],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watchdog = threading.Timer(90, server.kill)  # a hung server fails the test, not the run
    watchdog.start()
    assert server.stdin and server.stdout and server.stderr
    seen: list[dict[str, Any]] = []

    def wait_for_log(message: str) -> None:
        while not any(e["message"].startswith(message) for e in seen):
            line = server.stderr.readline()  # type: ignore[union-attr]
            assert line, f"the server exited before logging {message!r}: {seen}"
            seen.append(json.loads(line))

    try:
        wait_for_log("Uvicorn running on")
        answers: list[httpx.Response] = []
        request = threading.Thread(
            target=lambda: answers.append(httpx.get(f"http://127.0.0.1:{port}/slow", timeout=60))
        )
        request.start()
        assert server.stdout.readline() == "in\n"
        server.send_signal(signal.SIGTERM)
        wait_for_log("Waiting for connections to close")
        server.stdin.write("go\n")
        server.stdin.flush()
        request.join(timeout=60)
        # uvicorn re-raises the signal once it has shut down, so it exits as SIGTERM's own.
        assert server.wait(timeout=60) in (0, -signal.SIGTERM)
        seen += log_lines(server.stderr.read())
    finally:
        watchdog.cancel()
        server.kill()
        server.wait()
        server.stdin.close()
        server.stdout.close()
        server.stderr.close()
    assert [(a.status_code, a.json()) for a in answers] == [(200, {"finished": "yes"})]
    messages = [e["message"] for e in seen]
    assert "Application shutdown complete." in messages  # the lifespan disposed the engine
    assert messages.index("Shutting down") < messages.index("Application shutdown complete.")
    request_lines = [e for e in seen if e["logger"] == "ringside.request"]
    assert [(e["path"], e["status"]) for e in request_lines] == [("/slow", 200)]

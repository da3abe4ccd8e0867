"""Secrets stay secret: masked database URLs, strong secret keys, private files, and a JSON
line for each security event that names who and from where, never a password or token."""

import os
import re
import stat
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.datasafety import backup
from app.db import masked
from app.main import create_app, policy_of
from tests.conftest import FIXTURE_CONTENT, ClientFactory, loopback_client
from tests.test_observability import log_lines

PASSWORD = "S3cretPassw0rd"
UNREACHABLE = f"postgresql+psycopg://ringside:{PASSWORD}@127.0.0.1:1/ringside"
KEY = "k3y-for-tests-" + "abcdefghij" * 5
GOOD = "correct horse battery staple"


def test_database_urls_are_shown_with_the_password_masked() -> None:
    assert masked(UNREACHABLE) == "postgresql+psycopg://ringside:***@127.0.0.1:1/ringside"
    assert masked("sqlite:///data/ringside.db") == "sqlite:///data/ringside.db"
    assert PASSWORD not in masked(f"not a url :{PASSWORD}@")


@pytest.mark.parametrize(
    "command",
    [["db", "upgrade"], ["serve", "--port", "1"], ["export"], ["user", "invite"]],
    ids=" ".join,
)
def test_commands_that_cannot_reach_the_database_print_no_password(
    command: list[str], tmp_path: Path
) -> None:
    env = {**os.environ, "RINGSIDE_DATABASE_URL": UNREACHABLE,
           "RINGSIDE_CONTENT_DIR": str(FIXTURE_CONTENT), "RINGSIDE_SECRET_KEY": KEY}  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-m", "app.cli", *command],
        capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 1
    assert PASSWORD not in result.stderr + result.stdout
    assert "ringside:***@127.0.0.1:1" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "key",
    [
        "a" * 32,
        " " * 64,  # long, but one character
        "abcd" * 20,  # long, but four characters
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM",  # 49 characters
    ],
)
def test_weak_secret_keys_are_refused(key: str) -> None:
    from app.main import ConfigError  # as loaded now: another test may have reloaded app.main

    settings = Settings(auth_mode="accounts", secret_key=key)  # type: ignore[arg-type]
    with pytest.raises(ConfigError) as refused:
        policy_of(settings)
    assert "at least 50" in str(refused.value) and "secrets.token_urlsafe(48)" in str(refused.value)


def test_a_long_varied_secret_key_is_accepted() -> None:
    import secrets

    for key in (secrets.token_urlsafe(48), secrets.token_hex(32), "abcde" * 10):
        settings = Settings(auth_mode="accounts", secret_key=key)  # type: ignore[arg-type]
        assert policy_of(settings).key == key.encode()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_database_its_wal_and_backups_are_private(tmp_path: Path) -> None:
    os.umask(0o022)  # the usual default, under which SQLite would make them 0644
    folder = tmp_path / "new" / "data"
    database = folder / "rs.db"
    settings = Settings(database_url=f"sqlite:///{database}", content_dir=FIXTURE_CONTENT)
    with loopback_client(create_app(settings)) as client:
        answer = client.post("/api/review/alpha-busbw", json={"rating": 3, "idempotency_key": "a"})
        assert answer.status_code == 200
        assert mode(folder) == 0o700
        assert mode(database) == 0o600
        assert mode(folder / "rs.db-wal") == 0o600 and mode(folder / "rs.db-shm") == 0o600
        taken = backup.take(database, folder / "backups", datetime.now(UTC))
    assert mode(taken.path) == 0o600 and mode(folder / "backups") == 0o700


def test_an_older_world_readable_database_is_narrowed(tmp_path: Path) -> None:
    database = tmp_path / "old.db"
    settings = Settings(database_url=f"sqlite:///{database}", content_dir=FIXTURE_CONTENT)
    create_app(settings).state.database.dispose()
    database.chmod(0o644)
    create_app(settings).state.database.dispose()
    assert mode(database) == 0o600


def security_lines(captured: str) -> list[dict[str, object]]:
    return [e for e in log_lines(captured) if e["logger"] == "ringside.security"]


def csrf_of(client: TestClient) -> str:
    match = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/settings").text)
    assert match
    return match.group(1)


def test_security_events_are_logged_without_secrets(
    make_client: ClientFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    client = make_client(auth_mode="accounts", secret_key=KEY)
    client.post("/register", data={"username": "ada", "password": GOOD})
    capsys.readouterr()
    wrong = {"username": "ada", "password": "not-the-password-1"}
    statuses = [client.post("/login", data=wrong).status_code for _ in range(6)]
    assert statuses == [401] * 5 + [429]
    events = security_lines(capsys.readouterr().err)
    assert [e["event"] for e in events] == ["sign-in failed"] * 5 + ["sign-in throttled"]
    for event in events:
        assert event["username"] == "ada" and event["client"] == "testclient"
        assert event["level"] == "warning" and event["request_id"]
        assert datetime.fromisoformat(str(event["time"])).utcoffset().total_seconds() == 0  # type: ignore[union-attr]

    signed_in = make_client(auth_mode="accounts", secret_key=KEY)
    signed_in.post("/register", data={"username": "bob", "password": GOOD})
    token = csrf_of(signed_in)
    capsys.readouterr()
    assert signed_in.post("/api/auth/tokens", json={"name": "x"}).status_code == 403
    cross = signed_in.post(
        "/api/auth/tokens",
        json={"name": "x"},
        headers={"X-CSRF-Token": token, "Origin": "https://evil.example"},
    )
    assert cross.status_code == 403
    made = signed_in.post("/api/auth/tokens", json={"name": "ci"}, headers={"X-CSRF-Token": token})
    secret, token_id = made.json()["token"], made.json()["id"]
    revoked = signed_in.delete(f"/api/auth/tokens/{token_id}", headers={"X-CSRF-Token": token})
    assert revoked.status_code == 204
    captured = capsys.readouterr().err
    events = security_lines(captured)
    assert [e["event"] for e in events] == [
        "CSRF token refused",
        "cross-site request refused",
        "API token created",
        "API token revoked",
    ]
    assert events[1]["origin"] == "https://evil.example"
    assert events[2]["token_id"] == events[3]["token_id"] == token_id
    assert all(e.get("user_id") for e in (events[0], events[2], events[3]))
    for secret_text in (secret, token, GOOD, "not-the-password-1"):
        assert secret_text not in captured


def test_local_mode_refusals_are_logged(
    client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    client.get("/api/export", headers={"Host": "rebind.evil.example:8000"})
    TestClient(client.app, base_url="http://127.0.0.1:8000", client=("192.0.2.2", 1)).get("/")
    events = security_lines(capsys.readouterr().err)
    assert [(e["event"], e["client"]) for e in events] == [
        ("foreign Host header refused in local mode", "127.0.0.1"),
        ("non-loopback client refused in local mode", "192.0.2.2"),
    ]
    assert events[0]["host"] == "rebind.evil.example:8000"

"""Accounts: hashing outside the write lock, registration limits, token scope and expiry,
no session rows for cookie-less page views, and the hourly clean-up of what has ended."""

import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.auth import accounts, passwords
from app.datasafety import startup
from app.models import ApiToken, AuthSession, LoginAttempt
from tests.conftest import ClientFactory, FakeClock, loopback_client

KEY = "hygiene-tests-" + "abcdefghij" * 5
START = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
GOOD = "correct horse battery staple"
NEW = "an even longer passphrase"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def accounts_client(make_client: ClientFactory, clock: FakeClock) -> Callable[..., TestClient]:
    def build(**overrides: object) -> TestClient:
        return make_client(
            clock=clock, auth_mode="accounts", secret_key=KEY, srs_fuzz=False, **overrides
        )

    return build


def csrf_of(client: TestClient, path: str = "/settings") -> str:
    match = re.search(r'name="csrf-token" content="([^"]*)"', client.get(path).text)
    assert match and match.group(1)
    return match.group(1)


def register(client: TestClient, username: str, password: str = GOOD) -> None:
    response = client.post(
        "/register", data={"username": username, "password": password}, follow_redirects=False
    )
    assert response.status_code == 303, response.text


def rows(client: TestClient, query: Any) -> int:
    with client.app.state.database.read_session() as session:  # type: ignore[attr-defined]
        return int(session.scalar(query) or 0)


# --- argon2 outside the write lock ----------------------------------------------------------


@pytest.mark.parametrize("action", ["register", "sign in", "change password"])
def test_a_password_being_hashed_holds_up_no_one_elses_writes(
    accounts_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch, action: str
) -> None:
    """While argon2 runs for one request (held here until released), another user grades.

    On SQLite a write transaction holds the only write lock: a hash inside it would make the
    grade wait for it (here until the gate gives up after 5 s, too late)."""
    ada = accounts_client()
    register(ada, "ada")
    grader = TestClient(ada.app)
    register(grader, "grace")
    ada_token = csrf_of(ada)
    grace_token = csrf_of(grader)
    if action == "sign in":
        ada.cookies.clear()

    hashing, release, hashed = threading.Event(), threading.Event(), threading.Event()
    real_hash, real_verify = passwords.hash_password, passwords.verify

    def gated_hash(password: str) -> str:
        hashing.set()
        release.wait(5)
        hashed.set()
        return real_hash(password)

    def gated_verify(password: str, stored: str | None) -> tuple[bool, str | None]:
        hashing.set()
        release.wait(5)
        hashed.set()
        return real_verify(password, stored)

    monkeypatch.setattr(passwords, "hash_password", gated_hash)
    monkeypatch.setattr(passwords, "verify", gated_verify)
    requests: dict[str, Callable[[], Any]] = {
        "register": lambda: TestClient(ada.app).post(
            "/register", data={"username": "bob", "password": GOOD}, follow_redirects=False
        ),
        "sign in": lambda: ada.post(
            "/login", data={"username": "ada", "password": GOOD}, follow_redirects=False
        ),
        "change password": lambda: ada.post(
            "/settings/password",
            data={"current_password": GOOD, "new_password": NEW, "csrf_token": ada_token},
            follow_redirects=False,
        ),
    }
    results: list[Any] = []
    worker = threading.Thread(target=lambda: results.append(requests[action]()))
    worker.start()
    assert hashing.wait(10), "the password was never hashed"
    graded = grader.post(
        "/api/review/alpha-busbw",
        json={"rating": 3, "idempotency_key": "during-hash"},
        headers={"X-CSRF-Token": grace_token},
    )
    done_while_hashing = not hashed.is_set()
    release.set()
    worker.join(20)
    assert graded.status_code == 200 and done_while_hashing
    assert results and results[0].status_code == 303


def test_registrations_are_limited_per_address(
    accounts_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(passwords, "hash_password", lambda password: "$argon2id$fast-for-test")
    client = accounts_client()
    for n in range(accounts.MAX_REGISTRATIONS_PER_ADDRESS):
        TestClient(client.app).post("/register", data={"username": f"user{n}", "password": GOOD})
    refused = client.post("/register", data={"username": "onemore", "password": GOOD})
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0
    assert "Too many registrations" in refused.text
    registered = select(func.count()).where(LoginAttempt.kind == "register")
    assert rows(client, registered) == accounts.MAX_REGISTRATIONS_PER_ADDRESS


# --- API tokens --------------------------------------------------------------------------------


def new_token(client: TestClient, **body: Any) -> dict[str, Any]:
    created = client.post(
        "/api/auth/tokens",
        json={"name": "script", **body},
        headers={"X-CSRF-Token": csrf_of(client)},
    )
    assert created.status_code == 201, created.text
    result: dict[str, Any] = created.json()
    return result


def test_a_token_cannot_create_or_revoke_tokens(accounts_client: Callable[..., TestClient]) -> None:
    client = accounts_client()
    register(client, "ada")
    first = new_token(client)
    script = TestClient(client.app)
    bearer = {"Authorization": f"Bearer {first['token']}"}
    minted = script.post("/api/auth/tokens", json={"name": "successor"}, headers=bearer)
    assert minted.status_code == 403
    assert script.delete(f"/api/auth/tokens/{first['id']}", headers=bearer).status_code == 403
    assert rows(client, select(func.count()).select_from(ApiToken)) == 1
    assert script.get("/api/auth/tokens", headers=bearer).status_code == 200  # reading is fine


def test_a_token_can_be_given_an_expiry(
    accounts_client: Callable[..., TestClient], clock: FakeClock
) -> None:
    client = accounts_client()
    register(client, "ada")
    token = new_token(client, expires_in_days=7)
    assert token["expires_at"] == (START + timedelta(days=7)).isoformat()
    bearer = {"Authorization": f"Bearer {token['token']}"}
    script = TestClient(client.app)
    too_long = client.post(
        "/api/auth/tokens", json={"name": "x", "expires_in_days": 99999},
        headers={"X-CSRF-Token": csrf_of(client)},
    )  # fmt: skip
    assert too_long.status_code == 422
    clock.advance(days=7, seconds=-1)
    assert script.get("/api/review/queue", headers=bearer).status_code == 200
    clock.advance(seconds=1)
    assert script.get("/api/review/queue", headers=bearer).status_code == 401


def test_the_settings_form_creates_a_token_with_an_expiry(
    accounts_client: Callable[..., TestClient],
) -> None:
    client = accounts_client()
    register(client, "ada")
    page = client.post(
        "/settings/tokens",
        data={"name": "laptop", "expires_in_days": "30", "csrf_token": csrf_of(client)},
    )
    assert page.status_code == 200 and "expires 31 May 2026" in page.text


@pytest.mark.parametrize("revoke", [True, False])
def test_a_password_change_revokes_every_token_unless_kept(
    accounts_client: Callable[..., TestClient], revoke: bool
) -> None:
    client = accounts_client()
    register(client, "ada")
    bearer = {"Authorization": f"Bearer {new_token(client)['token']}"}
    form = {"current_password": GOOD, "new_password": NEW, "csrf_token": csrf_of(client)}
    if not revoke:
        form["keep_tokens"] = "on"
    changed = client.post("/settings/password", data=form, follow_redirects=False)
    assert changed.headers["location"] == "/settings?password_changed=1"
    after = TestClient(client.app).get("/api/review/queue", headers=bearer)
    assert after.status_code == (401 if revoke else 200)


# --- sessions ----------------------------------------------------------------------------------


def test_local_mode_page_views_write_no_session_rows(make_client: ClientFactory) -> None:
    browser = make_client()
    for _ in range(5):
        visitor = loopback_client(browser.app)  # no cookie each time
        assert visitor.get("/glossary", headers={"Accept": "text/html"}).status_code == 200
    page = browser.get("/review", headers={"Accept": "text/html"})
    assert "ringside_session=" in page.headers["set-cookie"]
    assert rows(browser, select(func.count()).select_from(AuthSession)) == 0
    # The cookie still carries the page's CSRF token, and only that cookie's.
    token = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
    assert token
    body = {"rating": 3, "idempotency_key": "local-1"}
    assert browser.post("/api/review/alpha-busbw", json=body).status_code == 403
    ok = browser.post("/api/review/alpha-busbw", json=body, headers={"X-CSRF-Token": token[1]})
    assert ok.status_code == 200
    other = loopback_client(browser.app)
    other.get("/review", headers={"Accept": "text/html"})
    stolen = other.post(
        "/api/review/beta-derive", json={"rating": 3, "idempotency_key": "local-2"},
        headers={"X-CSRF-Token": token[1]},
    )  # fmt: skip
    assert stolen.status_code == 403


def test_housekeeping_deletes_ended_sessions_expired_tokens_and_old_attempts(
    accounts_client: Callable[..., TestClient], clock: FakeClock
) -> None:
    client = accounts_client(session_idle_minutes=60)
    register(client, "ada")
    new_token(client, expires_in_days=1)
    new_token(client)  # until revoked: kept
    TestClient(client.app).post("/login", data={"username": "ada", "password": "wrong one"})
    database, rules = client.app.state.database, client.app.state.auth_policy  # type: ignore[attr-defined]
    clock.advance(hours=2)
    with database.write_session() as session:
        tidied = accounts.housekeeping(session, clock.now, rules)
    assert tidied == {
        "sessions": 1, "tokens": 0, "attempts": 0,
    }  # fmt: skip
    clock.advance(days=1)
    with database.write_session() as session:
        tidied = accounts.housekeeping(session, clock.now, rules)
    assert tidied == {
        "sessions": 0, "tokens": 1, "attempts": 2,  # the registration and the failed sign-in
    }  # fmt: skip
    assert rows(client, select(func.count()).select_from(ApiToken)) == 1


def test_the_hourly_task_runs_the_housekeeping(
    make_client: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    settings = make_client().app.state.settings  # type: ignore[attr-defined]
    seen: list[datetime] = []

    def tidy(now: datetime) -> None:
        seen.append(now)
        if len(seen) == 1:
            raise RuntimeError("database away")

    async def run_for_a_while() -> None:
        with anyio.move_on_after(0.3):
            await startup.keep_backing_up(settings, FakeClock(START), every_s=0.01, tidy=tidy)

    runner = threading.Thread(target=anyio.run, args=(run_for_a_while,))
    runner.start()
    runner.join()
    assert len(seen) >= 2 and seen[0] == START  # it went on after a failure
    assert "housekeeping failed" in caplog.text


def test_wrong_current_passwords_count_as_failed_sign_ins(
    accounts_client: Callable[..., TestClient], caplog: pytest.LogCaptureFixture
) -> None:
    client = accounts_client()
    register(client, "ada")
    token = csrf_of(client)
    for guess in range(accounts.MAX_FAILURES_PER_ACCOUNT):
        form = {
            "current_password": f"guess number {guess}",
            "new_password": NEW,
            "csrf_token": token,
        }
        assert client.post("/settings/password", data=form).status_code == 422
    # Past the account's limit even the right password is refused for now, with Retry-After.
    form = {"current_password": GOOD, "new_password": NEW, "csrf_token": token}
    throttled = client.post("/settings/password", data=form)
    assert throttled.status_code == 429 and int(throttled.headers["retry-after"]) > 0
    assert "Too many failed sign-ins" in throttled.text
    assert caplog.text.count("password check failed") == accounts.MAX_FAILURES_PER_ACCOUNT
    assert "password check throttled" in caplog.text
    # The session that guessed is still the owner's: nothing was changed.
    assert client.get("/api/stats").status_code == 200

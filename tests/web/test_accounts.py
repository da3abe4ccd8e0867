"""Accounts mode and the security requirements: passwords, sessions, CSRF, limits, isolation."""

import re
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.auth import passwords
from app.errors import FieldError
from app.models import AuthSession, LoginAttempt, User
from tests.conftest import ClientFactory, FakeClock, loopback_client

KEY = "k3y-for-tests-" + "abcdefghij" * 5
START = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
GOOD = "correct horse battery staple"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def accounts(make_client: ClientFactory, clock: FakeClock) -> ClientFactory:
    def build(**overrides: object) -> TestClient:
        return make_client(
            clock=clock, auth_mode="accounts", secret_key=KEY, srs_fuzz=False, **overrides
        )

    return build


def csrf_of(client: TestClient, path: str = "/settings") -> str:
    page = client.get(path).text
    match = re.search(r'name="csrf-token" content="([^"]*)"', page)
    assert match and match.group(1), "no CSRF token on the page"
    return match.group(1)


def register(client: TestClient, username: str, password: str = GOOD) -> None:
    response = client.post(
        "/register", data={"username": username, "password": password}, follow_redirects=False
    )
    assert response.status_code == 303, response.text


def sign_in(client: TestClient, username: str, password: str = GOOD) -> object:
    return client.post(
        "/login", data={"username": username, "password": password}, follow_redirects=False
    )


def test_accounts_mode_needs_a_secret_key(make_client: ClientFactory) -> None:
    from app.main import ConfigError

    with pytest.raises(ConfigError, match="RINGSIDE_SECRET_KEY"):
        make_client(auth_mode="accounts")


def test_everything_needs_signing_in(accounts: ClientFactory) -> None:
    client = accounts()
    page = client.get("/topics/alpha", follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"] == "/login?next=/topics/alpha"
    api = client.get("/api/review/queue")
    assert api.status_code == 401 and "Bearer" in api.headers["www-authenticate"]
    assert client.get("/healthz").status_code == 200
    assert client.get("/docs").status_code == 404 and client.get("/openapi.json").status_code == 404


def test_register_sign_in_and_sign_out(accounts: ClientFactory) -> None:
    client = accounts()
    register(client, "ada")
    assert client.get("/api/review/queue").status_code == 200
    first_cookie = client.cookies.get("ringside_session")
    token = csrf_of(client)
    client.post("/logout", data={"csrf_token": token}, follow_redirects=False)
    # Ended on the server: the old cookie no longer works even if replayed.
    replay = TestClient(client.app, cookies={"ringside_session": first_cookie or ""})
    assert replay.get("/api/review/queue").status_code == 401
    signed = sign_in(client, "ada")
    assert signed.status_code == 303  # type: ignore[attr-defined]
    assert client.cookies.get("ringside_session") not in (None, first_cookie)  # a new id


@pytest.mark.parametrize(
    ("password", "problem"),
    [("short", "at least 8"), ("password123", "too common"), ("adalovelace", "too common")],
)
def test_weak_passwords_are_refused(accounts: ClientFactory, password: str, problem: str) -> None:
    client = accounts()
    response = client.post("/register", data={"username": "adalovelace", "password": password})
    assert response.status_code == 422 and problem in response.text


def test_long_passwords_and_no_composition_rules(accounts: ClientFactory) -> None:
    client = accounts()
    register(client, "bob", "x" * 100 + " plain lowercase words")


def test_password_hashes_are_argon2id_above_owasp_minimums(accounts: ClientFactory) -> None:
    client = accounts()
    register(client, "ada")
    with client.app.state.database.read_session() as session:  # type: ignore[attr-defined]
        stored = session.scalars(select(User.password_hash).where(User.username == "ada")).one()
    memory, time_cost, lanes = map(int, re.findall(r"m=(\d+),t=(\d+),p=(\d+)", stored)[0])
    assert stored.startswith("$argon2id$")
    assert memory >= 19456 and time_cost >= 2 and lanes >= 1


def test_outdated_hash_is_upgraded_at_sign_in(accounts: ClientFactory) -> None:
    from pwdlib import PasswordHash
    from pwdlib.hashers.argon2 import Argon2Hasher

    client = accounts()
    register(client, "ada")
    weak = PasswordHash((Argon2Hasher(memory_cost=19456, time_cost=2, parallelism=1),)).hash(GOOD)
    database = client.app.state.database  # type: ignore[attr-defined]
    with database.write_session() as session:
        session.scalars(select(User).where(User.username == "ada")).one().password_hash = weak
    sign_in(client, "ada")
    with database.read_session() as session:
        now_stored = session.scalars(select(User.password_hash).where(User.username == "ada")).one()
    assert now_stored != weak and "m=65536" in now_stored


def test_unknown_user_and_wrong_password_look_the_same(accounts: ClientFactory) -> None:
    client = accounts()
    register(client, "ada")
    client.cookies.clear()
    wrong = sign_in(client, "ada", "not the password")
    unknown = sign_in(client, "nobody", "not the password")
    assert wrong.status_code == unknown.status_code == 401  # type: ignore[attr-defined]
    assert "Wrong username or password." in wrong.text  # type: ignore[attr-defined]
    assert wrong.text.replace("ada", "") == unknown.text.replace("nobody", "")  # type: ignore[attr-defined]


def test_failed_sign_ins_are_limited_per_account_in_the_database(
    accounts: ClientFactory, clock: FakeClock
) -> None:
    client = accounts()
    register(client, "ada")
    client.cookies.clear()
    for _ in range(5):
        assert sign_in(client, "ada", "wrong guess").status_code == 401  # type: ignore[attr-defined]
    blocked = sign_in(client, "ada")  # even the right password waits now
    assert blocked.status_code == 429  # type: ignore[attr-defined]
    assert int(blocked.headers["retry-after"]) > 0  # type: ignore[attr-defined]
    with client.app.state.database.read_session() as session:  # type: ignore[attr-defined]
        signing_in = select(LoginAttempt).where(LoginAttempt.kind == "sign-in")
        assert len(session.scalars(signing_in).all()) == 5
    clock.advance(minutes=16)
    assert sign_in(client, "ada").status_code == 303  # type: ignore[attr-defined]


def test_sessions_end_when_idle_or_too_old(accounts: ClientFactory, clock: FakeClock) -> None:
    client = accounts(session_idle_minutes=30, session_absolute_hours=2)
    register(client, "ada")
    clock.advance(minutes=20)
    assert client.get("/api/review/queue").status_code == 200  # activity renews idle time
    clock.advance(minutes=20)
    assert client.get("/api/review/queue").status_code == 200
    clock.advance(minutes=31)
    assert client.get("/api/review/queue").status_code == 401  # idle too long
    sign_in(client, "ada")
    for _ in range(5):
        clock.advance(minutes=25)
        client.get("/api/review/queue")
    assert client.get("/api/review/queue").status_code == 401  # past the absolute limit


def test_password_change_ends_other_sessions(accounts: ClientFactory) -> None:
    laptop = accounts()
    register(laptop, "ada")
    phone = TestClient(laptop.app)
    sign_in(phone, "ada")
    assert phone.get("/api/review/queue").status_code == 200
    token = csrf_of(laptop)
    changed = laptop.post(
        "/settings/password",
        data={"current_password": GOOD, "new_password": "an even longer passphrase",
              "csrf_token": token},
        follow_redirects=False,
    )  # fmt: skip
    assert changed.headers["location"] == "/settings?password_changed=1"
    assert laptop.get("/api/review/queue").status_code == 200
    assert phone.get("/api/review/queue").status_code == 401


def test_csrf_token_is_required_for_cookie_writes(accounts: ClientFactory) -> None:
    client = accounts()
    register(client, "ada")
    body = {"rating": 3, "idempotency_key": "k1"}
    missing = client.post("/api/review/alpha-busbw", json=body)
    assert missing.status_code == 403 and "security token" in missing.json()["detail"]
    forged = client.post("/api/review/alpha-busbw", json=body, headers={"X-CSRF-Token": "nope"})
    assert forged.status_code == 403
    token = csrf_of(client)
    ok = client.post("/api/review/alpha-busbw", json=body, headers={"X-CSRF-Token": token})
    assert ok.status_code == 200
    form = client.post(
        "/review/alpha-busbw",
        data={"rating": "3", "idempotency_key": "k2", "csrf_token": token},
        follow_redirects=False,
    )
    assert form.status_code == 303


def test_cross_site_requests_are_refused(accounts: ClientFactory) -> None:
    client = accounts()
    register(client, "ada")
    token = csrf_of(client)
    for headers in ({"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"}):
        response = client.post(
            "/api/review/alpha-busbw",
            json={"rating": 3, "idempotency_key": "x"},
            headers={"X-CSRF-Token": token, **headers},
        )
        assert response.status_code == 403, headers
    same = client.post(
        "/api/review/alpha-busbw",
        json={"rating": 3, "idempotency_key": "y"},
        headers={"X-CSRF-Token": token, "Origin": "http://testserver"},
    )
    assert same.status_code == 200


def test_api_tokens_need_no_csrf_and_can_be_revoked(accounts: ClientFactory) -> None:
    client = accounts()
    register(client, "ada")
    created = client.post(
        "/api/auth/tokens", json={"name": "script"}, headers={"X-CSRF-Token": csrf_of(client)}
    )
    assert created.status_code == 201
    secret = created.json()["token"]
    script = TestClient(client.app)  # no cookies: a script
    bearer = {"Authorization": f"Bearer {secret}"}
    graded = script.post(
        "/api/review/alpha-busbw", json={"rating": 3, "idempotency_key": "s"}, headers=bearer
    )
    assert graded.status_code == 200
    assert script.get("/api/auth/tokens", headers=bearer).json()[0]["name"] == "script"
    with client.app.state.database.read_session() as session:  # type: ignore[attr-defined]
        from app.models import ApiToken

        assert secret not in str(session.scalars(select(ApiToken.token_hash)).all())
    token_id = created.json()["id"]
    revoked = client.delete(
        f"/api/auth/tokens/{token_id}", headers={"X-CSRF-Token": csrf_of(client)}
    )
    assert revoked.status_code == 204
    assert script.get("/api/review/queue", headers=bearer).status_code == 401


def test_users_cannot_see_each_others_data(accounts: ClientFactory) -> None:
    ada = accounts()
    register(ada, "ada")
    token = csrf_of(ada)
    headers = {"X-CSRF-Token": token}
    ada.post("/api/review/alpha-busbw", json={"rating": 3, "idempotency_key": "a"}, headers=headers)
    ada.post("/api/cards/alpha-busbw/attempts", json={"answer": "175 GB/s"}, headers=headers)
    mock = ada.post(
        "/api/mock", json={"preset": "custom", "questions": 1, "minutes": 5}, headers=headers
    ).json()
    grace = TestClient(ada.app)
    register(grace, "grace")
    grace_headers = {"X-CSRF-Token": csrf_of(grace)}
    assert grace.get("/api/stats").json()["total_reviews"] == 0
    assert grace.get("/api/cards/alpha-busbw/attempts").json() == []
    assert grace.get("/api/review/queue").json()["new_count"] == 5
    for method, path in (
        ("get", f"/api/mock/{mock['id']}"),
        ("get", f"/mock/{mock['id']}"),
        ("get", f"/api/mock/{mock['id']}/report"),
        ("post", f"/api/mock/{mock['id']}/start"),
        ("post", f"/api/mock/{mock['id']}/abandon"),
    ):
        response = getattr(grace, method)(path, headers=grace_headers)
        assert response.status_code == 404, path
    assert grace.get("/api/mock").json() == []
    # Undo only ever touches one's own grades.
    assert grace.post("/api/review/undo", headers=grace_headers).status_code == 404
    assert ada.get("/api/stats").json()["total_reviews"] == 1
    # An export is of one's own data only.
    theirs = grace.get("/api/export").json()
    assert theirs["review_logs"] == [] and theirs["mock_sessions"] == []
    assert theirs["attempts"] == [] and theirs["user"]["username"] == "grace"
    mine = ada.get("/api/export").json()
    assert len(mine["review_logs"]) == 1 and len(mine["mock_sessions"]) == 1


def test_registration_by_invite_and_closed(accounts: ClientFactory) -> None:
    closed = accounts(registration="closed")
    refused = closed.post("/register", data={"username": "ada", "password": GOOD})
    assert refused.status_code == 422 and "closed" in refused.text
    invited = accounts(registration="invite")
    from app.auth import accounts as service

    with invited.app.state.database.write_session() as session:  # type: ignore[attr-defined]
        code = service.create_invite(session, START, invited.app.state.auth_policy)  # type: ignore[attr-defined]
    bad = invited.post("/register", data={"username": "ada", "password": GOOD, "invite": "x"})
    assert bad.status_code == 422
    good = invited.post(
        "/register", data={"username": "ada", "password": GOOD, "invite": code},
        follow_redirects=False,
    )  # fmt: skip
    assert good.status_code == 303
    reuse = TestClient(invited.app).post(
        "/register", data={"username": "bob", "password": GOOD, "invite": code}
    )
    assert reuse.status_code == 422


def test_session_ids_are_long_random_and_stored_hashed(accounts: ClientFactory) -> None:
    client = accounts()
    register(client, "ada")
    cookie = client.cookies.get("ringside_session") or ""
    assert len(cookie) >= 43  # 256 bits in URL-safe base64
    with client.app.state.database.read_session() as session:  # type: ignore[attr-defined]
        hashes = session.scalars(select(AuthSession.token_hash)).all()
    assert cookie not in hashes and all(len(h) == 64 for h in hashes)


def test_security_headers_on_pages_errors_and_api(accounts: ClientFactory) -> None:
    client = accounts()
    for path in ("/login", "/nowhere", "/api/review/queue", "/healthz"):
        headers = client.get(path).headers
        csp = headers["content-security-policy"]
        assert "default-src 'self'" in csp and "object-src 'none'" in csp
        assert "base-uri 'none'" in csp and "frame-ancestors 'none'" in csp
        assert "script-src" not in csp or "unsafe-inline" not in csp
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "same-origin"
        assert headers["cache-control"] == "no-store"
        assert "strict-transport-security" not in headers  # plain HTTP here
    assert "no-store" not in client.get("/static/css/app.css").headers.get("cache-control", "")


def test_session_cookie_flags(accounts: ClientFactory) -> None:
    client = accounts()
    response = client.post(
        "/register", data={"username": "ada", "password": GOOD}, follow_redirects=False
    )
    cookie = response.headers["set-cookie"]
    assert cookie.startswith("ringside_session=")
    for flag in ("HttpOnly", "SameSite=Lax", "Path=/"):
        assert flag in cookie
    secure = TestClient(client.app, base_url="https://testserver")
    over_https = secure.post(
        "/register", data={"username": "bob", "password": GOOD}, follow_redirects=False
    )
    header = over_https.headers["set-cookie"]
    assert header.startswith("__Host-ringside_session=") and "Secure" in header
    assert "strict-transport-security" in over_https.headers


def test_oversized_bodies_get_413(accounts: ClientFactory) -> None:
    client = accounts(max_body_bytes=2048)
    response = client.post("/login", content=b"x" * 5000, headers={"Content-Type": "text/plain"})
    assert response.status_code == 413


def test_passwords_module_refuses_the_username() -> None:
    with pytest.raises(passwords.PasswordRejected):
        passwords.check_new("Ada.Lovelace", "ada.lovelace")


def test_a_refused_password_is_a_field_error() -> None:
    with pytest.raises(FieldError) as refused:
        passwords.check_new("short", "ada")
    assert isinstance(refused.value, passwords.PasswordRejected)
    assert (refused.value.field, refused.value.message) == ("password", "use at least 8 characters")
    assert str(refused.value) == "password: use at least 8 characters"  # as the CLI prints it


def test_accounts_routes_are_not_found_in_local_mode(make_client: ClientFactory) -> None:
    browser = make_client()
    page = browser.get("/settings", headers={"Accept": "text/html"})  # sets the cookie
    token = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
    assert token
    csrf = token.group(1)
    for path in ("/login", "/register"):
        assert browser.get(path).status_code == 404, path
    form = {"csrf_token": csrf, "username": "ada", "password": GOOD}
    for path in ("/login", "/register"):
        assert browser.post(path, data=form).status_code == 404, path
    change = {"csrf_token": csrf, "current_password": GOOD, "new_password": GOOD + "!"}
    response = browser.post(
        "/settings/password", data=change, headers={"Accept": "application/json"}
    )
    assert response.status_code == 404
    assert "nobody to sign in" in response.json()["detail"]


def test_local_mode_browser_gets_a_session_and_scripts_need_none(
    make_client: ClientFactory,
) -> None:
    browser = make_client()
    page = browser.get("/review", headers={"Accept": "text/html"})
    assert "ringside_session=" in page.headers["set-cookie"]
    token = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
    assert token
    body = {"rating": 3, "idempotency_key": "b1"}
    assert browser.post("/api/review/alpha-busbw", json=body).status_code == 403
    ok = browser.post(
        "/api/review/alpha-busbw", json=body, headers={"X-CSRF-Token": token.group(1)}
    )
    assert ok.status_code == 200
    script = loopback_client(browser.app)  # curl-like: no cookie, no Origin
    assert (
        script.post(
            "/api/review/beta-derive", json={"rating": 3, "idempotency_key": "s"}
        ).status_code
        == 200
    )
    evil = script.post(
        "/api/review/beta-derive",
        json={"rating": 3, "idempotency_key": "e"},
        headers={"Origin": "https://evil.example"},
    )
    assert evil.status_code == 403
    assert browser.get("/login").status_code == 404  # nobody signs in in local mode


@pytest.mark.slow
def test_local_mode_refuses_to_listen_beyond_this_machine(tmp_path: object) -> None:
    import os
    import subprocess
    import sys

    from tests.conftest import FIXTURE_CONTENT

    env = {**os.environ, "RINGSIDE_CONTENT_DIR": str(FIXTURE_CONTENT),
           "RINGSIDE_DATABASE_URL": f"sqlite:///{tmp_path}/l.db"}  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-m", "app.cli", "serve", "--host", "0.0.0.0", "--port", "8791"],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert result.returncode == 1
    assert "RINGSIDE_AUTH_MODE=accounts" in result.stderr and "Traceback" not in result.stderr


def test_a_session_is_marked_seen_at_most_once_a_minute(
    accounts: ClientFactory, clock: FakeClock
) -> None:
    """Requests read the session without writing; activity is recorded once a minute."""
    client = accounts()
    register(client, "ada")
    database = client.app.state.database  # type: ignore[attr-defined]

    def last_seen() -> datetime:
        with database.read_session() as session:
            seen = session.scalars(select(AuthSession.last_seen_at)).one()
        return seen.replace(tzinfo=UTC) if seen.tzinfo is None else seen

    signed_in = last_seen()
    clock.advance(seconds=30)
    assert client.get("/topics/alpha").status_code == 200
    assert client.get("/api/review/queue").status_code == 200
    assert last_seen() == signed_in
    clock.advance(seconds=31)
    assert client.get("/topics/alpha").status_code == 200
    assert last_seen() == clock.now


def test_lockout_spares_a_browser_that_signed_in_before(accounts: ClientFactory) -> None:
    laptop = accounts()
    register(laptop, "ada")
    assert "ringside_device=" in str(laptop.cookies)
    laptop.post("/logout", data={"csrf_token": csrf_of(laptop)})
    attacker = TestClient(laptop.app)
    for _ in range(5):
        assert sign_in(attacker, "ada", "wrong guess here").status_code == 401  # type: ignore[attr-defined]
    assert sign_in(attacker, "ada").status_code == 429  # type: ignore[attr-defined]
    assert sign_in(TestClient(laptop.app), "ada").status_code == 429  # type: ignore[attr-defined]
    # The owner's laptop signed in before: its own attempts are what count.
    assert sign_in(laptop, "ada").status_code == 303  # type: ignore[attr-defined]
    # A device token forged, or another account's, buys nothing.
    forger = TestClient(laptop.app)
    forger.cookies.set("ringside_device", "2.abc.0123")
    assert sign_in(forger, "ada").status_code == 429  # type: ignore[attr-defined]
    # And the device is limited on its own: five wrong passwords from it, then 429 there too.
    laptop.post("/logout", data={"csrf_token": csrf_of(laptop)})
    for _ in range(5):
        assert sign_in(laptop, "ada", "my own typo here").status_code == 401  # type: ignore[attr-defined]
    assert sign_in(laptop, "ada").status_code == 429  # type: ignore[attr-defined]

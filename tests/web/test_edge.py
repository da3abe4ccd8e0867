"""What every request meets first: local mode's guard (loopback clients and Host names only),
and the security headers on every answer, a 500 and a 413 included."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.web.security import loopback_host
from tests.conftest import FIXTURE_CONTENT, LOOPBACK_URL, ClientFactory, loopback_client

SECRET = "k3y-for-tests-" + "abcdefghij" * 5
HEADERS = ("content-security-policy", "x-content-type-options", "x-frame-options",
           "referrer-policy", "cache-control")  # fmt: skip
REBIND = {"Host": "rebind.evil.example:8000", "Origin": "http://rebind.evil.example:8000"}


def review_rows(client: TestClient) -> int:
    return len(client.get("/api/export").json()["review_logs"])


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("127.0.0.1:8000", True),
        ("localhost:8000", True),
        ("[::1]:8000", True),
        ("LOCALHOST", True),
        ("127.0.0.2:8000", True),  # `ringside serve --host 127.0.0.2` is loopback too
        ("127.0.0.1:9999", False),  # another port: not this server
        ("rebind.evil.example:8000", False),
        ("localhost.evil.example:8000", False),
        ("127.0.0.1.nip.io:8000", False),
        ("evil.example@127.0.0.1:8000", False),
        ("", False),
    ],
)
def test_only_loopback_names_are_this_machine(host: str, allowed: bool) -> None:
    assert loopback_host(host, 8000) is allowed


def test_local_mode_refuses_a_rebound_host_before_anything_runs(client: TestClient) -> None:
    before = review_rows(client)
    export = client.get("/api/export", headers=REBIND)
    assert export.status_code == 421 and "review_logs" not in export.text
    assert all(name in export.headers for name in HEADERS)
    grade = client.post(
        "/api/review/alpha-busbw",
        json={"rating": 1, "idempotency_key": "rb1"},
        headers={**REBIND, "Sec-Fetch-Site": "same-origin"},
    )
    assert grade.status_code == 421
    page = client.get("/", headers={"Host": REBIND["Host"], "Accept": "text/html"})
    assert page.status_code == 421 and "set-cookie" not in page.headers
    assert review_rows(client) == before
    for host in ("localhost:8000", "[::1]:8000", "127.0.0.1:8000"):
        assert client.get("/api/export", headers={"Host": host}).status_code == 200, host


def test_local_mode_refuses_clients_that_are_not_on_this_machine(client: TestClient) -> None:
    # As `uvicorn --factory app.main:create_app --host 0.0.0.0` would hand it a LAN client.
    remote = TestClient(client.app, base_url=LOOPBACK_URL, client=("192.0.2.2", 40000))
    answer = remote.post("/api/review/alpha-busbw", json={"rating": 3, "idempotency_key": "r"})
    assert answer.status_code == 403 and "local mode" in answer.json()["detail"]
    assert remote.get("/", headers={"Accept": "text/html"}).status_code == 403
    ipv6 = TestClient(client.app, base_url=LOOPBACK_URL, client=("::1", 40000))
    assert ipv6.get("/api/export").status_code == 200


def test_accounts_mode_serves_any_host_and_client(make_client: ClientFactory) -> None:
    server = make_client(auth_mode="accounts", secret_key=SECRET)
    lan = TestClient(server.app, base_url="http://ringside.lan", client=("192.0.2.2", 40000))
    assert lan.get("/login").status_code == 200


def test_security_headers_on_500_and_413(tmp_path: Path) -> None:
    app = create_app(
        Settings(database_url=f"sqlite:///{tmp_path}/e.db", content_dir=FIXTURE_CONTENT)
    )

    @app.get("/api/broken")
    def broken() -> None:
        raise RuntimeError("broken")

    @app.get("/broken-page")
    def broken_page() -> None:
        raise RuntimeError("broken")

    with loopback_client(app, raise_server_exceptions=False) as client:
        for path in ("/api/broken", "/broken-page"):
            answer = client.get(path, headers={"Accept": "text/html"})
            assert answer.status_code == 500
            assert all(name in answer.headers for name in HEADERS), answer.headers
            assert "x-request-id" in answer.headers
        big = client.post(
            "/api/import",
            content=b"x" * (app.state.settings.max_body_bytes + 1),
            headers={"content-type": "application/json"},
        )
        assert big.status_code == 413
        assert all(name in big.headers for name in HEADERS), big.headers


def test_a_failing_error_page_still_answers_with_headers(tmp_path: Path) -> None:
    app = create_app(
        Settings(database_url=f"sqlite:///{tmp_path}/e.db", content_dir=FIXTURE_CONTENT)
    )

    @app.get("/broken-page")
    def broken_page() -> None:
        raise RuntimeError("broken")

    def failing_template(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("the error page itself fails")

    app.state.templates.TemplateResponse = failing_template
    with loopback_client(app, raise_server_exceptions=False) as client:
        answer = client.get("/broken-page", headers={"Accept": "text/html"})
    assert answer.status_code == 500 and answer.text == "Internal server error."
    assert all(name in answer.headers for name in HEADERS), answer.headers


@pytest.mark.parametrize("mode", ["local", "accounts"])
def test_an_unknown_bearer_token_on_a_page_is_a_401_not_a_500(
    make_client: ClientFactory, mode: str
) -> None:
    extra = {"secret_key": SECRET} if mode == "accounts" else {}
    client = make_client(auth_mode=mode, **extra)
    headers = {"Authorization": "Bearer rs_garbage", "Accept": "text/html"}
    for path in ("/", "/settings", "/review"):
        answer = client.get(path, headers=headers)
        assert answer.status_code == 401, path
        assert "Unknown or revoked API token" in answer.text
        assert all(name in answer.headers for name in HEADERS)
    login = client.get("/login", headers=headers)  # a page for anyone: the token is ignored
    assert login.status_code == (200 if mode == "accounts" else 404)
    assert '<meta name="csrf-token" content="">' in login.text

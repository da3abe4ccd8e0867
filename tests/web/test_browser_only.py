"""A bearer token is for the JSON API: every form route, and token management, refuses it.

The routes are read from the app itself, so a state-changing route added later is covered
without a new test: a form route (outside /api/) must answer a token with 403, and an API route
must not, unless it declares `BrowserOnly`.
"""

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from app.web.identity import browser_only
from tests.conftest import ClientFactory
from tests.web.routes import api_routes
from tests.web.test_accounts import accounts, clock, csrf_of, register  # noqa: F401

WRITES = {"POST", "PUT", "PATCH", "DELETE"}


def declares_browser_only(route: APIRoute) -> bool:
    return any(d.call is browser_only for d in route.dependant.dependencies)


def concrete(path: str) -> str:
    """A path with every parameter filled: numbers where numbers go, a word elsewhere."""
    for name in ("mock_id", "token_id", "position", "take", "seq", "id"):
        path = path.replace("{" + name + "}", "1")
    for name in ("card_id", "part", "slug"):
        path = path.replace("{" + name + "}", "main" if name == "part" else "alpha-busbw")
    path = path.replace("{action}", "start")  # the mock page's forms
    return path.replace("{token}", "not-a-link-token")  # an interview link (app.web.pair)


@pytest.fixture
def token_holder(accounts: ClientFactory) -> tuple[TestClient, dict[str, str]]:  # noqa: F811
    browser = accounts()
    register(browser, "ada")
    made = browser.post(
        "/api/auth/tokens", json={"name": "script"}, headers={"X-CSRF-Token": csrf_of(browser)}
    )
    assert made.status_code == 201
    return TestClient(browser.app), {"Authorization": f"Bearer {made.json()['token']}"}


def test_every_form_route_refuses_a_token(
    token_holder: tuple[TestClient, dict[str, str]],
) -> None:
    script, bearer = token_holder
    writes = [
        (method, route)
        for route in api_routes(script.app.routes)  # type: ignore[attr-defined]
        for method in sorted(route.methods & WRITES)
    ]
    forms = [(m, r) for m, r in writes if not r.path.startswith("/api/")]
    assert {"/settings", "/settings/tokens", "/settings/password", "/settings/import"} <= {
        r.path for _, r in forms
    }  # the walk really found the settings forms
    assert len(writes) > 30
    for method, route in writes:
        path = concrete(route.path)
        assert "{" not in path, path  # every parameter filled: the route itself is reached
        response = script.request(method, path, headers=bearer, data={"name": "child"})
        if not route.path.startswith("/api/") or declares_browser_only(route):
            assert response.status_code == 403, (method, route.path, response.text)
            assert "signed-in browser" in response.text
        else:
            assert response.status_code != 403, (method, route.path, response.text)
    # Nothing was minted: the one token is still the only one, and it still works.
    tokens = script.get("/api/auth/tokens", headers=bearer)
    assert tokens.status_code == 200 and [t["name"] for t in tokens.json()] == ["script"]


def test_a_token_cannot_mint_a_successor_and_revoking_it_ends_it(
    accounts: ClientFactory,  # noqa: F811
) -> None:
    browser = accounts()
    register(browser, "ada")
    made = browser.post(
        "/api/auth/tokens", json={"name": "script"}, headers={"X-CSRF-Token": csrf_of(browser)}
    ).json()
    script = TestClient(browser.app)
    bearer = {"Authorization": f"Bearer {made['token']}"}
    minted = script.post("/settings/tokens", data={"name": "child"}, headers=bearer)
    assert minted.status_code == 403 and "rs_" not in minted.text
    assert script.post("/api/auth/tokens", json={"name": "c"}, headers=bearer).status_code == 403
    revoked = script.post(f"/settings/tokens/{made['id']}/revoke", headers=bearer)
    assert revoked.status_code == 403
    changed = script.post(
        "/settings/password",
        data={"current_password": "x" * 12, "new_password": "y" * 12},
        headers=bearer,
    )
    assert changed.status_code == 403
    gone = browser.delete(
        f"/api/auth/tokens/{made['id']}", headers={"X-CSRF-Token": csrf_of(browser)}
    )
    assert gone.status_code == 204
    assert script.get("/api/stats", headers=bearer).status_code == 401

"""/docs is the app's own page (vendored Swagger UI, no CDN, no inline script), and the
footer links to it only where it is served."""

import re

from tests.conftest import ClientFactory

KEY = "k3y-for-tests-" + "abcdefghij" * 5
FOOTER_LINK = '<a href="/docs">API</a>'


def test_local_mode_serves_docs_from_its_own_files(make_client: ClientFactory) -> None:
    client = make_client()
    page = client.get("/docs", headers={"Accept": "text/html"})
    assert page.status_code == 200
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page.text, re.S)
    assert scripts and all(body.strip() == "" for _attrs, body in scripts)  # no inline script
    sources = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert all(s.startswith("/") and not s.startswith("//") for s in sources), sources
    for source in sources:
        assert client.get(source).status_code == 200, source
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert client.get("/openapi.json").json()["info"]["title"] == "Ringside"
    assert FOOTER_LINK in client.get("/", headers={"Accept": "text/html"}).text


def test_no_docs_link_where_no_docs_are_served(make_client: ClientFactory) -> None:
    for client in (
        make_client(api_docs=False),
        make_client(auth_mode="accounts", secret_key=KEY),
    ):
        if client.app.state.settings.auth_mode == "accounts":  # type: ignore[attr-defined]
            client.post("/register", data={"username": "ada", "password": "a long passphrase"})
        assert client.get("/docs").status_code == 404
        assert client.get("/openapi.json").status_code == 404
        page = client.get("/settings", headers={"Accept": "text/html"})
        assert page.status_code == 200 and FOOTER_LINK not in page.text


def test_docs_turned_on_in_accounts_mode_are_for_members(make_client: ClientFactory) -> None:
    client = make_client(auth_mode="accounts", secret_key=KEY, api_docs=True)
    assert client.get("/docs", follow_redirects=False).status_code == 303
    assert client.get("/openapi.json", follow_redirects=False).status_code in (303, 401)
    client.post("/register", data={"username": "ada", "password": "a long passphrase"})
    assert client.get("/docs").status_code == 200
    assert client.get("/openapi.json").json()["info"]["title"] == "Ringside"
    assert FOOTER_LINK in client.get("/settings").text

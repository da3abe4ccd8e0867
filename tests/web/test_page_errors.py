"""Error text on pages comes from the app, never from the URL: a link cannot put words on a
page styled as the app's own error."""

import re

from fastapi.testclient import TestClient

from tests.conftest import ClientFactory

KEY = "k3y-for-tests-" + "abcdefghij" * 5
GOOD = "correct horse battery staple"
PLANTED = "Security alert: call +1-555-0100 with your password"


def csrf_of(client: TestClient, path: str = "/settings") -> str:
    page = client.get(path, headers={"Accept": "text/html"}).text
    match = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert match
    return match.group(1)


def test_settings_ignore_error_text_in_the_url(make_client: ClientFactory) -> None:
    for client in (make_client(), make_client(auth_mode="accounts", secret_key=KEY)):
        if client.app.state.settings.auth_mode == "accounts":  # type: ignore[attr-defined]
            client.post("/register", data={"username": "ada", "password": GOOD})
        for name in ("password_error", "token_error"):
            page = client.get("/settings", params={name: PLANTED})
            assert page.status_code == 200 and "555-0100" not in page.text


def test_failed_password_and_token_forms_show_their_own_message(
    make_client: ClientFactory,
) -> None:
    client = make_client(auth_mode="accounts", secret_key=KEY)
    client.post("/register", data={"username": "ada", "password": GOOD})
    token = csrf_of(client)
    wrong = client.post(
        "/settings/password",
        data={"current_password": "not it at all", "new_password": "another good passphrase",
              "csrf_token": token},
        follow_redirects=False,
    )  # fmt: skip
    assert wrong.status_code == 422 and "location" not in wrong.headers
    assert "That is not your current password." in wrong.text
    short = client.post(
        "/settings/password",
        data={"current_password": GOOD, "new_password": "short", "csrf_token": token},
        follow_redirects=False,
    )
    assert short.status_code == 422 and "Use at least 8 characters." in short.text
    unnamed = client.post(
        "/settings/tokens", data={"name": "", "csrf_token": token}, follow_redirects=False
    )
    assert unnamed.status_code == 422 and "location" not in unnamed.headers
    assert "Give the token a name of 1 to 64 characters." in unnamed.text


def test_the_mock_page_shows_only_its_own_messages(client: TestClient) -> None:
    mock = client.post("/api/mock", json={"preset": "custom", "questions": 1, "minutes": 5})
    mock_id = mock.json()["id"]
    assert client.post(f"/api/mock/{mock_id}/start").status_code == 200
    planted = client.get(f"/mock/{mock_id}", params={"error": PLANTED})
    assert planted.status_code == 200 and "555-0100" not in planted.text
    assert 'role="alert"' not in planted.text
    token = csrf_of(client, f"/mock/{mock_id}")
    main = {"position": "1", "part": "main", "text": "main", "csrf_token": token}
    client.post(f"/mock/{mock_id}/submit", data=main)
    state = client.get(f"/api/mock/{mock_id}").json()
    if state["step"] == "followup":
        more = {"position": "1", "part": "followup", "text": "more", "csrf_token": token}
        client.post(f"/mock/{mock_id}/submit", data=more)
    no_rating = client.post(
        f"/mock/{mock_id}/grade", data={"csrf_token": token}, follow_redirects=False
    )
    assert no_rating.headers["location"] == f"/mock/{mock_id}?error=rating"
    assert "Choose a rating." in client.get(no_rating.headers["location"]).text
    bad_point = client.post(
        f"/mock/{mock_id}/grade",
        data={"point": ["99"], "rating": "3", "csrf_token": token},
        follow_redirects=False,
    )
    assert bad_point.headers["location"] == f"/mock/{mock_id}?error=invalid"
    early = client.post(
        f"/mock/{mock_id}/start", data={"csrf_token": token}, follow_redirects=False
    )
    assert early.headers["location"] == f"/mock/{mock_id}?error=not-now"
    assert "cannot be done at this point" in client.get(early.headers["location"]).text

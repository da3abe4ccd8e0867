"""Nothing a user can send reaches a 500: each input below gets a 4xx naming its field.

Runs on SQLite, and on PostgreSQL when RINGSIDE_TEST_DATABASE_URL is set (PostgreSQL's text
type refuses U+0000; SQLite's driver cannot encode a lone surrogate).
"""

import json
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from app.models import MockQuestion
from tests.conftest import ClientFactory

NUL, SURROGATE = "pg\x00user", "\udc00x"
JSON = {"content-type": "application/json"}
SECRET = "k3y-for-tests-" + "abcdefghij" * 5


def started_mock(client: TestClient) -> int:
    mock = client.post("/api/mock", json={"preset": "custom", "questions": 1, "minutes": 5})
    assert mock.status_code == 201, mock.text
    mock_id: int = mock.json()["id"]
    assert client.post(f"/api/mock/{mock_id}/start").status_code == 200
    return mock_id


def field_of(answer: Any) -> str:
    return str(answer.json()["detail"][0]["loc"][-1])


@pytest.mark.parametrize("bad", [NUL, SURROGATE], ids=["nul", "surrogate"])
def test_unstorable_characters_in_json_text_fields(client: TestClient, bad: str) -> None:
    mock_id = started_mock(client)
    cases: list[tuple[str, str, dict[str, Any], str]] = [
        ("PUT", f"/api/mock/{mock_id}/answer", {"part": "main", "text": bad}, "text"),
        ("POST", f"/api/mock/{mock_id}/submit", {"position": 1, "part": "main", "text": bad},
         "text"),
        ("POST", "/api/mock", {"preset": "custom", "topics": [bad]}, 0),  # type: ignore[list-item]
        ("POST", "/api/cards/alpha-drill-bytes/attempts", {"answer": f"1 GB{bad}", "seed": 1},
         "answer"),
        ("POST", "/api/review/alpha-busbw", {"rating": 3, "idempotency_key": bad},
         "idempotency_key"),
        ("PUT", "/api/settings/review", {"timezone": bad}, "timezone"),
    ]  # fmt: skip
    for method, path, body, field in cases:
        # Escaped as JSON sends it ("\\udc00"): a lone surrogate is not UTF-8.
        answer = client.request(method, path, content=json.dumps(body), headers=JSON)
        assert answer.status_code == 422, (path, answer.status_code, answer.text)
        assert answer.json()["detail"][0]["loc"][-1] == field, (path, answer.text)
    # Nothing was stored: the answer is still empty and no grade was recorded.
    state = client.get(f"/api/mock/{mock_id}").json()
    assert state["questions"][0]["answer"] == "" and state["step"] == "answer"
    assert client.get("/api/export").json()["review_logs"] == []


def page_token(client: TestClient, path: str = "/settings") -> str:
    page = client.get(path, headers={"Accept": "text/html"})
    match = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
    assert match, page.text[:200]
    return match.group(1)


SETTINGS_FORM = {
    "desired_retention": "0.9",
    "new_per_day": "10",
    "max_reviews_per_day": "200",
    "day_boundary_hour": "4",
    "timezone": "UTC",
}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("new_per_day", "inf", "finite"),
        ("new_per_day", "-inf", "finite"),
        ("max_reviews_per_day", "1e309", "finite"),
        ("day_boundary_hour", "nan", "finite"),
        ("desired_retention", "nan", "finite"),
        ("timezone", "America", "unknown time zone"),
        ("timezone", "Etc", "unknown time zone"),
        ("timezone", "Ä" * 150, "names have at most 64 characters"),
        ("timezone", "Ä" * 300, "at most 200 characters"),
        ("timezone", "../../etc/passwd", "unknown time zone"),
        ("timezone", "Europe/Paris\x00", "NUL"),
        ("new_per_day", "1\x00", "NUL"),
    ],
)
def test_the_settings_form_refuses_what_it_cannot_use(
    client: TestClient, field: str, value: str, message: str
) -> None:
    token = page_token(client)
    form = {**SETTINGS_FORM, field: value, "csrf_token": token}
    answer = client.post("/settings", data=form, headers={"Accept": "text/html"})
    assert answer.status_code == 422, answer.text[:300]
    assert message.lower() in answer.text.lower()
    assert f'id="{field}-error"' in answer.text or f"body.{field}:" in answer.text
    assert client.get("/api/settings/review").json()["timezone"] == "UTC"


@pytest.mark.parametrize("zone", ["America", "Etc", "x" * 64, "/etc/localtime"])
def test_the_settings_api_refuses_folders_and_paths_as_time_zones(
    client: TestClient, zone: str
) -> None:
    answer = client.put("/api/settings/review", json={"timezone": zone})
    assert answer.status_code == 422 and field_of(answer) == "timezone", answer.text
    assert client.put("/api/settings/review", json={"timezone": "America/Chicago"}).is_success


def test_the_settings_api_answers_a_refused_value_as_pydantic_would(client: TestClient) -> None:
    answer = client.put("/api/settings/review", json={"timezone": "Mars/Olympus"})
    assert answer.status_code == 422
    assert answer.json() == {
        "detail": [
            {
                "loc": ["body", "timezone"],
                "msg": "unknown time zone 'Mars/Olympus'",
                "type": "value_error",
            }
        ]
    }


def test_forms_refuse_a_nul_naming_the_field(client: TestClient) -> None:
    mock_id = started_mock(client)  # as a script, before the browser's session begins
    token = page_token(client, "/cards/alpha-drill-bytes")
    drill = client.post(
        "/cards/alpha-drill-bytes/attempts",
        data={"answer": "1\x00 GB", "seed": "1", "csrf_token": token},
        headers={"Accept": "text/html"},
    )
    assert drill.status_code == 422 and "answer" in drill.text and "NUL" in drill.text
    submit = client.post(
        f"/mock/{mock_id}/submit",
        data={"position": "1", "part": "main", "text": "main\x00", "csrf_token": token},
        headers={"Accept": "text/html"},
        follow_redirects=False,
    )
    assert submit.status_code == 422 and "body.text:" in submit.text
    assert client.get(f"/api/mock/{mock_id}").json()["step"] == "answer"


def test_accounts_forms_and_tokens_refuse_a_nul(make_client: ClientFactory) -> None:
    client = make_client(auth_mode="accounts", secret_key=SECRET)
    login = client.post(
        "/login",
        data={"username": NUL, "password": "whatever123"},
        headers={"Accept": "text/html"},
    )
    assert login.status_code == 422 and "username" in login.text
    register = client.post(
        "/register",
        data={"username": "ada", "password": "a long passphrase\x00"},
        headers={"Accept": "text/html"},
    )
    assert register.status_code == 422 and "password" in register.text
    good = client.post(
        "/register", data={"username": "ada", "password": "a long enough passphrase"}
    )
    assert good.status_code in (200, 303), good.text[:300]
    token = page_token(client)
    for name in (NUL, SURROGATE):
        made = client.post(
            "/api/auth/tokens",
            content=json.dumps({"name": name}),
            headers={**JSON, "X-CSRF-Token": token},
        )
        assert made.status_code == 422 and field_of(made) == "name", made.text
    assert client.get("/api/auth/tokens").json() == []


def test_grading_a_question_whose_card_left_the_content_is_a_409(client: TestClient) -> None:
    mock_id = started_mock(client)
    main = {"position": 1, "part": "main", "text": "main"}
    assert client.post(f"/api/mock/{mock_id}/submit", json=main).status_code == 200
    state = client.get(f"/api/mock/{mock_id}").json()
    if state["step"] == "followup":
        more = {"position": 1, "part": "followup", "text": "more"}
        client.post(f"/api/mock/{mock_id}/submit", json=more)
    # As an import from another version, or a card removed from the content, leaves it.
    database = client.app.state.database  # type: ignore[attr-defined]
    with database.write_session() as session:
        session.execute(
            update(MockQuestion)
            .where(MockQuestion.session_id == mock_id)
            .values(card_id="removed-card")
        )
    graded = client.post(f"/api/mock/{mock_id}/grade", json={"points": [], "rating": 3})
    assert graded.status_code == 409 and "no longer in the content" in graded.json()["detail"]
    assert client.post(f"/api/mock/{mock_id}/abandon").status_code == 200

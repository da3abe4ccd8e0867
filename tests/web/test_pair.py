"""Interview a friend: the interviewer's link, what it shows, what it may mark, and that it
opens nothing else (issue 28)."""

import re
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.auth.tokens import digest
from app.models import MockPairing, MockQuestion, ReviewLog
from tests.conftest import ClientFactory, FakeClock
from tests.web.others import other_users_mock
from tests.web.routes import api_routes
from tests.web.test_accounts import KEY, accounts, csrf_of, register  # noqa: F401
from tests.web.test_mock import START, client, clock, new_mock  # noqa: F401

LOCAL_KEY = b"ringside-local-mode"  # app.main.policy_of: the key local mode hashes with


def invite(client: TestClient, mock_id: int, **headers: str) -> str:  # noqa: F811
    made = client.post(f"/api/mock/{mock_id}/pair", headers=headers)
    assert made.status_code == 201, made.text
    url = made.json()["invite_url"]
    assert re.fullmatch(r"/pair/[A-Za-z0-9_-]{43}", url), url  # token_urlsafe(32)
    return str(url.removeprefix("/pair/"))


def gone(client: TestClient, token: str) -> None:  # noqa: F811
    response = client.get(f"/api/pair/{token}")
    assert response.status_code == 404, response.text
    assert "Ask the candidate for a new link" in response.json()["detail"]


def test_a_link_shows_the_interviewer_the_question_answer_rubric_and_notes(
    client: TestClient,  # noqa: F811
    clock: FakeClock,  # noqa: F811
) -> None:
    mock = new_mock(client, questions=2, minutes=10)
    made = client.post(f"/api/mock/{mock['id']}/pair")
    assert made.status_code == 201
    assert made.json()["expires_at"] == (START + timedelta(hours=24)).isoformat()
    token = made.json()["invite_url"].removeprefix("/pair/")
    waiting = client.get(f"/api/pair/{token}").json()
    assert waiting["step"] == "start" and waiting["remaining_seconds"] == 0
    client.post(f"/api/mock/{mock['id']}/start", json={"position": 1})
    client.put(f"/api/mock/{mock['id']}/answer", json={"part": "main", "text": "my notes"})
    clock.advance(minutes=3)
    view = client.get(f"/api/pair/{token}").json()
    assert view["step"] == "answer" and view["remaining_seconds"] == 7 * 60
    current = view["current"]
    card = client.app.state.catalog.card(  # type: ignore[attr-defined]
        client.get(f"/api/mock/{mock['id']}").json()["questions"][0]["card_id"]
    )
    assert current["position"] == 1 and current["answer"] == "my notes"
    assert current["answer_html"] == card.answer_html
    assert [p["point_html"] for p in current["rubric"]] == [p.point_html for p in card.rubric]
    assert current["followups"][0]["answer_html"] == card.followup_answers_html[0]
    assert current["followups"][0]["answer_html"]  # the reference answer is there
    assert current["mistakes_html"] == list(card.mistakes_html)
    page = client.get(f"/pair/{token}")
    assert page.status_code == 200
    assert card.mistakes_html[0] in page.text and card.followup_answers_html[0] in page.text
    assert "my notes" in page.text and 'data-remaining="420.0"' in page.text
    assert "/static/js/pair.js" in page.text
    # The candidate's own view still shows neither the rubric nor the model answer.
    candidate = client.get(f"/mock/{mock['id']}").text
    assert "Interview with a friend" in candidate
    assert card.mistakes_html[0] not in candidate
    assert card.followup_answers_html[0] not in candidate


def test_a_new_link_replaces_the_old_and_revoking_ends_it(client: TestClient) -> None:  # noqa: F811
    mock = new_mock(client)
    first = invite(client, mock["id"])
    second = invite(client, mock["id"])
    assert first != second
    gone(client, first)
    assert client.get(f"/api/pair/{second}").status_code == 200
    assert client.delete(f"/api/mock/{mock['id']}/pair").status_code == 204
    gone(client, second)
    assert client.delete(f"/api/mock/{mock['id']}/pair").status_code == 204  # nothing to revoke
    page = client.get(f"/pair/{second}")
    assert page.status_code == 404 and "Ask the candidate for a new link" in page.text


def test_a_link_ends_after_24_hours(client: TestClient, clock: FakeClock) -> None:  # noqa: F811
    mock = new_mock(client)
    token = invite(client, mock["id"])
    clock.advance(hours=24, seconds=-1)
    assert client.get(f"/api/pair/{token}").status_code == 200
    clock.advance(seconds=1)
    gone(client, token)


def test_a_link_ends_with_its_session(client: TestClient) -> None:  # noqa: F811
    abandoned = new_mock(client)
    token = invite(client, abandoned["id"])
    client.post(f"/api/mock/{abandoned['id']}/abandon")
    gone(client, token)
    refused = client.post(f"/api/mock/{abandoned['id']}/pair")
    assert refused.status_code == 409  # an ended session gets no new link

    finished = new_mock(client, questions=1, followups=False)
    token = invite(client, finished["id"])
    client.post(f"/api/mock/{finished['id']}/start")
    client.post(f"/api/mock/{finished['id']}/submit", json={"position": 1, "part": "main"})
    client.post(f"/api/mock/{finished['id']}/grade", json={"points": [], "rating": 3})
    assert client.get(f"/api/mock/{finished['id']}").json()["status"] == "finished"
    gone(client, token)


def test_every_bad_link_answers_alike(client: TestClient, clock: FakeClock) -> None:  # noqa: F811
    mock = new_mock(client)
    revoked = invite(client, mock["id"])
    client.delete(f"/api/mock/{mock['id']}/pair")
    expired = invite(client, new_mock(client)["id"])
    clock.advance(hours=25)
    answers = {
        client.get(f"/api/pair/{token}").text
        for token in (revoked, expired, "x", "A" * 43, revoked[:-1])
    }
    assert len(answers) == 1  # unknown, revoked and expired cannot be told apart
    marks = {"points": {"points": []}, "followup": {"index": 0}, "rating": {"rating": 3}}
    for what, mark in marks.items():
        body = {"position": 1, **mark}
        assert client.post(f"/api/pair/{expired}/{what}", json=body).status_code == 404


def test_only_a_hash_of_the_token_is_stored(client: TestClient) -> None:  # noqa: F811
    mock = new_mock(client)
    token = invite(client, mock["id"])
    with client.app.state.database.read_session() as session:  # type: ignore[attr-defined]
        rows = list(session.scalars(select(MockPairing)))
        assert len(rows) == 1 and rows[0].session_id == mock["id"]
        assert rows[0].token_hash == digest(token, LOCAL_KEY) and token not in rows[0].token_hash
        stored = [str(getattr(rows[0], c.key)) for c in MockPairing.__table__.columns]
        assert not any(token in value for value in stored)


def test_marks_and_the_chosen_followup_reach_the_candidate(
    client: TestClient,  # noqa: F811
) -> None:
    mock = new_mock(client, questions=2)
    mock_id = mock["id"]
    token = invite(client, mock_id)
    early = client.post(f"/api/pair/{token}/points", json={"position": 1, "points": [0]})
    assert early.status_code == 409  # not started: nothing to mark yet
    client.post(f"/api/mock/{mock_id}/start", json={"position": 1})
    marked = client.post(f"/api/pair/{token}/points", json={"position": 1, "points": [2, 0, 2]})
    assert marked.status_code == 200
    assert [p["marked"] for p in marked.json()["current"]["rubric"]] == [True, False, True]
    bad = client.post(f"/api/pair/{token}/points", json={"position": 1, "points": [3]})
    assert bad.status_code == 422
    assert (
        client.post(f"/api/pair/{token}/followup", json={"position": 1, "index": 1}).status_code
        == 422
    )
    chose = client.post(f"/api/pair/{token}/followup", json={"position": 1, "index": 0})
    assert chose.status_code == 200 and chose.json()["current"]["followups"][0]["chosen"]
    rated = client.post(f"/api/pair/{token}/rating", json={"position": 1, "rating": 3})
    assert rated.status_code == 200 and rated.json()["current"]["interviewer_rating"] == 3
    assert (
        client.post(f"/api/pair/{token}/rating", json={"position": 1, "rating": 5}).status_code
        == 422
    )
    # While the candidate answers, their view shows none of it.
    answering = client.get(f"/api/mock/{mock_id}").json()["questions"][0]
    assert answering["interviewer"] is None
    assert "Your interviewer marked" not in client.get(f"/mock/{mock_id}").text

    submitted = client.post(f"/api/mock/{mock_id}/submit", json={"position": 1, "part": "main"})
    asked = submitted.json()["questions"][0]
    card = client.app.state.catalog.card(asked["card_id"])  # type: ignore[attr-defined]
    assert asked["followup"] == card.card.followups[0].question
    assert asked["followup_reason"] == "your interviewer chose it"
    late = client.post(f"/api/pair/{token}/followup", json={"position": 1, "index": 0})
    assert late.status_code == 409 and "already asked" in late.json()["detail"]
    assert client.get(f"/api/pair/{token}").json()["current"]["followup_asked"] == asked["followup"]

    client.post(f"/api/mock/{mock_id}/submit", json={"position": 1, "part": "followup"})
    grading = client.get(f"/api/mock/{mock_id}").json()
    assert grading["step"] == "grade"
    assert grading["questions"][0]["interviewer"] == {"points": [0, 2], "rating": 3, "followup": 0}
    page = client.get(f"/mock/{mock_id}").text
    assert "Your interviewer marked 2 of 3 points made" in page and "<strong>Good</strong>" in page
    assert page.count("your interviewer marked it") == 2

    # The candidate decides: their grade, not the interviewer's, is the FSRS review.
    graded = client.post(f"/api/mock/{mock_id}/grade", json={"points": [1], "rating": 2})
    assert graded.status_code == 200
    with client.app.state.database.read_session() as session:  # type: ignore[attr-defined]
        assert [log.rating for log in session.scalars(select(ReviewLog))] == [2]
        row = session.scalars(select(MockQuestion).where(MockQuestion.position == 1)).one()
        assert (row.confirmed_points, row.interviewer_points) == ([1], [0, 2])
    after = client.post(f"/api/pair/{token}/points", json={"position": 1, "points": []})
    assert after.status_code == 409  # graded: the marks are kept as they were
    report = client.get(f"/api/mock/{mock_id}/report").json()["questions"][0]
    assert report["points_made"] == [1] and report["interviewer_points"] == [0, 2]
    assert report["interviewer_rating"] == 3 and report["followup_chosen_by"] == "interviewer"
    report_page = client.get(f"/mock/{mock_id}/report").text
    assert (
        "your interviewer marked it" in report_page and "Your interviewer proposed" in report_page
    )


def test_the_owner_alone_makes_and_revokes_links(client: TestClient) -> None:  # noqa: F811
    database = client.app.state.database  # type: ignore[attr-defined]
    with database.write_session() as session:
        theirs = other_users_mock(session, START).id
    assert client.post(f"/api/mock/{theirs}/pair").status_code == 404
    assert client.delete(f"/api/mock/{theirs}/pair").status_code == 404
    with database.read_session() as session:
        assert list(session.scalars(select(MockPairing))) == []


def test_accounts_mode_needs_no_account_for_the_interviewer(
    accounts: ClientFactory,  # noqa: F811
) -> None:
    owner = accounts()
    register(owner, "ada")
    token_header = {"X-CSRF-Token": csrf_of(owner)}
    assert owner.post("/api/mock/1/pair", headers=token_header).status_code == 404
    mock_id = owner.post(
        "/api/mock", json={"preset": "custom", "questions": 1, "minutes": 5}, headers=token_header
    ).json()["id"]
    # The usual rules for the owner: no CSRF token from a signed-in browser, no link.
    assert owner.post(f"/api/mock/{mock_id}/pair").status_code == 403
    token = invite(owner, mock_id, **token_header)
    owner.post(f"/api/mock/{mock_id}/start", headers=token_header)

    friend = TestClient(owner.app)  # no account, no cookie
    page = friend.get(f"/pair/{token}", follow_redirects=False)
    assert page.status_code == 200 and "set-cookie" not in page.headers
    marked = friend.post(f"/api/pair/{token}/points", json={"position": 1, "points": [1]})
    assert marked.status_code == 200, marked.text
    # The token makes nobody a member: the friend is still signed out everywhere else.
    assert friend.get(f"/api/mock/{mock_id}").status_code == 401
    assert friend.get("/mock", follow_redirects=False).status_code == 303


def test_the_token_opens_nothing_else(accounts: ClientFactory) -> None:  # noqa: F811
    owner = accounts()
    register(owner, "ada")
    csrf = {"X-CSRF-Token": csrf_of(owner)}
    mock_id = owner.post(
        "/api/mock", json={"preset": "custom", "questions": 1, "minutes": 5}, headers=csrf
    ).json()["id"]
    token = invite(owner, mock_id, **csrf)
    values = {"mock_id": str(mock_id), "token_id": "1", "position": "1", "take": "1",
              "seq": "0", "id": "1", "part": "main", "card_id": "alpha-busbw", "slug": "alpha",
              "name": "memory", "action": "abandon", "token": token}  # fmt: skip
    carriers = {
        "bearer": ({"Authorization": f"Bearer {token}"}, {}),
        "csrf header": ({"X-CSRF-Token": token}, {}),
        "session cookie": ({}, {"ringside_session": token}),
        "device cookie": ({}, {"ringside_device": token}),
    }
    checked = 0
    for route in api_routes(owner.app.routes):  # type: ignore[attr-defined]
        if "/pair/{token}" in route.path:
            continue  # the link's own view: it is what the token opens
        path = route.path
        for name, value in values.items():
            path = path.replace("{" + name + "}", value)
        assert "{" not in path, path
        for method in sorted(route.methods - {"HEAD"}):
            bare = TestClient(owner.app).request(method, path, follow_redirects=False)
            for carrier, (headers, cookies) in carriers.items():
                anyone = TestClient(owner.app, cookies=cookies)
                response = anyone.request(method, path, headers=headers, follow_redirects=False)
                opened = response.status_code < 300 and not bare.status_code < 300
                assert not opened, (method, route.path, carrier, response.status_code)
                checked += 1
    assert checked > 200
    # Nothing was changed by any of it: the session is as it was, its link still works.
    state = owner.get(f"/api/mock/{mock_id}").json()
    assert state["status"] == "active" and state["step"] == "start"
    assert TestClient(owner.app).get(f"/api/pair/{token}").status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Origin": "null"},
    ],
)
def test_cross_site_posts_are_refused(client: TestClient, headers: dict[str, str]) -> None:  # noqa: F811
    mock = new_mock(client)
    token = invite(client, mock["id"])
    client.post(f"/api/mock/{mock['id']}/start")
    body = {"position": 1, "points": [0]}
    forged = client.post(f"/api/pair/{token}/points", json=body, headers=headers)
    assert forged.status_code == 403 and "another site" in forged.json()["detail"]
    assert client.post(f"/api/mock/{mock['id']}/pair", headers=headers).status_code == 403
    assert client.delete(f"/api/mock/{mock['id']}/pair", headers=headers).status_code == 403
    assert client.get(f"/api/pair/{token}").json()["current"]["rubric"][0]["marked"] is False
    same = client.post(
        f"/api/pair/{token}/points", json=body, headers={"Origin": "http://127.0.0.1:8000"}
    )
    assert same.status_code == 200 and same.json()["current"]["rubric"][0]["marked"] is True


def test_the_logs_leave_the_token_out(
    client: TestClient,  # noqa: F811
    caplog: pytest.LogCaptureFixture,
) -> None:
    mock = new_mock(client)
    token = invite(client, mock["id"])
    with caplog.at_level("INFO"):
        client.get(f"/api/pair/{token}")
        client.post(f"/api/pair/{token}/points", json={"position": 1, "points": []},
                    headers={"Origin": "https://evil.example"})  # fmt: skip
    ours = [r for r in caplog.records if r.name.startswith("ringside")]  # not the test client's
    paths = [getattr(r, "path", "") for r in ours]
    assert "/api/pair/…" in paths and "/api/pair/…/points" in paths
    assert not any(token in r.getMessage() or token in str(r.__dict__) for r in ours)

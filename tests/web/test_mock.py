"""Mock interviews: server-kept time, autosave limits, follow-ups, grading, reports, privacy."""

import random
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.config import Settings
from app.content.loader import load_catalog
from app.grading import Field
from app.main import create_app
from app.mock import rubric, selection
from app.models import MockQuestion, ReviewLog
from tests.conftest import FIXTURE_CONTENT, ClientFactory, FakeClock, loopback_client
from tests.web.others import other_users_mock

START = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
MAIN = {"position": 1, "part": "main"}
FOLLOWUP = {"position": 1, "part": "followup"}
CATALOG = load_catalog(FIXTURE_CONTENT)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def client(make_client: ClientFactory, clock: FakeClock) -> TestClient:
    return make_client(clock=clock, srs_fuzz=False)


def new_mock(client: TestClient, **body: object) -> dict:  # type: ignore[type-arg]
    payload = {"preset": "custom", "questions": 2, "minutes": 10, **body}
    response = client.post("/api/mock", json=payload)
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


def test_presets_and_custom_sessions(client: TestClient) -> None:
    infra = client.post("/api/mock", json={"preset": "infra"}).json()
    assert infra["minutes_per_question"] == 10
    # The fixture content has three open (recall/derivation) cards: fewer than 4 asked.
    assert len(infra["questions"]) == 2
    assert infra["step"] == "start" and infra["current"] == 1
    custom = new_mock(client, questions=1, minutes=5, followups=False)
    assert custom["followups"] is False
    # Questions not yet started show nothing of themselves.
    assert custom["questions"][0]["card_id"] is None
    assert custom["questions"][0]["question_html"] == ""


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"questions": 0}, "questions"),
        ({"questions": 11}, "questions"),
        ({"minutes": 61}, "minutes"),
        ({"topics": ["nope"]}, "topics"),
        ({"preset": "marathon"}, "preset"),
    ],
)
def test_bad_session_requests_are_refused(client: TestClient, body: dict, field: str) -> None:  # type: ignore[type-arg]
    response = client.post(
        "/api/mock", json={"preset": "custom", "questions": 2, "minutes": 5, **body}
    )
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"][-1] == field


def test_the_server_keeps_the_clock_across_reloads_and_restarts(
    client: TestClient, clock: FakeClock, tmp_path: Path
) -> None:
    mock = new_mock(client)
    started = client.post(f"/api/mock/{mock['id']}/start").json()
    assert started["step"] == "answer" and started["remaining_seconds"] == 600
    clock.advance(minutes=4)
    assert client.get(f"/api/mock/{mock['id']}").json()["remaining_seconds"] == 360
    page = client.get(f"/mock/{mock['id']}").text
    assert 'data-remaining="360.0"' in page
    # A second app on the same database (a restart, or a second tab's server) agrees.
    url = str(client.app.state.database.url)  # type: ignore[attr-defined]
    other = loopback_client(
        create_app(Settings(database_url=url, content_dir=FIXTURE_CONTENT), clock=clock)
    )
    assert other.get(f"/api/mock/{mock['id']}").json()["remaining_seconds"] == 360


def test_autosave_then_refusal_after_the_deadline_keeps_the_text(
    client: TestClient, clock: FakeClock
) -> None:
    mock = new_mock(client)
    client.post(f"/api/mock/{mock['id']}/start")
    saved = client.put(f"/api/mock/{mock['id']}/answer", json={"part": "main", "text": "draft one"})
    assert saved.status_code == 200
    clock.advance(minutes=10, seconds=10)  # inside the grace period
    assert (
        client.put(
            f"/api/mock/{mock['id']}/answer", json={"part": "main", "text": "draft two"}
        ).status_code
        == 200
    )
    clock.advance(seconds=30)  # past the grace
    late = client.put(f"/api/mock/{mock['id']}/answer", json={"part": "main", "text": "too late"})
    assert late.status_code == 409 and "last saved text was kept" in late.json()["detail"]
    state = client.get(f"/api/mock/{mock['id']}").json()
    assert state["questions"][0]["answer"] == "draft two"
    assert state["step"] == "followup"  # submitted automatically at the deadline


def test_answers_are_capped_with_a_message_never_cut(client: TestClient) -> None:
    mock = new_mock(client)
    client.post(f"/api/mock/{mock['id']}/start")
    client.put(f"/api/mock/{mock['id']}/answer", json={"part": "main", "text": "short"})
    long = client.put(f"/api/mock/{mock['id']}/answer", json={"part": "main", "text": "x" * 20_001})
    assert long.status_code == 422
    assert "at most 20,000 characters" in long.json()["detail"][0]["msg"]
    assert client.get(f"/api/mock/{mock['id']}").json()["questions"][0]["answer"] == "short"
    exact = client.put(
        f"/api/mock/{mock['id']}/answer", json={"part": "main", "text": "y" * 20_000}
    )
    assert exact.status_code == 200


def test_follow_up_has_its_own_short_clock(client: TestClient, clock: FakeClock) -> None:
    mock = new_mock(client, minutes=9)
    client.post(f"/api/mock/{mock['id']}/start")
    after = client.post(
        f"/api/mock/{mock['id']}/submit", json=MAIN | {"text": "main answer"}
    ).json()
    assert after["step"] == "followup" and after["remaining_seconds"] == 180  # 9 min / 3
    assert after["questions"][0]["followup"]
    wrong_part = client.put(f"/api/mock/{mock['id']}/answer", json={"part": "main", "text": "edit"})
    assert wrong_part.status_code == 409
    client.put(f"/api/mock/{mock['id']}/answer", json={"part": "followup", "text": "pushed"})
    graded = client.post(f"/api/mock/{mock['id']}/submit", json=FOLLOWUP).json()
    assert graded["step"] == "grade" and graded["questions"][0]["followup_answer"] == "pushed"


def test_grading_records_a_mock_review_once(client: TestClient) -> None:
    mock = new_mock(client, questions=1, followups=False)
    card_id = client.post(f"/api/mock/{mock['id']}/start").json()["questions"][0]["card_id"]
    client.post(
        f"/api/mock/{mock['id']}/submit", json=MAIN | {"text": "reduce-scatter, all-gather"}
    )
    bad = client.post(f"/api/mock/{mock['id']}/grade", json={"points": [9], "rating": 3})
    assert bad.status_code == 422 and bad.json()["detail"][0]["loc"][-1] == "points"
    done = client.post(f"/api/mock/{mock['id']}/grade", json={"points": [0, 2], "rating": 2}).json()
    assert done["status"] == "finished"
    again = client.post(f"/api/mock/{mock['id']}/grade", json={"points": [0], "rating": 4})
    assert again.status_code == 409
    database = client.app.state.database  # type: ignore[attr-defined]
    with database.read_session() as session:
        logs = session.scalars(select(ReviewLog)).all()
    assert [(log.source, log.rating, log.card_id) for log in logs] == [("mock", 2, card_id)]
    report = client.get(f"/api/mock/{mock['id']}/report").json()
    question = report["questions"][0]
    assert question["points_made"] == [0, 2] and question["points_total"] == 3
    assert report["score"] == pytest.approx(2 / 3)


def test_grade_at_the_end_asks_every_question_first(client: TestClient) -> None:
    mock = new_mock(client, grade_after_each=False, followups=False)
    for position in (1, 2):
        client.post(f"/api/mock/{mock['id']}/start")
        body = {"position": position, "part": "main", "text": "answer"}
        state = client.post(f"/api/mock/{mock['id']}/submit", json=body).json()
    assert state["step"] == "grade" and state["current"] == 1


def test_page_flow_with_forms_and_escaping(client: TestClient) -> None:
    created = client.post(
        "/mock",
        data={"preset": "custom", "questions": "1", "minutes": "5", "followups": "on"},
        follow_redirects=False,
    )
    assert created.status_code == 303
    url = created.headers["location"]
    assert "Start the clock" in client.get(url).text
    client.post(f"{url}/start")
    answer_page = client.get(url).text
    assert 'class="countdown"' in answer_page and "<textarea" in answer_page
    main = {"position": "1", "part": "main", "text": "<script>alert(1)</script> reduce-scatter"}
    client.post(f"{url}/submit", data=main)
    client.post(f"{url}/submit", data={"position": "1", "part": "followup", "text": "<b>bold</b>"})
    grading = client.get(url).text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in grading and "<script>alert(1)" not in grading
    assert "A strong answer" in grading and 'name="point"' in grading
    finished = client.post(
        f"{url}/grade", data={"point": ["0"], "rating": "3"}, follow_redirects=False
    )
    assert finished.headers["location"] == url
    report = client.get(url, follow_redirects=True)
    assert "Mock interview report" in report.text and "&lt;b&gt;bold&lt;/b&gt;" in report.text


def test_custom_form_errors_keep_what_was_typed(client: TestClient) -> None:
    page = client.post("/mock", data={"preset": "custom", "questions": "twelve", "minutes": "5"})
    assert page.status_code == 422
    assert 'value="twelve"' in page.text and "Choose a whole number from 1 to 10." in page.text


def test_unfinished_session_is_offered_and_abandoning_is_explicit(client: TestClient) -> None:
    mock = new_mock(client)
    assert f'href="/mock/{mock["id"]}"' in client.get("/").text
    abandoned = client.post(f"/api/mock/{mock['id']}/abandon").json()
    assert abandoned["status"] == "abandoned"
    assert f'href="/mock/{mock["id"]}"' not in client.get("/").text
    assert client.post(f"/api/mock/{mock['id']}/start").status_code == 409


def test_a_session_is_visible_only_to_its_owner(client: TestClient, clock: FakeClock) -> None:
    database = client.app.state.database  # type: ignore[attr-defined]
    with database.write_session() as session:
        theirs = other_users_mock(session, START)
        their_id = theirs.id
    for method, path in (
        ("get", f"/api/mock/{their_id}"),
        ("get", f"/mock/{their_id}"),
        ("get", f"/mock/{their_id}/report"),
        ("get", f"/api/mock/{their_id}/report"),
        ("post", f"/api/mock/{their_id}/start"),
        ("put", f"/api/mock/{their_id}/answer"),
    ):
        kwargs = {"json": {"part": "main", "text": "x"}} if method == "put" else {}
        assert getattr(client, method)(path, **kwargs).status_code == 404, path
    assert client.get("/api/mock").json() == []


def test_history_lists_sessions_with_scores(client: TestClient) -> None:
    mock = new_mock(client, questions=1, followups=False)
    client.post(f"/api/mock/{mock['id']}/start")
    client.post(f"/api/mock/{mock['id']}/submit", json=MAIN | {"text": "a"})
    client.post(f"/api/mock/{mock['id']}/grade", json={"points": [1], "rating": 3})
    history = client.get("/api/mock").json()
    assert history[0]["id"] == mock["id"] and history[0]["score"] == pytest.approx(1 / 3)
    assert "Past sessions" in client.get("/mock/history").text


def test_selection_favours_weak_topics_and_avoids_repeats() -> None:
    recall = {"alpha-ring-bytes": 0.95}  # alpha is known; beta never seen
    chosen = selection.choose(CATALOG, recall, set(), None, 2, random.Random(1))
    assert chosen[0].topic_slug == "beta"  # the weakest topic first
    assert len({c.id for c in chosen}) == 2
    assert all(
        c.kind in selection.MOCK_KINDS
        for c in selection.choose(CATALOG, {}, set(), None, 9, random.Random(2))
    )


def test_previous_session_cards_are_avoided_where_possible() -> None:
    previous = {"alpha-ring-bytes"}
    picks = {
        selection.choose(CATALOG, {}, previous, {"alpha"}, 1, random.Random(seed))[0].id
        for seed in range(10)
    }
    # alpha has one open card, so it must repeat; with a choice it would not.
    assert picks == {"alpha-ring-bytes"}
    # beta's one open card was asked last time: with one question to ask, alpha goes first.
    one = selection.choose(CATALOG, {}, {"beta-derive"}, None, 1, random.Random(3))
    assert [c.id for c in one] == ["alpha-ring-bytes"]


def test_rubric_suggestions_match_keywords_loosely() -> None:
    card = CATALOG.card("alpha-ring-bytes")
    assert card is not None
    points, field = list(card.card.rubric), Field.of(CATALOG)
    said = "First a Reduce-Scatter, then ALL-GATHER"
    assert rubric.suggested_points(points, said, field=field) == [0]
    said = "each sends 2 (N − 1)/N of it, so about 2K"
    assert rubric.suggested_points(points, said, field=field) == [1, 2]
    assert rubric.suggested_points(points, "no idea", field=field) == []


def test_report_of_a_running_session_does_not_reveal_questions_not_yet_asked(
    client: TestClient,
) -> None:
    mock = new_mock(client, questions=2, followups=False)
    client.post(f"/api/mock/{mock['id']}/start")
    report = client.get(f"/api/mock/{mock['id']}/report").json()
    assert [q["position"] for q in report["questions"]] == [1]
    database = client.app.state.database  # type: ignore[attr-defined]
    with database.read_session() as session:
        second = session.scalars(
            select(MockQuestion.card_id).where(MockQuestion.position == 2)
        ).one()
    assert second not in client.get(f"/mock/{mock['id']}/report").text


EVERY_MISTAKE = (
    "Each GPU sends K(N-1) bytes; it is a tree. Use the reduce-scatter factor, N steps, "
    "nothing at all; reboot first."
)


def test_grading_step_and_report_show_the_mistakes_the_answer_states(client: TestClient) -> None:
    mock = new_mock(client, questions=1, followups=False)
    client.post(f"/api/mock/{mock['id']}/start")
    client.post(f"/api/mock/{mock['id']}/submit", json=MAIN | {"text": EVERY_MISTAKE})
    state = client.get(f"/api/mock/{mock['id']}").json()
    question = state["questions"][0]
    assert question["suggested_mistakes"], question
    said = question["suggested_mistake_reasons"][str(question["suggested_mistakes"][0])]
    assert said.startswith("You said “")
    page = client.get(f"/mock/{mock['id']}").text
    assert "Common mistakes in your answer" in page and "You said" in page
    client.post(f"/api/mock/{mock['id']}/grade", json={"points": [], "rating": 1})
    report = client.get(f"/api/mock/{mock['id']}/report").json()["questions"][0]
    assert report["mistakes"] == question["suggested_mistakes"]
    assert report["mistake_reasons"][str(report["mistakes"][0])].startswith("You said")
    assert "You said" in client.get(f"/mock/{mock['id']}/report").text

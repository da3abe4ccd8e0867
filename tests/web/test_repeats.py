"""Requests sent twice (a double click, a retry, two tabs) change things once.

Mock submits and grades name the question and part they act on, so a repeat returns the
session as the first left it; drill attempts and reviews take idempotency keys.
"""

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.config import Settings
from app.main import create_app
from app.models import Attempt, ReviewLog
from tests.conftest import FIXTURE_CONTENT, DatabaseFactory
from tests.servers import serving

MAIN = {"position": 1, "part": "main", "text": "main answer"}


@pytest.fixture
def server(new_database: DatabaseFactory) -> Iterator[tuple[str, Any]]:
    """A real server (local mode: scripts need no token) on a fresh database."""
    app = create_app(Settings(database_url=new_database(), content_dir=FIXTURE_CONTENT))
    with serving(app) as base:
        yield base, app.state.database


def rows(database: Any, model: type) -> int:
    with database.read_session() as session:
        return int(session.scalar(select(func.count()).select_from(model)) or 0)


def started_mock(client: TestClient | httpx.Client, **options: Any) -> int:
    body = {"preset": "custom", "questions": 2, "minutes": 6, **options}
    mock_id = int(client.post("/api/mock", json=body).json()["id"])
    assert client.post(f"/api/mock/{mock_id}/start").status_code == 200
    return mock_id


def test_a_resent_submit_does_not_skip_the_follow_up(client: TestClient) -> None:
    mock_id = started_mock(client)
    first = client.post(f"/api/mock/{mock_id}/submit", json=MAIN)
    again = client.post(f"/api/mock/{mock_id}/submit", json=MAIN)
    assert first.status_code == again.status_code == 200
    ticking = "remaining_seconds"  # the clock runs on between the two
    assert {**again.json(), ticking: 0} == {**first.json(), ticking: 0}
    state = client.get(f"/api/mock/{mock_id}").json()
    assert state["step"] == "followup"
    assert state["questions"][0]["followup_answer"] == ""


def test_a_submit_naming_another_part_or_question_is_refused(client: TestClient) -> None:
    mock_id = started_mock(client)
    early = {"position": 1, "part": "followup", "text": "not yet"}
    assert client.post(f"/api/mock/{mock_id}/submit", json=early).status_code == 409
    other = {"position": 2, "part": "main", "text": "wrong question"}
    assert client.post(f"/api/mock/{mock_id}/submit", json=other).status_code == 409
    assert client.post(f"/api/mock/{mock_id}/submit", json={"text": "x"}).status_code == 422
    assert client.get(f"/api/mock/{mock_id}").json()["questions"][0]["answer"] == ""


def test_a_resent_grade_grades_once(client: TestClient) -> None:
    mock_id = started_mock(client, followups=False)
    client.post(f"/api/mock/{mock_id}/submit", json=MAIN)
    grade = {"points": [0], "rating": 3, "position": 1}
    first = client.post(f"/api/mock/{mock_id}/grade", json=grade)
    assert first.status_code == 200 and first.json()["step"] == "start"
    client.post(f"/api/mock/{mock_id}/start")
    again = client.post(f"/api/mock/{mock_id}/grade", json=grade | {"rating": 1})
    assert again.status_code == 200 and again.json()["questions"][0]["rating"] == 3
    assert again.json()["questions"][1]["rating"] is None
    assert rows(client.app.state.database, ReviewLog) == 1  # type: ignore[attr-defined]


def test_a_double_clicked_submit_form_keeps_the_follow_up(client: TestClient) -> None:
    mock_id = started_mock(client)
    form = {"position": "1", "part": "main", "text": "main answer"}
    for _ in range(2):
        sent = client.post(f"/mock/{mock_id}/submit", data=form, follow_redirects=False)
        assert sent.status_code == 303 and "error" not in sent.headers["location"]
    page = client.get(f"/mock/{mock_id}").text
    assert 'name="part" value="followup"' in page
    assert client.get(f"/api/mock/{mock_id}").json()["questions"][0]["followup_answer"] == ""


@pytest.mark.slow
def test_twenty_concurrent_submits_submit_once(server: tuple[str, Any]) -> None:
    base, _database = server
    with httpx.Client(base_url=base, timeout=60) as client:
        mock_id = started_mock(client)
        with ThreadPoolExecutor(20) as pool:
            sent = list(
                pool.map(lambda _: client.post(f"/api/mock/{mock_id}/submit", json=MAIN), range(20))
            )
        state = client.get(f"/api/mock/{mock_id}").json()
    assert {r.status_code for r in sent} == {200}
    assert state["step"] == "followup" and state["questions"][0]["followup_answer"] == ""


@pytest.mark.slow
def test_twenty_concurrent_drill_attempts_with_one_key_record_one(
    server: tuple[str, Any],
) -> None:
    base, database = server
    body = {"answer": "175 GB/s", "seed": 1, "idempotency_key": "drill-once"}
    with httpx.Client(timeout=60) as client, ThreadPoolExecutor(20) as pool:
        sent = list(
            pool.map(
                lambda _: client.post(f"{base}/api/cards/alpha-busbw/attempts", json=body),
                range(20),
            )
        )
    assert {r.status_code for r in sent} == {201}
    assert len({r.json()["id"] for r in sent}) == 1
    assert rows(database, Attempt) == 1


def test_a_resent_drill_attempt_returns_the_first(client: TestClient) -> None:
    url = "/api/cards/alpha-busbw/attempts"
    first = client.post(url, json={"answer": "175 GB/s", "seed": 1, "idempotency_key": "k1"})
    again = client.post(url, json={"answer": "1 GB/s", "seed": 2, "idempotency_key": "k1"})
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    plain = [client.post(url, json={"answer": "175 GB/s", "seed": 1}) for _ in range(2)]
    assert len({r.json()["id"] for r in plain}) == 2  # without a key each one counts
    assert rows(client.app.state.database, Attempt) == 3  # type: ignore[attr-defined]


def test_an_idempotency_key_reused_for_another_card_is_refused(client: TestClient) -> None:
    review = {"rating": 3, "idempotency_key": "same"}
    assert client.post("/api/review/alpha-busbw", json=review).status_code == 200
    reused = client.post("/api/review/beta-derive", json=review)
    assert reused.status_code == 422 and reused.json()["detail"][0]["loc"][-1] == "idempotency_key"
    assert rows(client.app.state.database, ReviewLog) == 1  # type: ignore[attr-defined]
    attempt = {"answer": "175 GB/s", "seed": 1, "idempotency_key": "same-drill"}
    assert client.post("/api/cards/alpha-busbw/attempts", json=attempt).status_code == 201
    other = client.post("/api/cards/alpha-drill-bytes/attempts", json=attempt | {"answer": "1 GB"})
    assert other.status_code == 422 and other.json()["detail"][0]["loc"][-1] == "idempotency_key"
    assert rows(client.app.state.database, Attempt) == 1  # type: ignore[attr-defined]


@pytest.mark.slow
def test_twenty_concurrent_first_settings_saves_all_succeed(server: tuple[str, Any]) -> None:
    """The first save inserts the settings row: on PostgreSQL two at once both inserted."""
    base, _database = server
    bodies = [{"new_per_day": 5 + n} for n in range(20)]
    with httpx.Client(timeout=60) as client, ThreadPoolExecutor(20) as pool:
        sent = list(pool.map(lambda b: client.put(f"{base}/api/settings/review", json=b), bodies))
        saved = client.get(f"{base}/api/settings/review").json()
    assert {r.status_code for r in sent} == {200}
    assert saved["new_per_day"] in {b["new_per_day"] for b in bodies}


@pytest.mark.slow
def test_concurrent_imports_of_one_file_add_it_once(server: tuple[str, Any]) -> None:
    """Import merges by reading what is there, then writing what is not: one at a time."""
    base, database = server
    with httpx.Client(base_url=base, timeout=60) as client:
        for n, card in enumerate(["alpha-busbw", "beta-derive", "beta-order"]):
            body = {"rating": 3, "idempotency_key": f"seed-{n}"}
            assert client.post(f"/api/review/{card}", json=body).status_code == 200
        exported = client.get("/api/export").json()
        assert client.post("/api/review/undo").status_code == 200
        assert client.post("/api/review/undo").status_code == 200
        assert client.post("/api/review/undo").status_code == 200
        with ThreadPoolExecutor(10) as pool:
            sent = list(pool.map(lambda _: client.post("/api/import", json=exported), range(10)))
    assert {r.status_code for r in sent} == {200}
    assert rows(database, ReviewLog) == 3


def test_a_resent_start_or_abandon_changes_nothing(client: TestClient) -> None:
    mock_id = int(
        client.post("/api/mock", json={"preset": "custom", "questions": 2, "minutes": 6}).json()[
            "id"
        ]
    )
    first = client.post(f"/api/mock/{mock_id}/start", json={"position": 1})
    again = client.post(f"/api/mock/{mock_id}/start", json={"position": 1})
    assert first.status_code == again.status_code == 200
    assert again.json()["questions"][0]["deadline"] == first.json()["questions"][0]["deadline"]
    assert client.post(f"/api/mock/{mock_id}/start", json={"position": 2}).status_code == 409
    form = client.post(f"/mock/{mock_id}/start", data={"position": "1"}, follow_redirects=False)
    assert form.status_code == 303 and "error" not in form.headers["location"]
    for _ in range(2):
        abandoned = client.post(f"/api/mock/{mock_id}/abandon")
        assert abandoned.status_code == 200 and abandoned.json()["status"] == "abandoned"

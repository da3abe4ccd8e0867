"""An import cannot break an account; and if a bad state reaches the database anyway, each
page degrades for that card alone instead of failing for the whole account."""

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert, select, update

from app.models import CardState, ReviewLog
from tests.conftest import ClientFactory, FakeClock
from tests.datasafety.helpers import populate

START = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def client(make_client: ClientFactory, clock: FakeClock) -> TestClient:
    return make_client(clock=clock, srs_fuzz=False)


def document(card_state: dict[str, Any] | None = None, **sections: Any) -> dict[str, Any]:
    """A minimal export: one sound card state (changed by `card_state`), plus `sections`."""
    sound = {
        "card_id": "beta-derive", "state": 2, "step": None, "stability": 3.0,
        "difficulty": 5.0, "due": "2026-04-03T00:00:00+00:00",
        "last_review": "2026-03-31T00:00:00+00:00", "reps": 3, "lapses": 0,
    }  # fmt: skip
    state = sound | {"card_id": "alpha-busbw"} | (card_state or {})
    return {
        "app": "ringside", "format": 1, "user": {"username": "x", "display_name": "x"},
        "review_settings": None, "review_logs": [], "attempts": [], "mock_sessions": [],
        "card_states": [sound, state],
    } | sections  # fmt: skip


def snapshot(**changes: Any) -> dict[str, Any]:
    return {
        "state": 2, "step": None, "stability": 3.0, "difficulty": 5.0,
        "due": "2026-04-03T00:00:00+00:00", "last_review": "2026-03-31T00:00:00+00:00",
        "reps": 3, "lapses": 0,
    } | changes  # fmt: skip


def log(**changes: Any) -> dict[str, Any]:
    return {
        "card_id": "alpha-busbw", "rating": 3, "reviewed_at": "2026-03-31T00:00:00+00:00",
        "duration_ms": None, "source": "review", "was_new": False,
        "state_before": snapshot(), "state_after": snapshot(), "interval_days": 3.0,
        "prior_interval_days": None,
    } | changes  # fmt: skip


SETTINGS = {"desired_retention": 0.9, "new_per_day": 10, "max_reviews_per_day": 200,
            "day_boundary_hour": 4}  # fmt: skip

POISON = [
    ("stability 0", document({"stability": 0.0}), ["card_states", 1, "stability"]),
    ("stability < 0", document({"stability": -2.0}), ["card_states", 1, "stability"]),
    ("stability huge", document({"stability": 1e308}), ["card_states", 1, "stability"]),
    ("difficulty -1e308", document({"difficulty": -1e308}), ["card_states", 1, "difficulty"]),
    ("difficulty 11", document({"difficulty": 11.0}), ["card_states", 1, "difficulty"]),
    ("difficulty 0.5", document({"difficulty": 0.5}), ["card_states", 1, "difficulty"]),
    ("review, no stability", document({"stability": None}), ["card_states", 1]),
    ("due in year 1", document({"due": "0001-01-01T00:00:00+00:00"}), ["card_states", 1, "due"]),
    ("due in 9999", document({"due": "9999-12-31T00:00:00+00:00"}), ["card_states", 1, "due"]),
    (
        "reviewed in year 1",
        document(review_logs=[log(reviewed_at="0001-01-01T00:00:00+00:00")]),
        ["review_logs", 0, "reviewed_at"],
    ),
    (
        "snapshot stability 0",
        document(review_logs=[log(state_after=snapshot(stability=0.0))]),
        ["review_logs", 0, "state_after", "stability"],
    ),
    (
        "snapshot due in year 1",
        document(review_logs=[log(state_before=snapshot(due="0001-01-01T00:00:00+00:00"))]),
        ["review_logs", 0, "state_before", "due"],
    ),
    (
        "interval 1e308 days",
        document(review_logs=[log(interval_days=1e308)]),
        ["review_logs", 0, "interval_days"],
    ),
    (
        "prior interval 1e308 days",
        document(review_logs=[log(prior_interval_days=1e308)]),
        ["review_logs", 0, "prior_interval_days"],
    ),
    (
        "time zone folder",
        document(review_settings=SETTINGS | {"timezone": "America"}),
        ["review_settings", "timezone"],
    ),
    (
        "time zone Etc",
        document(review_settings=SETTINGS | {"timezone": "Etc"}),
        ["review_settings", "timezone"],
    ),
]


@pytest.mark.parametrize(("name", "body", "where"), POISON, ids=[p[0] for p in POISON])
def test_an_import_that_would_break_the_account_is_refused_whole(
    client: TestClient, name: str, body: dict[str, Any], where: list[Any]
) -> None:
    before = client.get("/api/export").json()
    response = client.post("/api/import", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"][1 : 1 + len(where)] == where
    assert client.get("/api/export").json() == before  # not even the sound card state
    assert client.get("/api/stats").status_code == 200


def test_a_sound_import_of_the_same_shape_is_accepted(client: TestClient) -> None:
    body = document(review_logs=[log()], review_settings=SETTINGS | {"timezone": "Asia/Tokyo"})
    response = client.post("/api/import", json=body)
    assert response.status_code == 200, response.text
    assert len(client.get("/api/export").json()["card_states"]) == 2


def poison_database(client: TestClient) -> None:
    """Bad states written past the import checks (an older version, a hand edit)."""
    database = client.app.state.database  # type: ignore[attr-defined]
    with database.write_session() as session:
        user_id = session.scalars(select(CardState.user_id)).first()
        session.execute(
            update(CardState)
            .where(CardState.card_id == "alpha-ring-bytes")
            .values(stability=0.0, due=START)
        )
        session.execute(
            update(CardState)
            .where(CardState.card_id == "beta-derive")
            .values(difficulty=-1e308, due=START)
        )
        session.execute(
            insert(ReviewLog).values(
                user_id=user_id, card_id="beta-order", rating=3,
                reviewed_at=datetime(1, 1, 1, tzinfo=UTC), source="review", was_new=True,
                state_before=None, state_after=snapshot(), interval_days=1.0,
            )
        )  # fmt: skip


def test_bad_states_in_the_database_degrade_to_a_message_per_card(
    client: TestClient, clock: FakeClock
) -> None:
    populate(client, clock)
    before = client.get("/api/export").text
    poison_database(client)
    for path in ("/", "/stats", "/review", "/api/stats", "/api/review/queue", "/topics/alpha"):
        assert client.get(path).status_code == 200, path
    assert "could not be read" in client.get("/stats").text
    queue = client.get("/api/review/queue").json()
    due = [card["card_id"] for card in queue["cards"]]
    assert "alpha-ring-bytes" in due and "beta-derive" in due
    for card, problem in (("alpha-ring-bytes", "stability 0.0"), ("beta-derive", "difficulty")):
        page = client.get(f"/review?card={card}").text
        assert "saved schedule cannot be used" in page and problem in page
    mock = client.post("/api/mock", json={"preset": "custom", "questions": 2, "minutes": 5})
    assert mock.status_code == 201
    # Grading a damaged card starts its schedule afresh: the card is sound again.
    for n, card in enumerate(("alpha-ring-bytes", "beta-derive")):
        graded = client.post(f"/api/review/{card}", json={"rating": 3, "idempotency_key": f"r{n}"})
        assert graded.status_code == 200, graded.text
        assert graded.json()["stability"] > 0 and 1 <= graded.json()["difficulty"] <= 10
    assert "saved schedule cannot be used" not in client.get("/review").text
    exported = client.get("/api/export")  # all but the record no import would take back
    assert exported.status_code == 200 and exported.headers["x-ringside-left-out"] == "1"
    logs = len(json.loads(before)["review_logs"])
    assert len(exported.json()["review_logs"]) == logs + 2  # and the two repairing grades

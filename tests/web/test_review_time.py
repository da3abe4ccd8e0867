"""Grades sent after they were given: `reviewed_at`, its window, time order, and the day counted."""

from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from httpx import Response

from tests.conftest import ClientFactory, FakeClock

# 10:00 in New York (UTC−5 in March before DST), the user's time zone in these tests.
START = datetime(2026, 3, 2, 15, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def client(make_client: ClientFactory, clock: FakeClock) -> TestClient:
    made = make_client(clock=clock, srs_fuzz=False)
    response = made.put("/api/settings/review", json={"timezone": "America/New_York"})
    assert response.status_code == 200
    return made


def grade(client: TestClient, card: str, rating: int, key: str, at: datetime | str) -> Response:
    moment = at if isinstance(at, str) else at.isoformat().replace("+00:00", "Z")
    return client.post(
        f"/api/review/{card}",
        json={"rating": rating, "idempotency_key": key, "reviewed_at": moment},
    )


def test_state_and_due_are_computed_from_reviewed_at(client: TestClient) -> None:
    given = START - timedelta(days=2, hours=3)
    body = grade(client, "alpha-busbw", 3, "k1", given).json()
    assert body["state"] == "learning"
    assert datetime.fromisoformat(body["due"]) == given + timedelta(minutes=10)
    # The second step, graded ten minutes after the first, graduates from that time too.
    later = given + timedelta(minutes=10)
    second = grade(client, "alpha-busbw", 3, "k2", later).json()
    assert second["state"] == "review"
    assert datetime.fromisoformat(second["due"]) == later + timedelta(days=second["interval_days"])


def test_same_result_as_grading_at_that_time(
    make_client: ClientFactory, client: TestClient
) -> None:
    """A grade sent later schedules the card exactly as if it had been sent when given."""
    given = START - timedelta(days=1)
    late = grade(client, "beta-derive", 4, "late", given).json()
    then = FakeClock(given)
    on_time_client = make_client(clock=then, srs_fuzz=False)
    on_time = on_time_client.post(
        "/api/review/beta-derive", json={"rating": 4, "idempotency_key": "now"}
    ).json()
    assert late == on_time


@pytest.mark.parametrize(
    ("moment", "words"),
    [
        (START + timedelta(minutes=6), "in the future"),
        (START + timedelta(days=1), "in the future"),
        (START - timedelta(days=7, seconds=1), "more than 7 days ago"),
        ("2026-03-02T10:00:00", "time zone"),
        ("9999-12-31T23:59:59-23:59", "out of range"),
        ("yesterday", "datetime"),
        (1772463600, "ISO 8601"),
    ],
)
def test_reviewed_at_out_of_its_window_is_422_naming_the_field(
    client: TestClient, moment: datetime | str | int, words: str
) -> None:
    sent = moment.isoformat() if isinstance(moment, datetime) else moment
    response = client.post(
        "/api/review/alpha-busbw",
        json={"rating": 3, "idempotency_key": "k", "reviewed_at": sent},
    )
    assert response.status_code == 422
    problem = response.json()["detail"][0]
    assert problem["loc"] == ["body", "reviewed_at"]
    assert words in problem["msg"]
    assert client.get("/api/stats").json()["total_reviews"] == 0


def test_edges_of_the_window_are_accepted(client: TestClient, clock: FakeClock) -> None:
    oldest = grade(client, "alpha-busbw", 4, "old", START - timedelta(days=7))
    assert oldest.status_code == 200
    # A device clock up to five minutes ahead counts as now: the card is not reviewed
    # "in the future", so a grade given now on another device still applies after it.
    ahead = grade(client, "beta-derive", 3, "ahead", START + timedelta(minutes=5))
    assert ahead.status_code == 200
    assert datetime.fromisoformat(ahead.json()["due"]) == START + timedelta(minutes=10)
    assert grade(client, "beta-derive", 3, "then", START).status_code == 200
    # An offset other than Z is converted to UTC.
    offset = grade(client, "beta-order", 3, "offset", "2026-03-02T09:30:00-05:00")
    assert offset.status_code == 200
    assert datetime.fromisoformat(offset.json()["due"]) == datetime(2026, 3, 2, 14, 40, tzinfo=UTC)


def test_a_grade_older_than_the_last_review_is_refused_with_409(client: TestClient) -> None:
    assert grade(client, "alpha-busbw", 3, "phone", START - timedelta(hours=1)).status_code == 200
    state = client.get("/api/stats").json()
    refused = grade(client, "alpha-busbw", 1, "laptop", START - timedelta(hours=2))
    assert refused.status_code == 409
    detail = refused.json()["detail"]
    assert "alpha-busbw" in detail and "not applied" in detail
    assert client.get("/api/stats").json() == state  # nothing recorded
    # Resending a key that was applied returns its result, whatever its reviewed_at.
    again = grade(client, "alpha-busbw", 3, "phone", START - timedelta(hours=3))
    assert again.status_code == 200
    # Another card, or the same card at a later time, is graded as usual.
    assert grade(client, "beta-derive", 3, "other", START - timedelta(hours=2)).status_code == 200
    assert grade(client, "alpha-busbw", 3, "later", START).status_code == 200


def test_counted_on_the_day_it_was_given_in_the_users_time_zone(
    client: TestClient, clock: FakeClock
) -> None:
    # 02:00 UTC on 2 March is 21:00 on 1 March in New York: it belongs to 1 March.
    yesterday_evening = datetime(2026, 3, 2, 2, 0, tzinfo=UTC)
    assert grade(client, "alpha-busbw", 4, "eve", yesterday_evening).status_code == 200
    assert grade(client, "beta-derive", 4, "now", START).status_code == 200
    body = client.get("/api/stats").json()
    per_day = {d["day"]: d["count"] for d in body["heatmap"] if d["count"]}
    assert per_day == {"2026-03-01": 1, "2026-03-02": 1}
    # Today's queue counts only today's grade among the new cards introduced today.
    page = client.get("/review", params={"fragment": 1}).text
    assert "1 done" in page


def test_openapi_documents_the_choice(client: TestClient) -> None:
    operation = client.get("/openapi.json").json()["paths"]["/api/review/{card_id}"]["post"]
    assert "409" in operation["responses"]
    assert "time order" in operation["description"]


def test_grades_stamped_by_the_server_are_never_refused_for_their_order(
    client: TestClient, clock: FakeClock
) -> None:
    """Two tabs grading at once: the server's times apply in commit order, as before."""
    for key in ("tab-1", "tab-2"):
        response = client.post(
            "/api/review/alpha-busbw", json={"rating": 3, "idempotency_key": key}
        )
        assert response.status_code == 200
        clock.advance(seconds=-1)  # the second was stamped before the first committed

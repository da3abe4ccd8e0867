"""Learn more today: extra new cards on top of the daily limit or the plan, for today only."""

import re
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from tests.conftest import ClientFactory, FakeClock

START = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def client(make_client: ClientFactory, clock: FakeClock) -> TestClient:
    return make_client(clock=clock, srs_fuzz=False)


def new_count(client: TestClient) -> int:
    return int(client.get("/api/review/queue").json()["new_count"])


def learn(client: TestClient, card: str, key: str) -> None:
    for n, rating in enumerate((3, 3)):
        response = client.post(
            f"/api/review/{card}", json={"rating": rating, "idempotency_key": f"{key}{n}"}
        )
        assert response.status_code == 200, response.text


def test_more_new_cards_without_a_plan(client: TestClient) -> None:
    client.put("/api/settings/review", json={"new_per_day": 1})
    assert new_count(client) == 1
    added = client.post("/api/review/extra", json={"new_cards": 2})
    assert added.status_code == 200, added.text
    assert added.json() == {"extra_today": 2, "new_count": 3}
    assert new_count(client) == 3
    again = client.post("/api/review/extra", json={"new_cards": 1}).json()
    assert again["extra_today"] == 3  # requests add up for the day


def test_more_new_cards_with_a_plan_and_no_more_than_asked(
    client: TestClient, clock: FakeClock
) -> None:
    assert (
        client.put("/api/plan", json={"loop_date": "2026-04-30", "daily_minutes": 10}).status_code
        == 200
    )
    planned = new_count(client)
    added = client.post("/api/review/extra", json={"new_cards": 1}).json()
    total_cards = len(client.get("/api/review/queue", params={"limit": 1000}).json()["cards"])
    assert added["new_count"] == min(planned + 1, total_cards)
    # Learning every new card offered today leaves none: the extra card does not come back.
    for index, card in enumerate(
        c["card_id"]
        for c in client.get("/api/review/queue", params={"limit": 1000}).json()["cards"]
    ):
        learn(client, card, f"k{index}-")
    assert new_count(client) == 0


def test_the_extra_cards_are_for_today_only(client: TestClient, clock: FakeClock) -> None:
    client.put("/api/settings/review", json={"new_per_day": 1})
    client.post("/api/review/extra", json={"new_cards": 2})
    clock.advance(days=1)
    assert new_count(client) == 1


@pytest.mark.parametrize("body", [{"new_cards": 0}, {"new_cards": 51}, {"new_cards": "5"}, {}])
def test_out_of_range_is_a_422(client: TestClient, body: dict[str, object]) -> None:
    response = client.post("/api/review/extra", json=body)
    assert response.status_code == 422


def test_learn_more_form_on_home_and_review(client: TestClient) -> None:
    client.put("/api/settings/review", json={"new_per_day": 1})
    # A newcomer's home points to reading first (tests/web/test_first_week.py); once its
    # first steps are hidden, home offers more new cards as the review page does.
    assert "Learn more today" not in client.get("/").text
    client.post("/first-week/hide")
    for page in ("/", "/review"):
        html = client.get(page).text
        assert 'action="/review-extra"' in html and "Learn more today" in html
    done = client.post(
        "/review-extra", data={"new_cards": "2", "next": "/"}, follow_redirects=False
    )
    assert done.status_code == 303 and done.headers["location"] == "/"
    assert new_count(client) == 3
    for bad in ("0", "abc", "99", ""):
        refused = client.post(
            "/review-extra", data={"new_cards": bad, "next": "/review"}, follow_redirects=False
        )
        assert refused.status_code == 303
        assert refused.headers["location"] == "/review?more_error=1#learn-more"
    page = client.get("/review?more_error=1")
    assert "Give a whole number of cards from 1 to 50." in page.text
    assert new_count(client) == 3


def test_settings_say_the_plan_decides_new_cards(client: TestClient) -> None:
    client.put("/api/plan", json={"loop_date": "2026-04-30", "daily_minutes": 45})
    page = client.get("/settings").text
    help_text = re.search(r'id="new_per_day-help"[^>]*>([^<]*)<', page)
    assert help_text is not None
    assert "the plan decides each day&#39;s new cards instead" in help_text.group(1)
    assert "2026-04-30" in help_text.group(1)

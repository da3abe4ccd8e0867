"""A newcomer's first steps on home: offered on a first visit, pointing to reading before any
review; ticked through the first study day; gone once the person comes back on a later day,
sits a mock, or hides it (in that browser)."""

from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from tests.conftest import ClientFactory, FakeClock

START = datetime(2026, 12, 2, 18, 0, tzinfo=UTC)
PATH = "Where to start"
HTML = {"Accept": "text/html"}
READ_FIRST = '<a class="button-link" href="/topics/alpha">Read Alpha topic</a>'


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def client(make_client: ClientFactory, clock: FakeClock) -> TestClient:
    return make_client(clock=clock, srs_fuzz=False)


def grade(client: TestClient, card_id: str, key: str) -> None:
    response = client.post(f"/api/review/{card_id}", json={"rating": 3, "idempotency_key": key})
    assert response.status_code == 200, response.text


def test_a_first_visit_points_to_reading_not_to_cold_review(client: TestClient) -> None:
    home = client.get("/").text
    assert PATH in home and READ_FIRST in home
    assert "answer its 3 cards as you reach them" in home
    assert 'href="/mock">lightning mock</a>' in home and 'href="/labs">labs</a>' in home
    # No "Review now" button first: the queue is there, but as the second choice.
    assert ">Review now</a>" not in home
    assert '5 new today: <a href="/review">review them cold</a>, or read first.' in home


def test_the_path_ticks_the_first_topic_then_stands_aside_the_next_day(
    client: TestClient, clock: FakeClock
) -> None:
    grade(client, "alpha-ring-bytes", "one")  # answered inline on the topic page
    home = client.get("/").text
    assert PATH in home and "1 card answered so far" in home and 'class="is-done"' in home
    assert ">Review now</a>" in home  # read: the queue is the next step
    clock.advance(days=1)  # a returning user
    home = client.get("/").text
    assert PATH not in home and ">Review now</a>" in home


def test_a_mock_sat_ends_the_path(client: TestClient) -> None:
    made = client.post("/api/mock", json={"preset": "custom", "questions": 1, "minutes": 5})
    assert made.status_code == 201, made.text
    assert PATH not in client.get("/").text


def test_hiding_it_lasts_in_this_browser(client: TestClient) -> None:
    home = client.get("/", headers=HTML).text
    token = home.split('name="csrf-token" content="')[1].split('"')[0]
    assert token
    hidden = client.post("/first-week/hide", data={"csrf_token": token}, follow_redirects=False)
    assert hidden.status_code == 303 and hidden.headers["location"] == "/"
    cookie = next(c for c in hidden.headers.get_list("set-cookie") if "first_week" in c)
    assert cookie.startswith("ringside_first_week_hidden=1;") and "Max-Age=31536000" in cookie
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    home = client.get("/").text
    assert PATH not in home and ">Review now</a>" in home
    # Hiding again keeps one entry; a cookie edited by hand is only ever read, never trusted.
    again = client.post("/first-week/hide", data={"csrf_token": token}, follow_redirects=False)
    assert "ringside_first_week_hidden=1;" in again.headers["set-cookie"]
    client.cookies.delete("ringside_first_week_hidden")
    client.cookies.set("ringside_first_week_hidden", "<script>.2")
    assert PATH in client.get("/").text  # not this user's id: shown again, and nothing breaks


def test_hiding_needs_the_forms_token(client: TestClient) -> None:
    client.get("/", headers=HTML)  # a browser: its cookie makes its forms carry a token
    refused = client.post("/first-week/hide", data={"csrf_token": "x"}, follow_redirects=False)
    assert refused.status_code == 403
    assert PATH in client.get("/").text

"""Study to the loop date over HTTP: the plan API, its errors, the queue following it, the pages."""

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.conftest import (
    FIXTURE_CONTENT,
    ClientFactory,
    DatabaseFactory,
    FakeClock,
    loopback_client,
)
from tests.content.helpers import card, write_topic

# 20:00 UTC on 1 March is already 2 March in Tokyo, and still 1 March in Los Angeles.
START = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def client(make_client: ClientFactory, clock: FakeClock) -> TestClient:
    return make_client(clock=clock, srs_fuzz=False)


def put(client: TestClient, **body: object):  # type: ignore[no-untyped-def]
    return client.put("/api/plan", json={"loop_date": "2026-03-22", "daily_minutes": 45, **body})


def test_no_loop_date_is_404_until_one_is_set(client: TestClient) -> None:
    assert client.get("/api/plan").status_code == 404
    response = put(client)
    assert response.status_code == 200
    plan = response.json()
    assert plan == client.get("/api/plan").json()
    assert plan["loop_date"] == "2026-03-22" and plan["days_left"] == 21
    assert plan["daily_minutes"] == 45 and plan["topics"] == []
    days = plan["days"]
    assert [d["date"] for d in days] == [str(date(2026, 3, 1) + timedelta(i)) for i in range(21)]
    assert set(days[0]) == {"date", "new_cards", "reviews", "minutes", "mock"}
    assert sum(d["new_cards"] for d in days) == 5  # every card of the fixture content
    assert all(d["minutes"] <= 45 for d in days) and days[-1]["mock"] is None
    assert any(d["mock"] for d in days)
    readiness = plan["readiness"]
    assert readiness["now"] == 0 and readiness["if_stopped"] == 0
    assert 0.85 <= readiness["if_followed"] <= 1
    assert [t["slug"] for t in readiness["by_topic"]] == ["alpha", "beta"]
    assert plan["pace"] == {
        "seconds_per_review": 30.0,
        "seconds_per_new": 90.0,
        "source": "default",
    }
    assert client.delete("/api/plan").status_code == 204
    assert client.get("/api/plan").status_code == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"loop_date": "2026-03-01"}, "loop_date"),  # today is not in the future
        ({"loop_date": "2026-02-20"}, "loop_date"),
        ({"loop_date": "2027-03-02"}, "loop_date"),  # more than a year away
        ({"loop_date": "soon"}, "loop_date"),
        ({"daily_minutes": 9}, "daily_minutes"),
        ({"daily_minutes": 601}, "daily_minutes"),
        ({"daily_minutes": "45"}, "daily_minutes"),
        ({"topics": ["alpha", "nope"]}, "topics"),
        ({"extra": 1}, "extra"),
    ],
)
def test_bad_input_is_422_naming_the_field(
    client: TestClient, body: dict[str, object], field: str
) -> None:
    response = put(client, **body)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"][:2] == ["body", field]
    assert client.get("/api/plan").status_code == 404  # nothing saved


def test_days_left_count_calendar_days_in_the_users_own_zone(client: TestClient) -> None:
    put(client)
    utc = client.get("/api/plan").json()  # UTC: 20:00 on 1 March
    assert utc["days_left"] == 21 and utc["today"] == utc["study_day"] == "2026-03-01"
    client.put("/api/settings/review", json={"timezone": "Asia/Tokyo"})
    tokyo = client.get("/api/plan").json()  # 05:00 on 2 March there: past the 04:00 boundary
    assert tokyo["days_left"] == 20 and tokyo["days"][0]["date"] == "2026-03-02"
    assert tokyo["study_day_ends"] == "2026-03-03T04:00:00+09:00"
    client.put("/api/settings/review", json={"timezone": "Asia/Tokyo", "day_boundary_hour": 6})
    early = client.get("/api/plan").json()
    # 05:00 on 2 March: the countdown follows the calendar, the first row the study day, which
    # before 06:00 is still 1 March's, and says until when.
    assert early["days_left"] == 20 and early["today"] == "2026-03-02"
    assert early["study_day"] == early["days"][0]["date"] == "2026-03-01"
    assert early["study_day_ends"] == "2026-03-02T06:00:00+09:00"
    assert len(early["days"]) == 21
    # The loop date must be after the calendar's today, whatever the study day.
    refused = put(client, loop_date="2026-03-02")
    assert refused.status_code == 422 and "2026-03-02" in refused.text
    assert put(client, loop_date="2026-03-03").status_code == 200


def test_moving_the_date_and_topics_changes_the_plan(client: TestClient, clock: FakeClock) -> None:
    put(client, topics=["beta"])
    plan = client.get("/api/plan").json()
    assert plan["topics"] == ["beta"] and sum(d["new_cards"] for d in plan["days"]) == 2
    put(client, loop_date="2026-03-05")
    moved = client.get("/api/plan").json()
    assert moved["days_left"] == 4 and sum(d["new_cards"] for d in moved["days"]) == 5
    clock.advance(days=5)
    assert client.get("/api/plan").status_code == 404  # the loop has passed


def test_the_queue_follows_the_plan(client: TestClient) -> None:
    client.put("/api/settings/review", json={"new_per_day": 1})
    assert client.get("/api/review/queue").json()["new_count"] == 1
    plan = put(client, loop_date="2026-03-04").json()
    first = plan["days"][0]["new_cards"]
    assert first > 1  # three days for five cards: more than the daily limit of one
    queue = client.get("/api/review/queue").json()
    assert queue["new_count"] == first
    card_id = queue["cards"][0]["card_id"]
    client.post(f"/api/review/{card_id}", json={"rating": 3, "idempotency_key": "k1"})
    # Grading does not move today's target: one fewer to go, not a new share.
    assert client.get("/api/review/queue").json()["new_count"] == first - 1


def test_a_topic_added_after_the_plan_joins_it(
    new_database: DatabaseFactory, clock: FakeClock, tmp_path: Path
) -> None:
    url = new_database()
    first_app = create_app(Settings(database_url=url, content_dir=FIXTURE_CONTENT), clock)
    with loopback_client(first_app) as first:
        put(first)
    content = tmp_path / "content"
    (content / "topics").mkdir(parents=True)
    for path in (FIXTURE_CONTENT / "topics").glob("*.md"):
        (content / "topics" / path.name).write_text(path.read_text())
    write_topic(content, card("gamma-one"), slug="gamma", order=3)
    with loopback_client(
        create_app(Settings(database_url=url, content_dir=content), clock)
    ) as later:
        plan = later.get("/api/plan").json()
    assert [t["slug"] for t in plan["readiness"]["by_topic"]] == ["alpha", "beta", "gamma"]
    assert sum(d["new_cards"] for d in plan["days"]) == 6


def test_home_and_settings_set_the_date_and_show_the_countdown(client: TestClient) -> None:
    home = client.get("/").text
    assert "When is your loop?" in home
    token = home.split('name="csrf-token" content="')[1].split('"')[0]
    form = {"csrf_token": token, "loop_date": "2026-03-22", "daily_minutes": "45", "back": "/"}
    saved = client.post("/plan", data=form, follow_redirects=False)
    assert saved.status_code == 303 and saved.headers["location"] == "/?plan=saved#plan"
    home = client.get("/?plan=saved").text
    assert "Loop in 21 days" in home and "Readiness now" in home
    assert "Today: " in home and 'id="plan-readiness-title"' in home  # the chart
    bad = client.post("/plan", data={**form, "daily_minutes": "5", "back": "/settings"},
                      follow_redirects=False)  # fmt: skip
    assert bad.headers["location"] == "/settings?plan_error=daily_minutes#plan"
    settings = client.get(bad.headers["location"].split("#")[0]).text
    assert "Daily minutes must be a whole number from 10 to 600." in settings
    assert client.get("/settings?plan_error=Call+us").status_code == 200  # codes only
    assert "Call us" not in client.get("/settings?plan_error=Call+us").text
    cleared = client.post("/plan", data={**form, "clear": "1"}, follow_redirects=False)
    assert cleared.headers["location"] == "/?plan=cleared#plan"
    assert client.get("/api/plan").status_code == 404


def test_the_stats_page_charts_readiness_by_topic(client: TestClient) -> None:
    assert "Readiness for your loop" not in client.get("/stats").text
    put(client)
    page = client.get("/stats").text
    assert "Readiness for your loop on 22 March" in page
    assert 'id="plan-readiness-title"' in page  # the chart, with its accessible name
    assert '<a href="/topics/alpha">Alpha topic</a></td><td>0%</td>' in page


def test_home_says_what_is_behind(client: TestClient, clock: FakeClock) -> None:
    put(client)
    client.post("/api/review/beta-derive", json={"rating": 3, "idempotency_key": "one"})
    client.post("/api/review/beta-derive", json={"rating": 3, "idempotency_key": "two"})
    assert "Behind:" not in client.get("/").text
    clock.advance(days=6)  # the card came due days ago and was not reviewed
    assert "Behind: 1 review overdue from earlier days." in client.get("/").text

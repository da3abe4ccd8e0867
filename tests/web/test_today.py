"""Today, as the person lives it: the browser's time zone taken on a first visit and offered
later, the countdown in calendar days, the study day said plainly past midnight, and today's
counts the same on home, in the plan and in the review queue."""

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.conftest import ClientFactory, FakeClock
from tests.content.helpers import card, write_topic

# 01:22 on Wednesday 2 December in Berlin (00:22 UTC): the study day is still 1 December.
BERLIN_0122 = datetime(2026, 12, 2, 0, 22, tzinfo=UTC)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(BERLIN_0122)


@pytest.fixture
def client(make_client: ClientFactory, clock: FakeClock) -> TestClient:
    return make_client(clock=clock, srs_fuzz=False)


def csrf(page: str) -> str:
    return page.split('name="csrf-token" content="')[1].split('"')[0]


def take(client: TestClient, zone: str, first_visit: bool):  # type: ignore[no-untyped-def]
    return client.post(
        "/api/settings/timezone", json={"timezone": zone, "first_visit": first_visit}
    )


def test_a_first_visit_takes_the_browsers_zone_and_later_ones_only_offer(
    client: TestClient,
) -> None:
    home = client.get("/").text
    assert 'data-zone="UTC" data-zone-chosen="0"' in home  # the script may take it
    assert client.get("/api/settings/review").json()["timezone"] == "UTC"  # the GET stored none
    first = take(client, "Europe/Berlin", first_visit=True)
    assert first.status_code == 200 and first.json() == {
        "timezone": "Europe/Berlin",
        "changed": True,
    }
    assert client.get("/api/settings/review").json()["timezone"] == "Europe/Berlin"
    assert 'data-zone="Europe/Berlin" data-zone-chosen="1"' in client.get("/").text
    # Another browser on its "first visit" (a laptop abroad): the stored zone is kept.
    again = take(client, "America/Los_Angeles", first_visit=True)
    assert again.json() == {"timezone": "Europe/Berlin", "changed": False}
    # The person accepts the offer: now it changes, and the settings page agrees.
    accepted = take(client, "America/Los_Angeles", first_visit=False)
    assert accepted.json() == {"timezone": "America/Los_Angeles", "changed": True}
    assert 'value="America/Los_Angeles"' in client.get("/settings").text


def test_a_zone_chosen_in_settings_is_never_replaced_by_a_first_visit(client: TestClient) -> None:
    client.put("/api/settings/review", json={"new_per_day": 12})  # UTC, chosen or not: stored
    assert take(client, "Europe/Berlin", first_visit=True).json()["changed"] is False
    assert client.get("/api/settings/review").json()["timezone"] == "UTC"
    # The settings page only ever offers the browser's zone: its own form holds the field.
    assert 'data-zone-chosen="1"' in client.get("/settings").text


@pytest.mark.parametrize(
    "zone", ["Mars/Olympus", "America", "../../etc/passwd", "Europe/Berlin\x00", "x" * 65, ""]
)
def test_a_name_that_is_no_time_zone_is_a_clear_422(client: TestClient, zone: str) -> None:
    refused = take(client, zone, first_visit=True)
    assert refused.status_code == 422
    detail = refused.json()["detail"]
    assert any(item["loc"][-1] == "timezone" for item in detail), detail
    assert client.get("/api/settings/review").json()["timezone"] == "UTC"
    assert take(client, "Europe/Berlin", first_visit=True).json()["changed"] is True


def test_the_offer_switches_by_a_plain_form_and_goes_back(client: TestClient) -> None:
    token = csrf(client.get("/", headers={"Accept": "text/html"}).text)
    assert token
    form = {"csrf_token": token, "timezone": "Asia/Tokyo", "next": "/settings"}
    switched = client.post("/settings/timezone", data=form, follow_redirects=False)
    assert switched.status_code == 303 and switched.headers["location"] == "/settings"
    assert client.get("/api/settings/review").json()["timezone"] == "Asia/Tokyo"
    away = {**form, "next": "https://elsewhere.example/"}
    assert (
        client.post("/settings/timezone", data=away, follow_redirects=False).headers["location"]
        == "/"
    )
    bad = client.post("/settings/timezone", data={**form, "timezone": "Nowhere/Land"})
    assert bad.status_code == 422 and "unknown time zone" in bad.text
    assert "Traceback" not in bad.text
    assert client.get("/api/settings/review").json()["timezone"] == "Asia/Tokyo"


def test_at_0122_in_berlin_the_countdown_and_the_study_day_are_plain(client: TestClient) -> None:
    take(client, "Europe/Berlin", first_visit=True)
    saved = client.put("/api/plan", json={"loop_date": "2026-12-23", "daily_minutes": 45})
    assert saved.status_code == 200, saved.text
    plan = saved.json()
    assert plan["days_left"] == 21  # 2 to 23 December: not 22
    assert plan["today"] == "2026-12-02" and plan["study_day"] == "2026-12-01"
    assert plan["days"][0]["date"] == "2026-12-01"
    home = client.get("/").text
    assert "Loop in 21 days" in home
    note = "Your study day runs until 4:00; it still counts as Tuesday 1 December."
    assert home.count(note) == 1  # on home once, above today's counts
    assert 'Tue 1 Dec <span class="muted">today</span>' in home
    assert note in client.get("/settings").text  # the settings page's plan says it too
    # The loop cannot be set for the calendar day that has just begun.
    assert (
        client.put("/api/plan", json={"loop_date": "2026-12-02", "daily_minutes": 45}).status_code
        == 422
    )


def test_after_the_boundary_nothing_needs_saying(client: TestClient, clock: FakeClock) -> None:
    take(client, "Europe/Berlin", first_visit=True)
    client.put("/api/plan", json={"loop_date": "2026-12-23", "daily_minutes": 45})
    clock.advance(hours=3)  # 04:22 in Berlin
    home = client.get("/").text
    assert "Your study day runs until" not in home and "Loop in 21 days" in home
    assert client.get("/api/plan").json()["days"][0]["date"] == "2026-12-02"


def many_cards(tmp_path: Path) -> Path:
    """Three topics of eight cards: enough for reviews and new cards on one day."""
    content = tmp_path / "content"
    for order, slug in enumerate(("one", "two", "three"), start=1):
        cards = "\n".join(card(f"{slug}-{n}") for n in range(8))
        write_topic(content, cards, slug=slug, order=order)
    return content


def counts(client: TestClient) -> dict[str, tuple[int, int]]:
    """(due, new) as home, the plan's first row (page and API) and the queue say it."""
    home = client.get("/").text
    said = re.search(r"(\d+) due and (\d+) new today", home)
    panel = re.search(r"Today: (\d+) new cards? and (\d+) reviews? left", home)
    assert said and panel, home
    first = client.get("/api/plan").json()["days"][0]
    queue = client.get("/api/review/queue").json()
    return {
        "home": (int(said[1]), int(said[2])),
        "home's plan": (int(panel[2]), int(panel[1])),
        "/api/plan": (first["reviews"], first["new_cards"]),
        "queue": (queue["due_count"], queue["new_count"]),
    }


def test_home_the_plan_and_the_queue_give_the_same_counts(
    make_client: ClientFactory, tmp_path: Path
) -> None:
    clock = FakeClock(datetime(2026, 12, 1, 18, 0, tzinfo=UTC))
    client = make_client(many_cards(tmp_path), clock=clock, srs_fuzz=False)
    take(client, "Europe/Berlin", first_visit=True)
    for key, card_id in enumerate(("one-0", "one-1", "one-2", "two-0", "two-1")):
        for step in range(2):  # learnt: past both learning steps
            graded = client.post(
                f"/api/review/{card_id}", json={"rating": 3, "idempotency_key": f"{key}-{step}"}
            )
            assert graded.status_code == 200, graded.text
            clock.advance(minutes=11)
    client.put("/api/plan", json={"loop_date": "2026-12-20", "daily_minutes": 30})
    clock.advance(days=4, hours=6)  # 01:xx in Berlin: the study day is still yesterday's
    seen = counts(client)
    due, new = seen["queue"]
    assert due > 0 and new > 0, seen  # a day with both: the case that disagreed
    assert set(seen.values()) == {(due, new)}, seen
    # Grades move all of them together: a review, and a new card learnt, whose next learning
    # step comes minutes later (the plan's forecast counted it as due today; the queue shows
    # it once it is due, and so now do the others).
    cards = client.get("/api/review/queue?limit=100").json()["cards"]
    first_review = next(c["card_id"] for c in cards if c["due"] is not None)
    first_new = next(c["card_id"] for c in cards if c["due"] is None)
    client.post(f"/api/review/{first_review}", json={"rating": 3, "idempotency_key": "r"})
    client.post(f"/api/review/{first_new}", json={"rating": 3, "idempotency_key": "n"})
    after = counts(client)
    assert after["queue"] == (due - 1, new - 1), after
    assert len(set(after.values())) == 1, after
    clock.advance(minutes=15)  # the learning step is due: back in the queue, and in every count
    stepped = counts(client)
    assert stepped["queue"] == (due, new - 1) and len(set(stepped.values())) == 1, stepped
    # Past the boundary the study day turns over; the three still agree.
    clock.advance(hours=4)
    turned = counts(client)
    assert len(set(turned.values())) == 1, turned

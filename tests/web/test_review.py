"""Review over HTTP: the API contract, the page, forms without JavaScript, embedded prompts."""

from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from tests.conftest import ClientFactory, FakeClock

START = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def client(make_client: ClientFactory, clock: FakeClock) -> TestClient:
    return make_client(clock=clock, srs_fuzz=False)


def grade(client: TestClient, card: str, rating: int, key: str, **extra: object):  # type: ignore[no-untyped-def]
    return client.post(
        f"/api/review/{card}", json={"rating": rating, "idempotency_key": key, **extra}
    )


def test_queue_contract(client: TestClient) -> None:
    body = client.get("/api/review/queue", params={"limit": 2}).json()
    assert set(body) == {"cards", "due_count", "new_count"}
    assert (body["due_count"], body["new_count"]) == (0, 5)
    first = body["cards"][0]
    assert set(first) == {"card_id", "topic", "kind", "prompt_html", "due"}
    assert first["card_id"] == "alpha-ring-bytes" and first["due"] is None
    assert "<p>" in first["prompt_html"]
    only_beta = client.get("/api/review/queue", params={"topic": "beta"}).json()
    assert [c["card_id"] for c in only_beta["cards"]] == ["beta-derive", "beta-order"]


def test_queue_validates_its_parameters(client: TestClient) -> None:
    assert client.get("/api/review/queue", params={"topic": "nope"}).status_code == 422
    assert client.get("/api/review/queue", params={"limit": 0}).status_code == 422
    assert client.get("/api/review/queue", params={"limit": "lots"}).status_code == 422


def test_grade_contract_and_idempotency(client: TestClient, clock: FakeClock) -> None:
    first = grade(client, "beta-derive", 3, "key-1")
    assert first.status_code == 200
    body = first.json()
    assert set(body) == {"card_id", "state", "due", "stability", "difficulty", "interval_days"}
    assert body["state"] == "learning" and body["interval_days"] == pytest.approx(10 / 1440)
    assert datetime.fromisoformat(body["due"]) == START + timedelta(minutes=10)
    clock.advance(minutes=1)
    again = grade(client, "beta-derive", 1, "key-1")
    assert again.json() == body  # the same key records nothing new
    queue = client.get("/api/review/queue").json()
    assert queue["new_count"] == 4


@pytest.mark.parametrize(
    ("payload", "status"),
    [
        ({"rating": 0, "idempotency_key": "k"}, 422),
        ({"rating": 5, "idempotency_key": "k"}, 422),
        ({"rating": "good", "idempotency_key": "k"}, 422),
        ({"rating": 3}, 422),
        ({"rating": 3, "idempotency_key": ""}, 422),
        ({"rating": 3, "idempotency_key": "k", "duration_ms": -1}, 422),
        ({"rating": 3, "idempotency_key": "k", "extra": 1}, 422),
    ],
)
def test_bad_grades_get_clear_4xx(
    client: TestClient, payload: dict[str, object], status: int
) -> None:
    response = client.post("/api/review/beta-derive", json=payload)
    assert response.status_code == status
    assert response.json()["detail"][0]["loc"][0] == "body"


def test_unknown_card_is_404(client: TestClient) -> None:
    response = grade(client, "no-such-card", 3, "k")
    assert response.status_code == 404 and "no-such-card" in response.json()["detail"]


def test_undo(client: TestClient) -> None:
    assert client.post("/api/review/undo").status_code == 404
    grade(client, "alpha-busbw", 4, "a")
    grade(client, "beta-derive", 2, "b")
    assert client.post("/api/review/undo").json() == {"card_id": "beta-derive", "rating": 2}
    assert client.get("/api/review/queue").json()["new_count"] == 4


def test_review_page_shows_the_card_and_four_intervals(client: TestClient) -> None:
    page = client.get("/review")
    assert page.status_code == 200
    html = page.text
    assert 'data-card="alpha-ring-bytes"' in html
    for name, interval in (("Again", "1m"), ("Hard", "6m"), ("Good", "10m"), ("Easy", "8d")):
        assert f"{name}<small>{interval}</small>" in html
    assert "0 done · 0 due · 5 new" in html and "<kbd>?</kbd>" in html


def test_grading_by_form_without_javascript(client: TestClient) -> None:
    page = client.get("/review").text
    key = page.split('name="idempotency_key" value="')[1].split('"')[0]
    response = client.post(
        "/review/alpha-ring-bytes",
        data={"rating": "4", "idempotency_key": key, "next": "/review"},
        follow_redirects=False,
    )
    assert response.status_code == 303 and response.headers["location"] == "/review"
    assert 'data-card="alpha-busbw"' in client.get("/review").text
    undo = client.post("/review-undo", follow_redirects=False)
    assert undo.headers["location"] == "/review?card=alpha-ring-bytes"


def test_form_redirects_stay_on_this_site(client: TestClient) -> None:
    response = client.post(
        "/review/alpha-busbw",
        data={"rating": "3", "idempotency_key": "x", "next": "//evil.example/"},
        follow_redirects=False,
    )
    assert response.headers["location"] == "/review"


def test_fragment_is_the_session_partial(client: TestClient) -> None:
    fragment = client.get("/review", params={"fragment": 1, "card": "beta-order"}).text
    assert fragment.lstrip().startswith('<div id="review-session"')
    assert 'data-card="beta-order"' in fragment and "<html" not in fragment


def test_done_for_today_says_when_the_next_card_is_due(
    make_client: ClientFactory, clock: FakeClock
) -> None:
    client = make_client(clock=clock, srs_fuzz=False)
    client.put("/api/settings/review", json={"new_per_day": 1})
    grade(client, "alpha-ring-bytes", 3, "k")
    clock.advance(minutes=1)
    page = client.get("/review").text
    assert "Done for today" in page and "in 9 minutes" in page


def test_embedded_prompts_grade_from_the_topic_page(client: TestClient) -> None:
    html = client.get("/topics/alpha").text
    assert html.count('class="embedded-grade"') == 3
    key = html.split('name="idempotency_key" value="')[1].split('"')[0]
    response = client.post(
        "/review/alpha-ring-bytes",
        data={"rating": "3", "idempotency_key": key, "source": "embedded",
              "next": "/topics/alpha#card-alpha-ring-bytes"},
        follow_redirects=False,
    )  # fmt: skip
    assert response.headers["location"] == "/topics/alpha#card-alpha-ring-bytes"
    api = grade(client, "alpha-busbw", 4, "e", source="embedded")
    assert api.status_code == 200
    assert client.get("/api/stats").json()["total_reviews"] == 2


def test_settings_api_and_rescheduling(client: TestClient, clock: FakeClock) -> None:
    assert client.get("/api/settings/review").json() == {
        "desired_retention": 0.9,
        "new_per_day": 10,
        "max_reviews_per_day": 200,
        "day_boundary_hour": 4,
        "timezone": "UTC",
    }
    before = grade(client, "beta-derive", 4, "r").json()
    changed = client.put("/api/settings/review", json={"desired_retention": 0.8})
    assert changed.status_code == 200 and changed.json()["desired_retention"] == 0.8
    after = client.get("/api/stats").json()["forecast"]
    due_days = [d["day"] for d in after if d["count"]]
    assert due_days and due_days[0] > before["due"][:10]  # lower retention: due later


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"desired_retention": 0.99}, "desired_retention"),
        ({"new_per_day": -1}, "new_per_day"),
        ({"day_boundary_hour": 24}, "day_boundary_hour"),
        ({"timezone": "Mars/Olympus"}, "timezone"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_settings_are_refused(
    client: TestClient, payload: dict[str, object], field: str
) -> None:
    response = client.put("/api/settings/review", json=payload)
    assert response.status_code == 422 and response.json()["detail"][0]["loc"][-1] == field


def test_settings_page_keeps_typed_values_on_error(client: TestClient) -> None:
    form = {
        "desired_retention": "0.5",
        "new_per_day": "15",
        "max_reviews_per_day": "lots",
        "day_boundary_hour": "4",
        "timezone": "Europe/London",
    }
    page = client.post("/settings", data=form)
    assert page.status_code == 422
    assert 'value="lots"' in page.text and "Use a number." in page.text
    form["max_reviews_per_day"] = "300"
    form["desired_retention"] = "0.85"
    saved = client.post("/settings", data=form, follow_redirects=False)
    assert saved.status_code == 303
    assert client.get("/api/settings/review").json()["timezone"] == "Europe/London"


def test_stats_page_and_api(client: TestClient) -> None:
    grade(client, "alpha-busbw", 4, "s")
    body = client.get("/api/stats").json()
    assert body["total_reviews"] == 1 and body["streak"] == 1
    assert body["counts"]["review"] == 1 and body["counts"]["new"] == 4
    assert len(body["heatmap"]) == 365 and len(body["forecast"]) == 30
    page = client.get("/stats")
    assert page.status_code == 200
    assert 'class="heatmap"' in page.text and "Mastery by topic" in page.text
    assert "2026-03-02: 1 review" in page.text


def test_home_and_topic_pages_show_todays_work_and_mastery(client: TestClient) -> None:
    home = client.get("/").text
    assert "0 due and 5 new today" in home and 'href="/review"' in home
    assert "mastered" not in home
    grade(client, "beta-derive", 4, "m")
    home = client.get("/").text
    assert "4 new today; 1 done" in home
    assert "% mastered" in home  # beta now has recall probability above zero
    topic = client.get("/topics/beta").text
    assert "mastered: review" in topic and 'href="/review?topic=beta"' in topic

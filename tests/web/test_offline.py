"""Review anywhere over HTTP: the manifest and icons, the service worker, the cards kept for
offline review, and the batch that sends offline grades back."""

import json
import re
import struct
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app import PROJECT_ROOT
from app.srs import offline
from tests.conftest import ClientFactory, FakeClock

START = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
KEY = "offline-tests-" + "abcdefghij" * 5


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def client(make_client: ClientFactory, clock: FakeClock) -> TestClient:
    return make_client(clock=clock)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_manifest_makes_ringside_installable(client: TestClient) -> None:
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/manifest+json")
    body = response.json()
    assert body["name"].startswith("Ringside") and body["short_name"] == "Ringside"
    assert body["start_url"] == "/review" and body["display"] == "standalone"
    assert re.fullmatch(r"#[0-9a-f]{6}", body["theme_color"])
    sizes = {}
    for icon in body["icons"]:
        assert client.get(icon["src"]).status_code == 200, icon
        if icon["type"] == "image/png":
            file = PROJECT_ROOT / icon["src"].lstrip("/")
            assert png_size(file) == tuple(map(int, icon["sizes"].split("x"))), icon
            sizes.setdefault(icon.get("purpose", "any"), set()).add(icon["sizes"])
    assert sizes == {"any": {"192x192", "512x512"}, "maskable": {"192x192", "512x512"}}


@pytest.mark.parametrize("path", ["/", "/review", "/mock", "/stats", "/topics/alpha", "/offline"])
def test_every_page_links_the_manifest_and_the_worker(client: TestClient, path: str) -> None:
    page = client.get(path).text
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    assert "/static/js/sw-register.js" in page
    assert 'name="theme-color"' in page and "prefers-color-scheme: dark" in page


def test_service_worker_is_served_from_the_root_and_named_after_the_version(
    client: TestClient,
) -> None:
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert response.headers["service-worker-allowed"] == "/"
    version = client.get("/openapi.json").json()["info"]["version"]
    assert re.search(rf'const VERSION = "{re.escape(version)}-[0-9a-f]{{10}}";', response.text)
    assets = json.loads(re.search(r"const ASSETS = (\[.*?\]);", response.text).group(1))  # type: ignore[union-attr]
    assert "/static/vendor/ts-fsrs/ts-fsrs.umd.js" in assets
    assert "/static/vendor/stix-two-math/STIXTwoMath-Regular.woff2" in assets
    assert not [a for a in assets if "swagger-ui" in a]  # the API reference is online only
    for asset in assets:  # every one exists, or installing the worker would fail
        assert client.get(asset).status_code == 200, asset
    assert client.get("/review/shell").status_code == 200
    assert 'data-shell="1"' in client.get("/review/shell").text


def test_vendored_ts_fsrs_has_its_licence() -> None:
    vendor = PROJECT_ROOT / "static" / "vendor" / "ts-fsrs"
    assert "MIT License" in (vendor / "LICENSE").read_text()
    assert 'const version="5.4.2"' in (vendor / "ts-fsrs.umd.js").read_text()


def grade(client: TestClient, card: str, rating: int, key: str) -> None:
    response = client.post(f"/api/review/{card}", json={"rating": rating, "idempotency_key": key})
    assert response.status_code == 200


def test_offline_cards_are_todays_queue_then_the_next_days(
    client: TestClient, clock: FakeClock
) -> None:
    grade(client, "alpha-busbw", 3, "a1")
    clock.advance(minutes=10)
    grade(client, "alpha-busbw", 3, "a2")  # a review card now, due in a few days
    grade(client, "beta-derive", 1, "b")  # a learning card, due in a minute
    clock.advance(minutes=2)
    response = client.get("/api/review/offline", params={"days": 7})
    assert response.headers["content-encoding"] == "gzip"
    body = response.json()
    ids = [card["card_id"] for card in body["cards"]]
    assert ids[:2] == ["beta-derive", "alpha-ring-bytes"]  # today's queue first
    assert len(ids) == 5 and "alpha-busbw" in ids  # the review card comes due within 7 days
    cards = {card["card_id"]: card for card in body["cards"]}
    assert cards["alpha-ring-bytes"]["state"] is None and cards["alpha-ring-bytes"]["in_queue"]
    later = cards["alpha-busbw"]
    assert later["state"]["state"] == 2 and later["state"]["reps"] == 2 and not later["in_queue"]
    assert later["fuzz_draws"] == offline.fuzz_draws(1, "alpha-busbw", 2)
    assert len(later["fuzz_draws"]) == offline.DRAWS
    assert 'class="card-question"' in later["html"] and 'class="rubric"' in later["html"]
    assert body["scheduler"]["learning_steps_minutes"] == [1.0, 10.0]
    assert body["scheduler"]["desired_retention"] == 0.9
    assert (body["done_today"], body["due_count"], body["new_count"]) == (3, 1, 3)
    assert len(body["day_ends"]) == 7
    assert datetime.fromisoformat(body["day_ends"][0]) == datetime(2026, 3, 3, 4, tzinfo=UTC)

    # The queue in the order the review page shows it: the device takes it as it is.
    page_queue = client.get("/api/review/queue").json()["cards"]
    assert body["queue"] == [card["card_id"] for card in page_queue]
    assert all(cards[card_id]["in_queue"] for card_id in body["queue"])
    assert all(cards[card_id]["available_at"] is None for card_id in body["queue"])
    # A card not in today's queue says when it joins it: a review at the start of its day.
    due = datetime.fromisoformat(later["state"]["due"])
    joins = datetime.fromisoformat(later["available_at"])
    assert joins <= due and joins.hour == 4 and (due - joins) < timedelta(days=1)

    short = client.get("/api/review/offline", params={"days": 1}).json()
    assert "alpha-busbw" not in [card["card_id"] for card in short["cards"]]
    for bad in ({"days": 0}, {"days": 8}, {"limit": 0}):
        assert client.get("/api/review/offline", params=bad).status_code == 422


def test_offline_cards_of_some_topics_only(client: TestClient, clock: FakeClock) -> None:
    body = client.get("/api/review/offline", params={"topic": "beta"}).json()
    assert body["topics"] == ["beta"]
    assert body["queue"] == ["beta-derive", "beta-order"]
    assert {card["topic"] for card in body["cards"]} == {"beta"}
    refused = client.get("/api/review/offline", params={"topic": "nope"})
    assert refused.status_code == 422 and "no topic 'nope'" in refused.text


def test_a_card_that_can_be_checked_carries_the_servers_answer_limit(client: TestClient) -> None:
    from app.mock.sessions import MAX_ANSWER

    html = client.get("/cards/alpha-ring-bytes").text
    assert f'data-answer-max="{MAX_ANSWER}"' in html
    assert "20000" not in (PROJECT_ROOT / "static" / "js" / "check.js").read_text()
    too_long = {"answer": "x" * (MAX_ANSWER + 1)}
    assert client.post("/api/cards/alpha-ring-bytes/check", json=too_long).status_code == 422


def test_sync_applies_grades_in_order_and_each_once(client: TestClient, clock: FakeClock) -> None:
    given = START - timedelta(hours=2)
    grades = [
        {
            "card_id": "alpha-busbw",
            "rating": 3,
            "idempotency_key": "s1",
            "duration_ms": 3000,
            "reviewed_at": given.isoformat(),
        },
        {
            "card_id": "alpha-busbw",
            "rating": 3,
            "idempotency_key": "s2",
            "reviewed_at": (given + timedelta(minutes=10)).isoformat(),
        },
        {"card_id": "no-such-card", "rating": 3, "idempotency_key": "s3"},
        {"card_id": "beta-derive", "rating": 9, "idempotency_key": "s4"},
        {"card_id": "beta-derive", "rating": 3, "idempotency_key": "s5", "reviewed_at": "soon"},
        {
            "card_id": "alpha-busbw",
            "rating": 1,
            "idempotency_key": "s6",
            "reviewed_at": (given + timedelta(minutes=5)).isoformat(),
        },
    ]
    first = client.post("/api/review/sync", json={"grades": grades})
    assert first.status_code == 200
    results = first.json()["results"]
    assert [r["status"] for r in results] == [200, 200, 404, 422, 422, 409]
    assert [r["idempotency_key"] for r in results] == ["s1", "s2", "s3", "s4", "s5", "s6"]
    assert results[1]["grade"]["state"] == "review"
    assert datetime.fromisoformat(results[0]["grade"]["due"]) == given + timedelta(minutes=10)
    assert results[3]["detail"][0]["loc"] == ["rating"]
    assert results[4]["detail"][0]["loc"] == ["reviewed_at"]
    assert "not applied" in results[5]["detail"]
    assert client.get("/api/stats").json()["total_reviews"] == 2

    # The answer was lost and the batch is sent again: nothing is recorded twice.
    again = client.post("/api/review/sync", json={"grades": grades[:2]}).json()["results"]
    assert [r["grade"] for r in again] == [r["grade"] for r in results[:2]]
    assert client.get("/api/stats").json()["total_reviews"] == 2


def test_sync_answers_each_refused_grade_as_the_grade_endpoint_does(client: TestClient) -> None:
    old = (START - timedelta(days=8)).isoformat()
    grades = [
        {"card_id": "alpha-busbw", "rating": 3, "idempotency_key": "r1"},
        {"card_id": "beta-derive", "rating": 3, "idempotency_key": "r1"},
        {"card_id": "beta-derive", "rating": 3, "idempotency_key": "r2", "reviewed_at": old},
    ]
    results = client.post("/api/review/sync", json={"grades": grades}).json()["results"]
    for sent, result in zip(grades[1:], results[1:], strict=True):
        body = {key: value for key, value in sent.items() if key != "card_id"}
        alone = client.post(f"/api/review/{sent['card_id']}", json=body)
        assert (result["status"], result["detail"]) == (422, alone.json()["detail"])
    assert results[1]["detail"] == [
        {
            "loc": ["body", "idempotency_key"],
            "msg": "already used to grade alpha-busbw; send a new key for each grade",
            "type": "value_error",
        }
    ]
    assert results[2]["detail"] == [
        {
            "loc": ["body", "reviewed_at"],
            "msg": "is more than 7 days ago: a grade that old is not applied",
            "type": "value_error",
        }
    ]


def test_sync_refuses_an_oversized_or_malformed_batch(client: TestClient) -> None:
    grade_ = {"card_id": "alpha-busbw", "rating": 3, "idempotency_key": "k"}
    too_many = client.post("/api/review/sync", json={"grades": [grade_] * 101})
    assert too_many.status_code == 422
    assert client.post("/api/review/sync", json={"grade": []}).status_code == 422


def test_accounts_mode_serves_manifest_and_worker_to_everyone_and_cards_to_members(
    make_client: ClientFactory,
) -> None:
    client = make_client(auth_mode="accounts", secret_key=KEY)
    assert client.get("/manifest.webmanifest").status_code == 200
    assert client.get("/sw.js").status_code == 200
    assert client.get("/api/review/offline").status_code == 401
    assert client.post("/api/review/sync", json={"grades": []}).status_code == 401
    assert client.get("/review/shell", follow_redirects=False).status_code == 303


def test_a_grade_given_under_another_account_is_not_applied(
    make_client: ClientFactory, clock: FakeClock
) -> None:
    client = make_client(clock=clock)
    owner = client.get("/api/review/offline").json()["owner"]
    other = make_client(clock=clock, secret_key=KEY).get("/api/review/offline").json()["owner"]
    assert owner != other  # the same user id under another key names another owner
    grades = [
        {"card_id": "alpha-busbw", "rating": 3, "idempotency_key": "mine", "owner": owner},
        {"card_id": "beta-derive", "rating": 3, "idempotency_key": "theirs", "owner": other},
    ]
    results = client.post("/api/review/sync", json={"grades": grades}).json()["results"]
    assert [r["status"] for r in results] == [200, 409]
    assert "another account" in results[1]["detail"]
    assert client.get("/api/stats").json()["total_reviews"] == 1


def test_the_worker_is_never_cached_by_the_browser(client: TestClient) -> None:
    response = client.get("/sw.js")
    assert response.headers.get_list("cache-control") == ["no-store"]

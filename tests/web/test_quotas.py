"""Per-member caps: stored audio, mock interviews per day, imports per day (app.quotas)."""

from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from tests.conftest import ClientFactory, FakeClock
from tests.web.test_mock_audio import HEADER, chunk_rows, put, started

START = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


def test_stored_audio_is_capped_per_member(make_client: ClientFactory, clock: FakeClock) -> None:
    client = make_client(clock=clock, srs_fuzz=False, quota_audio_mb=1)
    mock_id = started(client)
    assert put(client, mock_id, 0, HEADER + b"x" * 600_000).status_code == 200
    full = put(client, mock_id, 1, b"y" * 600_000)
    assert full.status_code == 413
    assert "at most 1 MB" in full.json()["detail"] and "is kept" in full.json()["detail"]
    assert chunk_rows(client) == 1
    # The settings page says how much is used.
    page = client.get("/settings", headers={"Accept": "text/html"}).text
    assert "0.6 MB of 1 MB" in page
    # An import that would pass the cap is refused whole.
    document = client.get("/api/export").json()
    fresh = make_client(clock=clock, srs_fuzz=False, quota_audio_mb=1)
    assert fresh.post("/api/import", json=document).status_code == 200
    document["mock_sessions"][0]["created_at"] = "2026-04-02T09:00:00Z"  # a second session
    refused = fresh.post("/api/import", json=document)
    assert refused.status_code == 413 and "at most 1 MB" in refused.json()["detail"]
    assert len(fresh.get("/api/mock").json()) == 1


def test_mock_sessions_per_day_are_capped(make_client: ClientFactory, clock: FakeClock) -> None:
    client = make_client(clock=clock, srs_fuzz=False, quota_mock_sessions_per_day=3)
    body = {"preset": "custom", "questions": 1, "minutes": 5}
    for _ in range(3):
        assert client.post("/api/mock", json=body).status_code == 201
    refused = client.post("/api/mock", json=body)
    assert refused.status_code == 429
    assert "at most 3 mock interviews in 24 hours" in refused.json()["detail"]
    assert 0 < int(refused.headers["retry-after"]) <= 24 * 3600
    form = client.post("/mock", data={"preset": "lightning"}, headers={"Accept": "text/html"})
    assert form.status_code == 429 and "at most 3 mock interviews" in form.text
    clock.advance(hours=24, seconds=1)
    assert client.post("/api/mock", json=body).status_code == 201


def test_imports_per_day_are_capped(make_client: ClientFactory, clock: FakeClock) -> None:
    client: TestClient = make_client(clock=clock, srs_fuzz=False, quota_imports_per_day=2)
    document = client.get("/api/export").json()
    assert client.post("/api/import", json=document).status_code == 200
    bad = {**document, "format": 99}
    assert client.post("/api/import", json=bad).status_code == 422  # refused: not counted
    assert client.post("/api/import", json=document).status_code == 200
    refused = client.post("/api/import", json=document)
    assert refused.status_code == 429 and "at most 2 files in 24 hours" in refused.json()["detail"]
    page = client.get("/settings", headers={"Accept": "text/html"}).text
    assert "2 of 2" in page

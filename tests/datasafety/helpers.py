"""Give a user a history worth exporting: settings, reviews, a drill attempt, mock interviews."""

import json
from datetime import UTC, datetime
from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import FakeClock

START = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)


def grade(client: TestClient, card: str, rating: int, key: str) -> None:
    response = client.post(f"/api/review/{card}", json={"rating": rating, "idempotency_key": key})
    assert response.status_code == 200, response.text


def populate(client: TestClient, clock: FakeClock) -> None:
    """A week of use, every kind of record included, with the clock moving between actions."""
    saved = client.put("/api/settings/review", json={"new_per_day": 7, "timezone": "Europe/London"})
    assert saved.status_code == 200, saved.text
    grade(client, "alpha-ring-bytes", 3, "k1")
    clock.advance(minutes=11)
    grade(client, "alpha-ring-bytes", 3, "k2")
    grade(client, "beta-derive", 1, "k3")
    clock.advance(days=1)
    grade(client, "beta-derive", 4, "k4")
    attempt = client.post(
        "/api/cards/alpha-drill-bytes/attempts",
        json={"seed": 42, "answer": "3 GB", "duration_ms": 9000},
    )
    assert attempt.status_code == 201, attempt.text
    clock.advance(hours=2)
    finished = client.post(
        "/api/mock",
        json={
            "preset": "custom",
            "questions": 1,
            "minutes": 5,
            "followups": False,
            "topics": ["alpha"],  # its one open card: alpha-ring-bytes
        },
    ).json()
    client.post(f"/api/mock/{finished['id']}/start")
    answer = {"position": 1, "part": "main", "text": "reduce-scatter, all-gather"}
    client.post(f"/api/mock/{finished['id']}/submit", json=answer)
    graded = client.post(f"/api/mock/{finished['id']}/grade", json={"points": [0], "rating": 3})
    assert graded.status_code == 200, graded.text
    clock.advance(minutes=30)
    active = client.post("/api/mock", json={"preset": "custom", "questions": 1, "minutes": 10})
    client.post(f"/api/mock/{active.json()['id']}/start")
    client.put(f"/api/mock/{active.json()['id']}/answer", json={"part": "main", "text": "draft"})
    clock.advance(minutes=1)


def export_text(client: TestClient) -> str:
    response = client.get("/api/export")
    assert response.status_code == 200, response.text
    return response.text


def export_json(client: TestClient) -> dict[str, Any]:
    return json.loads(export_text(client))  # type: ignore[no-any-return]

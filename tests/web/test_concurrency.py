"""Concurrent grading against a real server: duplicates record once, nothing is lost, no 500."""

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from sqlalchemy import func, select

from app.config import Settings
from app.main import create_app
from app.models import CardState, ReviewLog
from tests.conftest import FIXTURE_CONTENT, DatabaseFactory
from tests.servers import serving

pytestmark = pytest.mark.slow


@pytest.fixture
def server(new_database: DatabaseFactory) -> Iterator[tuple[str, object]]:
    """A real server on a fresh database: SQLite, or PostgreSQL when the suite runs there."""
    app = create_app(Settings(database_url=new_database(), content_dir=FIXTURE_CONTENT))
    with serving(app) as base:
        yield base, app.state.database


def post_many(url: str, bodies: list[dict[str, object]]) -> list[httpx.Response]:
    with httpx.Client(timeout=30) as client, ThreadPoolExecutor(len(bodies)) as pool:
        return list(pool.map(lambda body: client.post(url, json=body), bodies))


def count(database: object, model: type) -> int:
    with database.read_session() as session:  # type: ignore[attr-defined]
        return int(session.scalar(select(func.count()).select_from(model)))


def test_twenty_concurrent_duplicates_record_one_review(server: tuple[str, object]) -> None:
    base, database = server
    body = {"rating": 3, "idempotency_key": "same-key", "duration_ms": 900}
    responses = post_many(f"{base}/api/review/alpha-busbw", [body] * 20)
    assert {r.status_code for r in responses} == {200}
    assert len({r.text for r in responses}) == 1  # every duplicate answers the first result
    assert count(database, ReviewLog) == 1


def test_two_tabs_grading_one_card_lose_nothing(server: tuple[str, object]) -> None:
    base, database = server
    bodies = [{"rating": 3, "idempotency_key": f"tab-{i}"} for i in range(12)]
    responses = post_many(f"{base}/api/review/beta-derive", bodies)
    assert {r.status_code for r in responses} == {200}
    assert count(database, ReviewLog) == 12
    with database.read_session() as session:  # type: ignore[attr-defined]
        assert session.scalars(select(CardState.reps)).one() == 12


def test_two_undos_at_once_take_back_the_two_latest_grades(server: tuple[str, object]) -> None:
    base, database = server
    with httpx.Client(base_url=base, timeout=30) as client:
        for n, card in enumerate(["alpha-busbw", "beta-derive", "beta-order"]):
            body = {"rating": 3, "idempotency_key": f"grade-{n}"}
            assert client.post(f"/api/review/{card}", json=body).status_code == 200
    with httpx.Client(timeout=30) as client, ThreadPoolExecutor(2) as pool:
        responses = list(pool.map(lambda _: client.post(f"{base}/api/review/undo"), range(2)))
    assert sorted(r.json()["card_id"] for r in responses) == ["beta-derive", "beta-order"]
    with database.read_session() as session:  # type: ignore[attr-defined]
        assert session.scalars(select(ReviewLog.card_id)).all() == ["alpha-busbw"]
        assert session.scalars(select(CardState.card_id)).all() == ["alpha-busbw"]

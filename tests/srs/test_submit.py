"""A grade as a client sends it: the `reviewed_at` window, time order and reused keys."""

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import func, select

from app import migrate
from app.auth.users import ensure_local_user
from app.db import Database
from app.errors import ConflictError, FieldError
from app.models import ReviewLog
from app.srs import review, submit
from app.srs.submit import CLOCK_SKEW, MAX_GRADE_AGE, Grade, review_time

NOW = datetime(2026, 3, 2, 15, 0, tzinfo=UTC)


def database(tmp_path: Path) -> tuple[Database, int]:
    db = Database(f"sqlite:///{tmp_path}/srs.db")
    migrate.upgrade(db.engine)
    with db.write_session() as session:
        user_id = ensure_local_user(session).id
    return db, user_id


def send(
    db: Database, user_id: int, card_id: str, grade: Grade, now: datetime, *, fuzz: bool
) -> review.GradeResult:
    """One grade in its own write transaction, as a route's write session gives it."""
    with db.write_session() as session:
        return submit.submit(session, user_id, card_id, grade, now, fuzz=fuzz)


def logs(db: Database) -> int:
    with db.read_session() as session:
        return session.scalar(select(func.count()).select_from(ReviewLog)) or 0


def test_no_reviewed_at_means_now() -> None:
    assert review_time(None, NOW) == NOW


@pytest.mark.parametrize(
    "given",
    [NOW - timedelta(hours=3), NOW - MAX_GRADE_AGE, NOW - timedelta(seconds=1)],
)
def test_a_time_in_the_last_7_days_counts_as_given(given: datetime) -> None:
    assert review_time(given, NOW) == given


def test_any_time_zone_is_read_as_the_same_moment() -> None:
    given = (NOW - timedelta(hours=2)).astimezone(ZoneInfo("America/New_York"))
    counted = review_time(given, NOW)
    assert counted == NOW - timedelta(hours=2)
    assert counted.tzinfo == UTC


@pytest.mark.parametrize("ahead", [timedelta(seconds=1), CLOCK_SKEW])
def test_a_device_clock_a_little_ahead_counts_as_now(ahead: timedelta) -> None:
    assert review_time(NOW + ahead, NOW) == NOW


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        (NOW + CLOCK_SKEW + timedelta(seconds=1), "is in the future"),
        (NOW + timedelta(days=1), "is in the future"),
        (NOW - MAX_GRADE_AGE - timedelta(seconds=1), "is more than 7 days ago"),
    ],
)
def test_a_time_outside_the_window_is_refused_naming_the_field(
    given: datetime, problem: str
) -> None:
    with pytest.raises(FieldError) as refused:
        review_time(given, NOW)
    assert refused.value.field == "reviewed_at"
    assert refused.value.message.startswith(problem)
    assert refused.value.code == "value_error"


def test_submit_schedules_from_reviewed_at(tmp_path: Path) -> None:
    db, user_id = database(tmp_path)
    given = NOW - timedelta(days=2)
    result = send(db, user_id, "c", Grade(3, "k1", reviewed_at=given), NOW, fuzz=False)
    assert result.due == given + timedelta(minutes=10)  # Good on a new card: a 10-minute step
    assert logs(db) == 1


def test_submit_refuses_a_grade_older_than_the_latest_review(tmp_path: Path) -> None:
    db, user_id = database(tmp_path)
    send(db, user_id, "c", Grade(3, "k1"), NOW, fuzz=False)
    earlier = Grade(3, "k2", reviewed_at=NOW - timedelta(hours=1))
    with pytest.raises(review.OutOfOrderError) as refused:
        send(db, user_id, "c", earlier, NOW, fuzz=False)
    assert isinstance(refused.value, ConflictError)
    assert "was last reviewed at" in refused.value.message
    assert logs(db) == 1


def test_a_server_stamped_grade_is_not_held_to_time_order(tmp_path: Path) -> None:
    db, user_id = database(tmp_path)
    send(db, user_id, "c", Grade(3, "k1"), NOW, fuzz=False)
    send(db, user_id, "c", Grade(3, "k2"), NOW - timedelta(seconds=1), fuzz=False)
    assert logs(db) == 2


def test_a_resent_key_returns_the_first_result(tmp_path: Path) -> None:
    db, user_id = database(tmp_path)
    first = send(db, user_id, "c", Grade(3, "k1"), NOW, fuzz=False)
    again = send(db, user_id, "c", Grade(1, "k1"), NOW + timedelta(minutes=1), fuzz=False)
    assert again == first
    assert logs(db) == 1


def test_a_key_reused_for_another_card_is_a_field_error(tmp_path: Path) -> None:
    db, user_id = database(tmp_path)
    send(db, user_id, "c", Grade(3, "k1"), NOW, fuzz=False)
    with pytest.raises(review.KeyReused) as refused:
        send(db, user_id, "d", Grade(3, "k1"), NOW, fuzz=False)
    assert isinstance(refused.value, FieldError)
    assert refused.value.field == "idempotency_key"
    assert refused.value.message == "already used to grade c; send a new key for each grade"
    assert logs(db) == 1


def test_a_bad_rating_is_a_field_error(tmp_path: Path) -> None:
    db, user_id = database(tmp_path)
    with pytest.raises(FieldError) as refused:
        send(db, user_id, "c", Grade(5, "k1"), NOW, fuzz=False)
    assert refused.value.field == "rating"
    assert logs(db) == 0


def test_a_key_inserted_by_a_racing_send_is_read_back_and_the_transaction_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two sends of one key at once: the second's lookup saw nothing (the first had not
    committed), so its insert fails on the key. Only its savepoint is rolled back: it answers
    with the first result and the rest of the request's transaction still commits."""
    db, user_id = database(tmp_path)
    first = send(db, user_id, "c", Grade(3, "k1"), NOW, fuzz=False)
    real_lookup = review.find_by_key
    lookups: list[str] = []

    def not_yet_committed(session, user_id, key):  # type: ignore[no-untyped-def]
        lookups.append(key)
        return None if len(lookups) == 1 else real_lookup(session, user_id, key)

    monkeypatch.setattr(review, "find_by_key", not_yet_committed)
    with db.write_session() as session:
        again = submit.submit(session, user_id, "c", Grade(1, "k1"), NOW, fuzz=False)
        other = submit.submit(session, user_id, "d", Grade(3, "k2"), NOW, fuzz=False)
    assert again == first
    assert lookups == ["k1", "k1", "k2"]  # the grade's own check, the read-back, the next grade
    assert other.card_id == "d"
    assert logs(db) == 2  # "k1" once, and "k2": the transaction was not lost with the savepoint

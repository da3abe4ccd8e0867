"""Grading and undo: the card's new state and its log row are written in one transaction.

Callers pass an open write session (see app.db.Database.write_session); nothing here commits.
An idempotency key makes a retried grade return the first result instead of grading twice.
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fsrs import State
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.models import CardState, ReviewLog
from app.srs import scheduling
from app.srs.days import as_utc

SOURCES = ("review", "embedded", "mock", "drill")


@dataclass(frozen=True)
class GradeResult:
    card_id: str
    rating: int
    state: str  # "learning", "review" or "relearning"
    due: datetime
    stability: float | None
    difficulty: float | None
    interval_days: float
    log_id: int


def find_by_key(session: Session, user_id: int, key: str) -> GradeResult | None:
    """The result of an earlier grade sent with the same idempotency key."""
    log = session.scalars(
        select(ReviewLog).where(ReviewLog.user_id == user_id, ReviewLog.idempotency_key == key)
    ).one_or_none()
    return _result(log) if log else None


def grade(
    session: Session,
    user_id: int,
    card_id: str,
    rating: int,
    now: datetime,
    *,
    desired_retention: float,
    idempotency_key: str | None = None,
    duration_ms: int | None = None,
    source: str = "review",
    fuzz: bool = True,
) -> GradeResult:
    """Grade one card (1 Again … 4 Easy) at `now`; the interval is the one its button showed."""
    if rating not in scheduling.RATING_NAMES:
        raise ValueError(f"rating: must be 1 (Again), 2 (Hard), 3 (Good) or 4 (Easy), got {rating}")
    if source not in SOURCES:
        raise ValueError(f"source: must be one of {', '.join(SOURCES)}")
    if idempotency_key and (earlier := find_by_key(session, user_id, idempotency_key)):
        return earlier

    row = session.scalars(
        select(CardState)
        .where(CardState.user_id == user_id, CardState.card_id == card_id)
        .with_for_update()
    ).one_or_none()
    reps = row.reps if row else 0
    seed = scheduling.fuzz_seed(user_id, card_id, reps)
    outcome = scheduling.outcome(row, rating, now, desired_retention, seed, fuzz)
    before = scheduling.snapshot(row)
    prior_interval = scheduling.scheduled_interval_days(row)
    lapsed = row is not None and row.state == State.Review and rating == 1

    if row is None:
        row = CardState(user_id=user_id, card_id=card_id, reps=0, lapses=0)
        session.add(row)
    card = outcome.card
    row.state = int(card.state)
    row.step = card.step
    row.stability = card.stability
    row.difficulty = card.difficulty
    row.due = card.due
    row.last_review = card.last_review
    row.reps = reps + 1
    row.lapses = (row.lapses or 0) + (1 if lapsed else 0)

    log = ReviewLog(
        user_id=user_id,
        card_id=card_id,
        rating=rating,
        reviewed_at=now,
        duration_ms=duration_ms,
        source=source,
        was_new=before is None,
        idempotency_key=idempotency_key,
        state_before=before,
        state_after=scheduling.snapshot(row),
        interval_days=outcome.interval.total_seconds() / 86400,
        prior_interval_days=prior_interval,
    )
    session.add(log)
    session.flush()  # a concurrent duplicate key fails here, inside the caller's transaction
    return _result(log)


def _result(log: ReviewLog) -> GradeResult:
    after: dict[str, Any] = log.state_after
    return GradeResult(
        card_id=log.card_id,
        rating=log.rating,
        state=State(after["state"]).name.lower(),
        due=as_utc(datetime.fromisoformat(after["due"])),
        stability=after["stability"],
        difficulty=after["difficulty"],
        interval_days=log.interval_days,
        log_id=log.id,
    )


@dataclass(frozen=True)
class UndoResult:
    card_id: str
    rating: int


def undo(session: Session, user_id: int) -> UndoResult | None:
    """Take back the user's latest grade: its log row goes, the card's state comes back."""
    log = session.scalars(
        select(ReviewLog)
        .where(ReviewLog.user_id == user_id)
        .order_by(ReviewLog.id.desc())
        .limit(1)
        .with_for_update()
    ).one_or_none()
    if log is None:
        return None
    row = session.scalars(
        select(CardState).where(CardState.user_id == user_id, CardState.card_id == log.card_id)
    ).one_or_none()
    if row is not None:
        if log.state_before is None:
            session.delete(row)
        else:
            scheduling.restore(row, log.state_before)
    session.execute(delete(ReviewLog).where(ReviewLog.id == log.id))
    return UndoResult(log.card_id, log.rating)

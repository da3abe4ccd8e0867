"""Grading and undo: the card's new state and its log row are written in one transaction.

Callers pass an open write session (see app.db.Database.write_session); nothing here commits.
An idempotency key makes a retried grade return the first result instead of grading twice.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from fsrs import State
from sqlalchemy import Table, bindparam, delete, insert, select, update
from sqlalchemy.orm import Session

from app.errors import ConflictError, FieldError
from app.models import CardState, ReviewLog, User
from app.srs import scheduling
from app.srs.days import as_utc

SOURCES = ("review", "embedded", "mock", "drill")


class OutOfOrderError(ConflictError):
    """A grade given before the card's latest review: refused, since grades apply in time order."""

    def __init__(self, card_id: str, last_review: datetime, reviewed_at: datetime) -> None:
        super().__init__(
            f"card '{card_id}' was last reviewed at {last_review.isoformat()}, after this"
            f" grade's reviewed_at {reviewed_at.isoformat()}: the grade was not applied",
            code="out_of_order",
        )
        self.card_id = card_id
        self.last_review = last_review
        self.reviewed_at = reviewed_at


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


_USERS = cast(Table, User.__table__)
_STATES = cast(Table, CardState.__table__)
_LOGS = cast(Table, ReviewLog.__table__)
_RESULT_COLUMNS = (
    _LOGS.c.id,
    _LOGS.c.card_id,
    _LOGS.c.rating,
    _LOGS.c.state_after,
    _LOGS.c.interval_days,
)


# Built once: executing a prepared statement with parameters skips SQLAlchemy's per-call
# statement construction and cache-key work, which dominated the grading path.
_FIND_BY_KEY = select(*_RESULT_COLUMNS).where(
    _LOGS.c.user_id == bindparam("user_id"), _LOGS.c.idempotency_key == bindparam("key")
)
_STATE_FOR_UPDATE = (
    select(_STATES)
    .where(_STATES.c.user_id == bindparam("user_id"), _STATES.c.card_id == bindparam("card_id"))
    .with_for_update()
)
_INSERT_STATE = insert(_STATES)
_UPDATE_STATE = update(_STATES).where(_STATES.c.id == bindparam("row_id"))
_INSERT_LOG = insert(_LOGS).returning(_LOGS.c.id)
# NO KEY UPDATE: queues this user's grades without blocking inserts that merely reference the
# user (their foreign keys take KEY SHARE), so it cannot deadlock with them.
_LOCK_USER = (
    select(_USERS.c.id).where(_USERS.c.id == bindparam("user_id")).with_for_update(key_share=True)
)


def _take_turn(session: Session, user_id: int) -> None:
    """Queue behind the user's other grades and undos until this transaction ends.

    SQLite runs one writer at a time already (BEGIN IMMEDIATE). On PostgreSQL, without this,
    two first grades of a card both insert its state, a resent key does not yet see the log
    its first send is still writing, and an undo racing a grade of the same card can restore
    the state from before the grade while the grade's log stays.
    """
    connection = session.connection()
    if connection.dialect.name != "sqlite":
        connection.execute(_LOCK_USER, {"user_id": user_id})


class KeyReused(FieldError):
    """An idempotency key already used for a different card: a client bug, not a retry."""

    def __init__(self, graded_card_id: str) -> None:
        # "value_error": the type pydantic gives a refused field, which clients already see.
        message = f"already used to grade {graded_card_id}; send a new key for each grade"
        super().__init__("idempotency_key", message, code="value_error")


def same_card(earlier: GradeResult, card_id: str) -> GradeResult:
    """The earlier result of a resent grade; KeyReused if its key graded another card."""
    if earlier.card_id != card_id:
        raise KeyReused(earlier.card_id)
    return earlier


def find_by_key(session: Session, user_id: int, key: str) -> GradeResult | None:
    """The result of an earlier grade sent with the same idempotency key."""
    log = session.connection().execute(_FIND_BY_KEY, {"user_id": user_id, "key": key}).first()
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
    parameters: Sequence[float] | None = None,
    in_order: bool = False,
) -> GradeResult:
    """Grade one card (1 Again … 4 Easy) at `now`; the interval is the one its button showed.

    `now` is when the grade was given (an offline grade sends it later). With `in_order`, a
    grade given before the card's latest review raises OutOfOrderError: the card's state
    already reflects a later review, and replaying history would change intervals the user
    has already seen. (Without it, two grades stamped by the server a moment apart apply in
    whichever order they commit, as they always have.)

    This is the hottest write path, so it speaks SQLAlchemy Core: three statements and no
    unit-of-work bookkeeping (bench/review.py measures it).
    """
    if rating not in scheduling.RATING_NAMES:
        message = f"must be 1 (Again), 2 (Hard), 3 (Good) or 4 (Easy), got {rating}"
        raise FieldError("rating", message, code="value_error")
    if source not in SOURCES:
        raise FieldError("source", f"must be one of {', '.join(SOURCES)}", code="value_error")
    _take_turn(session, user_id)
    if idempotency_key and (earlier := find_by_key(session, user_id, idempotency_key)):
        return same_card(earlier, card_id)

    connection = session.connection()
    row = connection.execute(_STATE_FOR_UPDATE, {"user_id": user_id, "card_id": card_id}).first()
    if in_order and row is not None and row.last_review and now < as_utc(row.last_review):
        raise OutOfOrderError(card_id, as_utc(row.last_review), now)
    reps = row.reps if row else 0
    seed = scheduling.fuzz_seed(user_id, card_id, reps)
    # A damaged saved state (see scheduling.damage) starts afresh: this grade repairs it, and
    # its log keeps no copy of the damage (an undo makes the card new rather than broken).
    sound = scheduling.usable(row)
    outcome = scheduling.outcome(sound, rating, now, desired_retention, seed, fuzz, parameters)
    before = scheduling.snapshot(sound)
    prior_interval = scheduling.scheduled_interval_days(sound)
    lapsed = sound is not None and sound.state == State.Review and rating == 1

    card = outcome.card
    values: dict[str, Any] = {
        "state": int(card.state),
        "step": card.step,
        "stability": card.stability,
        "difficulty": card.difficulty,
        "due": card.due,
        "last_review": card.last_review,
        "reps": reps + 1,
        "lapses": (row.lapses if row else 0) + (1 if lapsed else 0),
    }
    if row is None:
        connection.execute(_INSERT_STATE, {"user_id": user_id, "card_id": card_id, **values})
    else:
        connection.execute(_UPDATE_STATE, {"row_id": row.id, **values})
    after = {
        **values,
        "due": card.due.isoformat(),
        "last_review": card.last_review.isoformat() if card.last_review else None,
    }
    log_id = connection.execute(
        _INSERT_LOG,
        {
            "user_id": user_id,
            "card_id": card_id,
            "rating": rating,
            "reviewed_at": now,
            "duration_ms": duration_ms,
            "source": source,
            "was_new": row is None,
            "idempotency_key": idempotency_key,
            "state_before": before,
            "state_after": after,
            "interval_days": outcome.interval.total_seconds() / 86400,
            "prior_interval_days": prior_interval,
        },
    ).scalar_one()
    return GradeResult(
        card_id=card_id,
        rating=rating,
        state=State(card.state).name.lower(),
        due=card.due,
        stability=card.stability,
        difficulty=card.difficulty,
        interval_days=outcome.interval.total_seconds() / 86400,
        log_id=log_id,
    )


def _result(log: Any) -> GradeResult:
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
    _take_turn(session, user_id)
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

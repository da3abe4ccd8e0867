"""A grade as a client sends it: when it counts as given, and one write that records it once.

The review page's buttons, the JSON API and the offline batch all grade through `submit`, so
they share one set of rules: the `reviewed_at` window, time order, and idempotency keys. The
caller (a route's write session, app.web.deps) owns the transaction.
"""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.errors import FieldError
from app.srs import review
from app.srs import settings as srs_settings

# How old an offline grade may be, and how far ahead of the server a device's clock may run.
MAX_GRADE_AGE = timedelta(days=7)
CLOCK_SKEW = timedelta(minutes=5)


@dataclass(frozen=True)
class Grade:
    """One grade as sent: `reviewed_at` only for a grade given earlier (offline)."""

    rating: int
    idempotency_key: str
    duration_ms: int | None = None
    source: str = "review"
    reviewed_at: datetime | None = None


def review_time(reviewed_at: datetime | None, now: datetime) -> datetime:
    """When a grade counts as given: `reviewed_at` within the last 7 days (a device's clock
    up to 5 minutes ahead is taken as now), else a FieldError naming `reviewed_at`."""
    if reviewed_at is None:
        return now
    moment = reviewed_at.astimezone(UTC)  # a caller may pass any zone
    if moment > now + CLOCK_SKEW:
        problem = f"is in the future (the server's time is {now.isoformat()})"
    elif moment < now - MAX_GRADE_AGE:
        problem = "is more than 7 days ago: a grade that old is not applied"
    else:
        return min(moment, now)
    # "value_error": the type pydantic gives a refused field, which clients already see.
    raise FieldError("reviewed_at", problem, code="value_error")


def submit(
    session: Session, user_id: int, card_id: str, grade: Grade, now: datetime, *, fuzz: bool
) -> review.GradeResult:
    """Record one grade in the caller's write transaction, with the user's review settings.

    A resent key returns the first result whatever its `reviewed_at`, also when the two sends
    race: the second one's insert fails on the key inside a savepoint, which is rolled back,
    and the first one's result is read back in the same transaction. A grade older than the
    card's latest review raises review.OutOfOrderError, a key already used for another card
    review.KeyReused.
    """
    when = review_time(grade.reviewed_at, now)
    settings = srs_settings.load(session, user_id)
    try:
        with session.begin_nested():
            return review.grade(
                session,
                user_id,
                card_id,
                grade.rating,
                when,
                desired_retention=settings.desired_retention,
                idempotency_key=grade.idempotency_key,
                duration_ms=grade.duration_ms,
                source=grade.source,
                fuzz=fuzz,
                parameters=settings.fsrs_parameters,
                in_order=grade.reviewed_at is not None,
            )
    except IntegrityError:
        earlier = review.find_by_key(session, user_id, grade.idempotency_key)
        if earlier is None:
            raise
        return review.same_card(earlier, card_id)

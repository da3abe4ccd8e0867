"""Record and list attempts at numeric cards: one row per typed answer."""

from sqlalchemy import select
from sqlalchemy.orm import Session

from app import locks
from app.content import quantity
from app.content.schema import NumericCard
from app.drills import engine
from app.drills.engine import Draw, Outcome
from app.errors import FieldError
from app.models import Attempt

MAX_ANSWER_LENGTH = 200


class AnswerTooLong(FieldError):
    def __init__(self, message: str) -> None:
        super().__init__("answer", message, "value_error")


class KeyReused(FieldError):
    """An idempotency key already used for an attempt at another card."""

    def __init__(self, message: str) -> None:
        super().__init__("idempotency_key", message, "value_error")


def check(card: NumericCard, seed: int | None, answer: str) -> tuple[Draw, Outcome]:
    """Draw the same question again from its seed and grade the typed answer.

    Raises FieldError naming `seed` for a seed that draws nothing, `answer` for an answer too
    long or not a quantity.
    """
    if len(answer) > MAX_ANSWER_LENGTH:
        raise AnswerTooLong(f"at most {MAX_ANSWER_LENGTH} characters, got {len(answer)}")
    try:
        drawn = engine.draw(card, seed)
    except engine.DrillError as error:
        raise FieldError("seed", str(error), "value_error") from error
    try:
        return drawn, engine.grade(drawn, answer)
    except quantity.QuantityError as error:
        raise FieldError("answer", str(error), "value_error") from error


def record(
    session: Session,
    user_id: int,
    drawn: Draw,
    answer: str,
    outcome: Outcome,
    duration_ms: int | None,
    idempotency_key: str | None = None,
) -> Attempt:
    """Store an attempt with the drawn values, so the same question can be shown again.

    With an idempotency key, a resend (a retry, a double click) returns the first attempt
    instead of recording a second; raises KeyReused if the key answered another card.
    """
    if idempotency_key is not None:
        locks.take_turn(session, user_id)  # a concurrent resend waits, then finds the first
        earlier = session.scalars(
            select(Attempt).where(
                Attempt.user_id == user_id, Attempt.idempotency_key == idempotency_key
            )
        ).one_or_none()
        if earlier is not None:
            if earlier.card_id != drawn.card_id:
                raise KeyReused(
                    f"already used for an attempt at {earlier.card_id}; send a new key for "
                    "each attempt"
                )
            return earlier
    attempt = Attempt(
        user_id=user_id,
        card_id=drawn.card_id,
        seed=drawn.seed,
        drawn_values=drawn.values,
        answer=answer,
        given_value=outcome.given_in_unit,
        expected_value=drawn.expected,
        unit=drawn.unit,
        correct=outcome.correct,
        duration_ms=duration_ms,
        idempotency_key=idempotency_key,
    )
    session.add(attempt)
    session.flush()
    return attempt


def recent(session: Session, user_id: int, card_id: str, limit: int = 20) -> list[Attempt]:
    """A user's latest attempts at one card, newest first."""
    query = (
        select(Attempt)
        .where(Attempt.user_id == user_id, Attempt.card_id == card_id)
        .order_by(Attempt.created_at.desc(), Attempt.id.desc())
        .limit(limit)
    )
    return list(session.scalars(query))

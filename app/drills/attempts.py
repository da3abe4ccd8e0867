"""Record and list attempts at numeric cards: one row per typed answer."""

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.schema import NumericCard
from app.drills import engine
from app.drills.engine import Draw, Outcome
from app.models import Attempt

MAX_ANSWER_LENGTH = 200


class AnswerTooLong(ValueError):
    pass


def check(card: NumericCard, seed: int | None, answer: str) -> tuple[Draw, Outcome]:
    """Draw the same question again from its seed and grade the typed answer.

    Raises DrillError for a bad seed, QuantityError for an unreadable answer, AnswerTooLong.
    """
    if len(answer) > MAX_ANSWER_LENGTH:
        raise AnswerTooLong(f"at most {MAX_ANSWER_LENGTH} characters, got {len(answer)}")
    drawn = engine.draw(card, seed)
    return drawn, engine.grade(drawn, answer)


def record(
    session: Session,
    user_id: int,
    drawn: Draw,
    answer: str,
    outcome: Outcome,
    duration_ms: int | None,
) -> Attempt:
    """Store an attempt with the drawn values, so the same question can be shown again."""
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

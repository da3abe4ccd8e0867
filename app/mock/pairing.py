"""Interview a friend: a link that opens one mock session's interviewer view, and the marks
the interviewer makes there.

The link's token is its only credential: whoever holds it sees the current question with its
model answer, rubric, follow-ups and common mistakes, and may mark the points made, choose the
follow-up and propose a rating. It opens nothing else. Only a hash of the token is stored (the
caller hashes it, as it does API tokens: app.auth.tokens.digest), one link per session: a new
one replaces the old. A link ends with its session (finished or abandoned), after LIFETIME,
or when revoked; every way a link fails answers the same, so a guess learns nothing.

The interviewer's marks are advice: the candidate sees them beside the grader's suggestions
and still grades. Callers pass an open session; writes are committed by the caller.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app import locks
from app.content.catalog import CardView, Catalog
from app.errors import NotFoundError
from app.mock import live
from app.mock import sessions as mocks
from app.models import MockPairing, MockQuestion, MockSession
from app.srs.days import as_utc
from app.srs.scheduling import RATING_NAMES

LIFETIME = timedelta(hours=24)

NOT_FOUND = (
    "This interview link does not open anything: it may be mistyped, expired or revoked, or "
    "its interview may have ended. Ask the candidate for a new link."
)


class LinkNotFound(NotFoundError):
    """A token that opens nothing, for whatever reason (404, always the same words)."""

    def __init__(self) -> None:
        super().__init__(NOT_FOUND, code="pair_link_not_found")


# --- the link ------------------------------------------------------------------------------


def open_link(session: Session, mock: MockSession, token_hash: str, now: datetime) -> MockPairing:
    """Open a link to `mock`'s interviewer view, replacing any link it had."""
    if mock.status != mocks.Status.ACTIVE:
        raise mocks.MockError(f"this session is {mock.status}: there is nothing to interview")
    revoke(session, mock)
    link = MockPairing(
        session_id=mock.id, token_hash=token_hash, created_at=now, expires_at=now + LIFETIME
    )
    session.add(link)
    session.flush()
    live.changed(session, mock, live.Kind.LINK)
    return link


def revoke(session: Session, mock: MockSession) -> None:
    """Close `mock`'s link, if it has one: the token opens nothing any more (and its
    interviewer's live page hears so)."""
    gone = session.execute(delete(MockPairing).where(MockPairing.session_id == mock.id))
    if gone.rowcount:  # type: ignore[attr-defined]
        live.changed(session, mock, live.Kind.LINK)


def live_link(session: Session, mock: MockSession, now: datetime) -> MockPairing | None:
    """`mock`'s link while it still works (for the candidate's page), else None."""
    link = session.scalars(select(MockPairing).where(MockPairing.session_id == mock.id)).first()
    if link is None or now >= as_utc(link.expires_at) or mock.status != mocks.Status.ACTIVE:
        return None
    return link


def find(session: Session, token_hash: str, now: datetime) -> MockSession:
    """The session a token opens; LinkNotFound when it opens none (unknown, expired, revoked,
    or its session ended)."""
    link = session.scalars(select(MockPairing).where(MockPairing.token_hash == token_hash)).first()
    if link is None or now >= as_utc(link.expires_at):
        raise LinkNotFound()
    mock = session.get(MockSession, link.session_id)
    if mock is None or mock.status != mocks.Status.ACTIVE:
        raise LinkNotFound()
    return mock


def watch(session: Session, token_hash: str, now: datetime) -> live.Watched:
    """What the link's live page watches: its session's version, until the link ends.
    LinkNotFound once it opens nothing (revoked, replaced, expired, or its session ended)."""
    mock = find(session, token_hash, now)
    link = session.scalars(select(MockPairing).where(MockPairing.session_id == mock.id)).one()
    return live.Watched(mock.id, mock.version, as_utc(link.expires_at))


# --- what the interviewer sees ---------------------------------------------------------------


@dataclass(frozen=True)
class Interview:
    """The interviewer's view at `now`: a read, nothing stored (see sessions.as_of)."""

    mock: MockSession
    expires_at: datetime
    step: mocks.Step
    questions: int
    card: CardView | None  # the current question's card
    remaining: float  # seconds left on the clock running now (0 when none runs)


def interview(session: Session, token_hash: str, catalog: Catalog, now: datetime) -> Interview:
    mock = find(session, token_hash, now)
    link = session.scalars(select(MockPairing).where(MockPairing.session_id == mock.id)).one()
    qs = mocks.as_of_all(mocks.questions(session, mock), now, catalog)  # a read: no writes
    step = mocks.current_step(mock, qs, now, catalog)
    question = step.question
    running = step.kind in (mocks.StepKind.ANSWER, mocks.StepKind.FOLLOWUP)
    return Interview(
        mock=mock,
        expires_at=as_utc(link.expires_at),
        step=step,
        questions=len(qs),
        card=catalog.card(question.card_id) if question else None,
        remaining=mocks.remaining_seconds(question, now) if question and running else 0.0,
    )


# --- what the interviewer marks ------------------------------------------------------------


def _asked(
    session: Session, token_hash: str, catalog: Catalog, now: datetime, position: int
) -> tuple[MockQuestion, CardView]:
    """The question at `position` of the token's session, started and not yet graded: a write
    step, so what ran out of time is stored first, as the candidate's steps do."""
    mock = find(session, token_hash, now)
    locks.take_turn(session, mock.user_id)  # on PostgreSQL, one change to a user's mocks at once
    qs = mocks.questions(session, mock)
    mocks.settle_all(qs, now, catalog)
    question = next((q for q in qs if q.position == position), None)
    if question is None:
        raise mocks.BadInput("position", f"this session has no question {position}")
    if question.started_at is None:
        raise mocks.MockError(f"question {position} has not started yet")
    if question.rating is not None:
        raise mocks.MockError(f"question {position} is graded already")
    card = catalog.card(question.card_id)
    if card is None:
        raise mocks.MockError(f"question {position}'s card is no longer in the content")
    return question, card


def _marked(session: Session, question: MockQuestion) -> None:
    mock = session.get(MockSession, question.session_id)
    assert mock is not None  # find() loaded it in this transaction
    live.changed(session, mock, live.Kind.INTERVIEWER)


def mark_points(
    session: Session, token_hash: str, catalog: Catalog, now: datetime, position: int,
    points: list[int],
) -> MockQuestion:  # fmt: skip
    """The rubric points the interviewer heard made (all of them: it replaces the last mark)."""
    question, card = _asked(session, token_hash, catalog, now, position)
    if any(not 0 <= p < len(card.rubric) for p in points):
        raise mocks.BadInput("points", f"rubric points are numbered 0 to {len(card.rubric) - 1}")
    question.interviewer_points = sorted(set(points))
    session.flush()
    _marked(session, question)
    return question


def choose_followup(
    session: Session, token_hash: str, catalog: Catalog, now: datetime, position: int,
    index: int,
) -> MockQuestion:  # fmt: skip
    """The follow-up to ask when the main answer is in; refused once it is in (409)."""
    question, card = _asked(session, token_hash, catalog, now, position)
    if question.followup is None:
        raise mocks.MockError("this session asks no follow-ups")
    if question.submitted_at is not None:
        raise mocks.MockError(
            f"question {position}'s main answer is in: its follow-up was already asked",
            code="followup_asked",
        )
    if not 0 <= index < len(card.card.followups):
        raise mocks.BadInput(
            "index", f"this question's follow-ups are numbered 0 to {len(card.card.followups) - 1}"
        )
    question.interviewer_followup = index
    session.flush()
    _marked(session, question)
    return question


def propose_rating(
    session: Session, token_hash: str, catalog: Catalog, now: datetime, position: int,
    rating: int,
) -> MockQuestion:  # fmt: skip
    """The rating the interviewer would give; the candidate's own grade is what counts."""
    if rating not in RATING_NAMES:
        raise mocks.BadInput("rating", "1 (Again), 2 (Hard), 3 (Good) or 4 (Easy)")
    question, _card = _asked(session, token_hash, catalog, now, position)
    question.interviewer_rating = rating
    session.flush()
    _marked(session, question)
    return question

"""What a user does to a mock session, one step at a time: start, autosave, submit, grade,
abandon, and record a spoken answer (whose transcripts, app.mock.transcripts, the grading
step reads with the typed answer).

Each step takes an open write session (the caller commits, and holds the user's lock on
PostgreSQL), the mock, the catalog and now, and refuses with app.errors types. Each first
settles what ran out of time while nobody was there. A resent start, submit or grade (a double
click, a retry) that names a question already past that step changes nothing and returns the
session as the first one left it; one naming another question or part than the waiting one is
refused rather than applied to the wrong one. The returned questions are the session's, in
order, as the step left them.
"""

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from app.content.catalog import Catalog
from app.grading import Field
from app.mock import audio, live, transcripts
from app.mock import sessions as mocks
from app.models import MockQuestion, MockSession
from app.srs import settings as review_settings


class CardGone(mocks.MockError):
    """The question's card left the content after the session began: it cannot be graded."""

    def __init__(self, question: MockQuestion) -> None:
        super().__init__(
            f"question {question.position} asks card {question.card_id!r}, which is no longer "
            "in the content, so it cannot be graded: abandon this session and start a new one",
            code="card_gone",
        )


@dataclass(frozen=True)
class _Turn:
    questions: list[MockQuestion]
    step: mocks.Step
    repeat: bool  # the request was already done: answer with the session as it is


def _turn(
    session: Session, mock: MockSession, catalog: Catalog, now: datetime, action: str,
    position: int | None = None, part: str | None = None,
) -> _Turn:  # fmt: skip
    qs = mocks.questions(session, mock)
    mocks.settle_all(qs, now, catalog)  # a write step: store what ran out of time first
    step = mocks.current_step(mock, qs, now, catalog)
    if _already_done(qs, action, position, part):
        return _Turn(qs, step, repeat=True)
    _check_target(step, action, position, part)
    if mock.status != "active":
        raise mocks.MockError(f"this session is {mock.status}")
    return _Turn(qs, step, repeat=False)


def _already_done(
    qs: list[MockQuestion], action: str, position: int | None, part: str | None
) -> bool:
    """Whether a request naming this question (and part) asks for what is already done: a
    resent start, submit or grade, answered with the session as it is, changing nothing."""
    question = next((q for q in qs if q.position == position), None)
    if question is None:
        return False
    if action == "submit":
        done = question.submitted_at if part == "main" else question.followup_submitted_at
        return done is not None
    if action == "grade":
        return question.rating is not None
    if action == "start":
        return question.started_at is not None
    return False


def _check_target(step: mocks.Step, action: str, position: int | None, part: str | None) -> None:
    """Refuse a start, submit or grade naming another question (or part) than the one
    waiting."""
    question = step.question
    if position is None or question is None:
        return
    waiting = {"answer": "main", "followup": "followup"}.get(step.kind)
    if action == "submit" and (question.position != position or waiting != part):
        raise mocks.MockError(
            f"question {position}'s {part} answer is not the one being answered now"
        )
    if action == "grade" and question.position != position:
        raise mocks.MockError(f"question {position} is not the one waiting to be graded")
    if action == "start" and (step.kind != "start" or question.position != position):
        raise mocks.MockError(f"question {position} is not the next one to start")


def _waiting(step: mocks.Step) -> MockQuestion:
    if step.question is None:
        raise mocks.MockError("every question is done: see the report")
    return step.question


def start(
    session: Session, mock: MockSession, catalog: Catalog, now: datetime,
    position: int | None = None,
) -> list[MockQuestion]:  # fmt: skip
    """Start the next question: its deadline is fixed now."""
    turn = _turn(session, mock, catalog, now, "start", position)
    if turn.repeat:
        return turn.questions
    step = turn.step
    question = _waiting(step)
    if step.kind != "start":
        raise mocks.MockError(f"finish question {question.position} first")
    mocks.start(question, mock.minutes_per_question, now)
    session.flush()
    live.changed(session, mock, live.Kind.STEP)
    return turn.questions


def autosave(
    session: Session, mock: MockSession, catalog: Catalog, now: datetime, part: str, text: str
) -> MockQuestion:
    """Keep the answer being written; refused (TooLate) once nothing is being answered."""
    qs = mocks.questions(session, mock)
    mocks.settle_all(qs, now, catalog)
    step = mocks.current_step(mock, qs, now, catalog)
    if step.question is None or step.kind not in ("answer", "followup"):
        raise mocks.TooLate("nothing is being answered now; the last saved text was kept")
    mocks.save(step.question, part, text, now)
    session.flush()
    live.changed(session, mock, live.Kind.NOTES)
    return step.question


def submit(
    session: Session, mock: MockSession, catalog: Catalog, now: datetime, position: int,
    part: str, text: str | None = None,
) -> list[MockQuestion]:  # fmt: skip
    """Hand in the answer being written (saving `text` first, if given); the main answer's
    follow-up, if any, starts at once with its own clock."""
    turn = _turn(session, mock, catalog, now, "submit", position, part)
    if turn.repeat:
        return turn.questions
    step = turn.step
    question = _waiting(step)
    if text is not None:
        mocks.save(question, part, text, now)
    mocks.submit(question, now, catalog.card(question.card_id), Field.of(catalog))
    session.flush()
    live.changed(session, mock, live.Kind.STEP)
    return turn.questions


def grade(
    session: Session, mock: MockSession, catalog: Catalog, now: datetime, points: list[int],
    rating: int, position: int | None = None, *, fuzz: bool = True,
) -> list[MockQuestion]:  # fmt: skip
    """Confirm the rubric points made and rate the answer: an FSRS review of its card, with
    the user's review settings."""
    turn = _turn(session, mock, catalog, now, "grade", position)
    if turn.repeat:
        return turn.questions
    step = turn.step
    question = _waiting(step)
    if step.kind != "grade":
        raise mocks.MockError("no question is waiting to be graded")
    card = catalog.card(question.card_id)
    if card is None:
        raise CardGone(question)
    prefs = review_settings.load(session, mock.user_id)
    said = transcripts.spoken(transcripts.of_questions(session, [question]).get(question.id, []))
    mocks.grade(
        session, mock, question, card, points, rating, now, field=Field.of(catalog),
        desired_retention=prefs.desired_retention, fuzz=fuzz, parameters=prefs.fsrs_parameters,
        spoken=said,
    )  # fmt: skip
    session.flush()
    live.changed(session, mock, live.Kind.STEP)
    return turn.questions


def abandon(
    session: Session, mock: MockSession, catalog: Catalog, now: datetime
) -> list[MockQuestion]:
    """Stop the session for good; what was answered stays, for the report. Abandoning an
    abandoned session changes nothing."""
    qs = mocks.questions(session, mock)
    mocks.settle_all(qs, now, catalog)  # what ran out of time is stored as submitted first
    if mock.status == "abandoned":
        return qs
    if mock.status != "active":
        raise mocks.MockError(f"this session is {mock.status}")
    mocks.abandon(mock, now)
    session.flush()
    live.changed(session, mock, live.Kind.STEP)
    return qs


def record(
    session: Session, mock: MockSession, catalog: Catalog, now: datetime, position: int,
    part: str, take: int, seq: int, mime: str, data: bytes,
) -> audio.Stored:  # fmt: skip
    """Keep one chunk of a spoken answer; a resent chunk changes nothing (audio.add_chunk)."""
    question = mocks.question_at(session, mock, position)
    if question is None:
        raise mocks.MockError(f"This session has no question {position}.")
    mocks.settle(question, now, catalog.card(question.card_id), Field.of(catalog))
    return audio.add_chunk(session, question, part, take, seq, mime, data, now)

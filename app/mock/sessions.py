"""Mock sessions: the server keeps every deadline, so a reload or a restart shows the same clock.

A question moves pending → answering → (follow-up) → graded. Its deadline is stored when it
starts; an answer saved after the deadline plus a short grace is refused and the last saved
text kept. A question whose deadline passed while nobody was looking is submitted as saved.
Callers pass an open session (read or write); writes are committed by the caller.
"""

import copy
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.catalog import CardView, Catalog
from app.errors import ConflictError, FieldError
from app.grading import Check, Field
from app.mock import followup, rubric
from app.mock.selection import choose
from app.models import MockQuestion, MockSession
from app.srs import review
from app.srs.days import as_utc
from app.srs.scheduling import RATING_NAMES


class Phase(StrEnum):
    """Where one question stands."""

    PENDING = "pending"
    ANSWERING = "answering"
    FOLLOWUP = "followup"
    GRADING = "grading"
    DONE = "done"


class StepKind(StrEnum):
    """What the session asks of the user now (`current_step`)."""

    START = "start"
    ANSWER = "answer"
    FOLLOWUP = "followup"
    GRADE = "grade"
    FINISHED = "finished"


class Status(StrEnum):
    """A session's state as stored (mock_sessions.status)."""

    ACTIVE = "active"
    FINISHED = "finished"
    ABANDONED = "abandoned"


MAX_ANSWER = 20_000
QUESTIONS = range(1, 11)  # questions a custom session may have
MINUTES = range(1, 61)  # minutes per question
GRACE = timedelta(seconds=15)  # network and clock slack after the deadline


@dataclass(frozen=True)
class Preset:
    label: str
    questions: int
    minutes: int


PRESETS = {
    "infra": Preset("Infra loop", 4, 10),
    "lightning": Preset("Lightning round", 6, 3),
}


class MockError(ConflictError):
    """A request that does not fit the session's state now (409); the message says why."""


class TooLate(MockError):
    """An answer changed after its time (and the grace) ran out: the last saved text stays."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code="time_up")


class BadInput(FieldError):
    """A value the session cannot take (422), typed as pydantic types its own refusals."""

    def __init__(self, field: str, message: str, code: str = "value_error") -> None:
        super().__init__(field, message, code)


def followup_minutes(minutes: int) -> int:
    """The interviewer's push gets a third of the main time, between 1 and 5 minutes."""
    return max(1, min(5, minutes // 3))


def create(
    session: Session,
    user_id: int,
    catalog: Catalog,
    now: datetime,
    *,
    preset: str = "custom",
    questions: int | None = None,
    minutes: int | None = None,
    followups: bool = True,
    grade_after_each: bool = True,
    topics: list[str] | None = None,
    rng: random.Random | None = None,
) -> MockSession:
    """A new session: a preset fixes its questions and minutes (any given are ignored), a
    custom one must name both."""
    chosen = PRESETS.get(preset)
    count = chosen.questions if chosen else questions
    minutes = chosen.minutes if chosen else minutes
    if count is None or minutes is None:
        missing = "questions" if count is None else "minutes"
        raise BadInput(missing, "a custom session needs questions and minutes", "missing")
    if count not in QUESTIONS:
        raise BadInput("questions", f"choose {QUESTIONS[0]} to {QUESTIONS[-1]}")
    if minutes not in MINUTES:
        raise BadInput("minutes", f"choose {MINUTES[0]} to {MINUTES[-1]} per question")
    unknown = [slug for slug in topics or [] if catalog.topic(slug) is None]
    if unknown:
        raise BadInput("topics", f"no topic '{unknown[0]}'")
    recall = _recall(session, user_id, catalog, now)
    previous = _last_session_cards(session, user_id)
    cards = choose(
        catalog, recall, previous, set(topics) if topics else None, count, rng or random.Random()
    )
    if not cards:
        raise BadInput("topics", "no open questions in the chosen topics")
    mock = MockSession(
        user_id=user_id,
        preset=preset,
        minutes_per_question=minutes,
        followups=followups,
        grade_after_each=grade_after_each,
        topics=list(topics or []),
        status=Status.ACTIVE,
        created_at=now,
    )
    session.add(mock)
    session.flush()
    for position, card in enumerate(cards, start=1):
        session.add(
            MockQuestion(
                session_id=mock.id,
                position=position,
                card_id=card.id,
                # A follow-up will be asked; which one is chosen when the main answer is in.
                followup=card.card.followups[0].question if followups else None,
                answer="",
                followup_answer="",
            )
        )
    session.flush()
    return mock


def _recall(session: Session, user_id: int, catalog: Catalog, now: datetime) -> dict[str, float]:
    from app.models import CardState
    from app.srs import scheduling

    rows = session.execute(
        select(CardState.card_id, CardState.stability, CardState.last_review).where(
            CardState.user_id == user_id
        )
    )
    return {c: scheduling.retrievability(s, last, now) for c, s, last in rows}


def _last_session_cards(session: Session, user_id: int) -> set[str]:
    last = session.scalars(
        select(MockSession.id)
        .where(MockSession.user_id == user_id)
        .order_by(MockSession.created_at.desc(), MockSession.id.desc())
        .limit(1)
    ).first()
    if last is None:
        return set()
    return set(session.scalars(select(MockQuestion.card_id).where(MockQuestion.session_id == last)))


def load(session: Session, user_id: int, mock_id: int) -> MockSession | None:
    """The session, only if it is this user's: anyone else gets nothing."""
    return session.scalars(
        select(MockSession).where(MockSession.id == mock_id, MockSession.user_id == user_id)
    ).one_or_none()


def questions(session: Session, mock: MockSession) -> list[MockQuestion]:
    return list(
        session.scalars(
            select(MockQuestion)
            .where(MockQuestion.session_id == mock.id)
            .order_by(MockQuestion.position)
        )
    )


def question_at(session: Session, mock: MockSession, position: int) -> MockQuestion | None:
    """The session's question at `position` (1-based), if it has one."""
    return session.scalars(
        select(MockQuestion).where(
            MockQuestion.session_id == mock.id, MockQuestion.position == position
        )
    ).first()


def unfinished(session: Session, user_id: int) -> MockSession | None:
    """The latest session still running, to offer on the home page."""
    return session.scalars(
        select(MockSession)
        .where(MockSession.user_id == user_id, MockSession.status == Status.ACTIVE)
        .order_by(MockSession.created_at.desc(), MockSession.id.desc())
        .limit(1)
    ).first()


# --- the state of a question -------------------------------------------------------------


def phase(question: MockQuestion) -> Phase:
    """Where the question stands, from its stored times (see `as_of` for deadlines)."""
    if question.rating is not None:
        return Phase.DONE
    if question.started_at is None:
        return Phase.PENDING
    if question.submitted_at is None:
        return Phase.ANSWERING
    if question.followup and question.followup_submitted_at is None:
        return Phase.FOLLOWUP
    return Phase.GRADING


def _main_overdue(question: MockQuestion, now: datetime) -> bool:
    return bool(
        phase(question) == Phase.ANSWERING
        and question.deadline
        and now > as_utc(question.deadline) + GRACE
    )


def _followup_overdue(question: MockQuestion, now: datetime) -> bool:
    return bool(
        phase(question) == Phase.FOLLOWUP
        and question.followup_deadline
        and now > as_utc(question.followup_deadline) + GRACE
    )


def settle(question: MockQuestion, now: datetime, card: CardView | None, field: Field) -> None:
    """Submit, as saved, whatever ran out of time while nobody was there to submit it
    (`field`: the catalog's word counts, to grade the answer that chooses the follow-up).

    A write step: it changes `question`. Reads use `as_of`, which leaves the row alone."""
    if _main_overdue(question, now):
        _submit_main(question, as_utc(question.deadline), card, field)  # type: ignore[arg-type]
    if _followup_overdue(question, now):
        question.followup_submitted_at = as_utc(question.followup_deadline)  # type: ignore[arg-type]


def settle_all(qs: list[MockQuestion], now: datetime, catalog: Catalog) -> None:
    """`settle` every question of a session: the first thing a write step does."""
    field = Field.of(catalog)
    for question in qs:
        settle(question, now, catalog.card(question.card_id), field)


def as_of(
    question: MockQuestion, now: datetime, card: CardView | None, field: Field
) -> MockQuestion:
    """The question as it stands at `now`, where what ran out of time counts as submitted.

    A read: the row itself is never changed (a GET must not write). When time has run out, a
    detached copy (never added to the database session) carries the settled state.
    """
    if not (_main_overdue(question, now) or _followup_overdue(question, now)):
        return question
    columns = MockQuestion.__table__.columns
    view = MockQuestion(**{c.key: copy.copy(getattr(question, c.key)) for c in columns})
    settle(view, now, card, field)
    return view


def as_of_all(qs: list[MockQuestion], now: datetime, catalog: Catalog) -> list[MockQuestion]:
    field = Field.of(catalog)
    return [as_of(q, now, catalog.card(q.card_id), field) for q in qs]


@dataclass(frozen=True)
class Step:
    """What the session asks of the user now."""

    kind: StepKind
    question: MockQuestion | None


def current_step(
    mock: MockSession, qs: list[MockQuestion], now: datetime, catalog: Catalog
) -> Step:
    """What the session asks for at `now`. A read: a question that ran out of time is seen
    as submitted (`as_of`) without being changed; write steps `settle_all` first, so their
    step's question is the row itself."""
    qs = as_of_all(qs, now, catalog)
    for question in qs:
        if phase(question) == Phase.ANSWERING:
            return Step(StepKind.ANSWER, question)
        if phase(question) == Phase.FOLLOWUP:
            return Step(StepKind.FOLLOWUP, question)
    if mock.grade_after_each:
        for question in qs:
            if phase(question) == Phase.GRADING:
                return Step(StepKind.GRADE, question)
    for question in qs:
        if phase(question) == Phase.PENDING:
            return Step(StepKind.START, question)
    for question in qs:
        if phase(question) == Phase.GRADING:
            return Step(StepKind.GRADE, question)
    return Step(StepKind.FINISHED, None)


def start(question: MockQuestion, minutes: int, now: datetime) -> None:
    if phase(question) != Phase.PENDING:
        raise MockError("this question has already started")
    question.started_at = now
    question.deadline = now + timedelta(minutes=minutes)


def save(question: MockQuestion, part: str, text: str, now: datetime) -> None:
    """Autosave; refused after the deadline plus grace, keeping the last saved text."""
    if len(text) > MAX_ANSWER:
        raise BadInput(
            "text",
            f"at most {MAX_ANSWER:,} characters, this is {len(text):,}; nothing was cut "
            "and the last saved version is kept",
        )
    current = phase(question)
    if part == "main" and current == Phase.ANSWERING:
        assert question.deadline is not None
        if now > as_utc(question.deadline) + GRACE:
            raise TooLate("time is up for this answer; the last saved text was kept")
        question.answer = text
    elif part == "followup" and current == Phase.FOLLOWUP:
        assert question.followup_deadline is not None
        if now > as_utc(question.followup_deadline) + GRACE:
            raise TooLate("time is up for the follow-up; the last saved text was kept")
        question.followup_answer = text
    else:
        raise TooLate(f"the {part} answer can no longer be changed; the last saved text was kept")
    question.saved_at = now


def submit(question: MockQuestion, now: datetime, card: CardView | None, field: Field) -> None:
    """Hand in the current part: the main answer (which starts the follow-up) or the follow-up."""
    current = phase(question)
    if current == Phase.ANSWERING:
        _submit_main(question, now, card, field)
    elif current == Phase.FOLLOWUP:
        question.followup_submitted_at = now
    else:
        raise MockError("nothing to submit: this question is not being answered")


def _submit_main(
    question: MockQuestion, when: datetime, card: CardView | None, field: Field
) -> None:
    """The main answer is in; the interviewer's follow-up (one a friend chose, else the one
    aimed at what the answer missed) starts at once with its own clock."""
    question.submitted_at = when
    if question.followup and card is not None:
        chosen = followup.picked(card, question.interviewer_followup) or followup.choose(
            card, question.answer, field
        )
        question.followup = chosen.question
        question.followup_probes, question.followup_reason = chosen.probes, chosen.reason
    if question.followup:
        assert question.deadline is not None and question.started_at is not None
        minutes = round((as_utc(question.deadline) - as_utc(question.started_at)).seconds / 60)
        question.followup_started_at = when
        question.followup_deadline = when + timedelta(minutes=followup_minutes(minutes))


def suggestions(
    question: MockQuestion,
    card: CardView,
    field: Field,
    spoken: Mapping[str, str] | None = None,
) -> Check:
    """The rubric points the main and follow-up answers seem to make, with the words that did.

    `spoken`: what was said in each part (app.mock.transcripts.spoken), read with the typed
    answer of that part, as if it had been typed too."""
    said = spoken or {}
    return rubric.suggestions(
        card, field, question.answer, said.get("main", ""),
        question.followup_answer or "", said.get("followup", ""),
    )  # fmt: skip


def grade(
    session: Session,
    mock: MockSession,
    question: MockQuestion,
    card: CardView,
    points: list[int],
    rating: int,
    now: datetime,
    *,
    field: Field,
    desired_retention: float,
    fuzz: bool = True,
    parameters: Sequence[float] | None = None,
    spoken: Mapping[str, str] | None = None,
) -> None:
    """Confirm the rubric points made and rate the answer; the rating is an FSRS review (the
    grader's suggestions, kept beside it, weigh words by `field`, the catalog's counts).
    `spoken`: the transcripts of each part, suggested from with the typed answers."""
    if phase(question) != Phase.GRADING:
        raise MockError("this question is not waiting to be graded")
    if any(not 0 <= p < len(card.rubric) for p in points):
        raise BadInput("points", f"rubric points are numbered 0 to {len(card.rubric) - 1}")
    if rating not in RATING_NAMES:
        raise BadInput("rating", "1 (Again), 2 (Hard), 3 (Good) or 4 (Easy)")
    question.suggested_points = suggestions(question, card, field, spoken).points
    question.confirmed_points = sorted(set(points))
    question.rating = rating
    question.graded_at = now
    review.grade(
        session,
        mock.user_id,
        card.id,
        rating,
        now,
        desired_retention=desired_retention,
        idempotency_key=f"mock-{mock.id}-{question.position}",
        source="mock",
        fuzz=fuzz,
        parameters=parameters,
    )
    session.flush()
    if all(phase(q) == Phase.DONE for q in questions(session, mock)):
        mock.status = Status.FINISHED
        mock.finished_at = now


def abandon(mock: MockSession, now: datetime) -> None:
    if mock.status != Status.ACTIVE:
        raise MockError(f"this session is already {mock.status}")
    mock.status = Status.ABANDONED
    mock.finished_at = now


def remaining_seconds(question: MockQuestion, now: datetime) -> float:
    deadline = (
        question.followup_deadline if phase(question) == Phase.FOLLOWUP else question.deadline
    )
    return max(0.0, (as_utc(deadline) - now).total_seconds()) if deadline else 0.0

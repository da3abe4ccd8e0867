"""What a finished (or abandoned) mock says: time, rubric coverage, ratings, weak spots; and
the history: every session of a user's, newest first."""

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.catalog import CardView, Catalog
from app.grading import Field
from app.mock import followup as followups
from app.mock import rubric
from app.models import MockQuestion, MockSession
from app.srs.days import as_utc


@dataclass(frozen=True)
class QuestionReport:
    position: int
    card: CardView
    answer: str
    followup: str | None
    followup_probes: list[int]  # the rubric points (0-based) the follow-up asked probes
    followup_reason: str | None  # why it was asked ("it probes point 3, which …")
    followup_answer: str
    seconds_used: float | None
    followup_seconds_used: float | None
    points_made: list[int]
    points_total: int
    rating: int | None
    # The card's common mistakes the answers state: (index, the answer's own words, what is
    # true instead, as the card's HTML).
    mistakes: tuple[tuple[int, str, str], ...] = ()
    interviewer_points: list[int] | None = None  # what a friend interviewing by link marked
    interviewer_rating: int | None = None

    @property
    def followup_chosen_by(self) -> str | None:
        """Who chose the follow-up asked: "interviewer" (a friend, by link) or "grader"."""
        if self.followup is None:
            return None
        return (
            "interviewer" if self.followup_reason == followups.CHOSEN_BY_INTERVIEWER else "grader"
        )

    @property
    def followup_reference_html(self) -> str | None:
        """The asked follow-up's reference answer, if the card still has that follow-up."""
        for index, followup in enumerate(self.card.card.followups):
            if followup.question == self.followup:
                return self.card.followup_answers_html[index]
        return None

    @property
    def coverage(self) -> float | None:
        if self.rating is None:
            return None
        return len(self.points_made) / self.points_total if self.points_total else 0.0


@dataclass(frozen=True)
class MissedPoint:
    card: CardView
    point_html: str


@dataclass(frozen=True)
class Report:
    mock: MockSession
    questions: list[QuestionReport]
    score: float | None  # rubric points made over points asked, graded questions only
    missed: list[MissedPoint]
    weakest_topics: list[tuple[str, str, float]]  # slug, title, coverage
    planned: int  # questions in the session, asked or not


def _seconds(start: object, end: object) -> float | None:
    if start is None or end is None:
        return None
    return (as_utc(end) - as_utc(start)).total_seconds()  # type: ignore[arg-type]


def build(mock: MockSession, qs: list[MockQuestion], catalog: Catalog) -> Report:
    rows: list[QuestionReport] = []
    missed: list[MissedPoint] = []
    by_topic: dict[str, list[float]] = {}
    made = asked = 0
    field = Field.of(catalog)
    for q in qs:
        card = catalog.card(q.card_id)
        # Never started: not asked, and not shown (it may still be asked in this session).
        # Removed from the content since: nothing to report against.
        if q.started_at is None or card is None:
            continue
        points = list(q.confirmed_points or [])
        # Which follow-up is asked is decided when the main answer is in.
        followup = q.followup if q.submitted_at else None
        probes, reason = followups.explain(card, q, field) if followup else ([], None)
        row = QuestionReport(
            position=q.position,
            card=card,
            answer=q.answer,
            followup=followup,
            followup_probes=probes,
            followup_reason=reason,
            followup_answer=q.followup_answer or "",
            seconds_used=_seconds(q.started_at, q.submitted_at),
            followup_seconds_used=_seconds(q.followup_started_at, q.followup_submitted_at),
            points_made=points,
            points_total=len(card.rubric),
            rating=q.rating,
            mistakes=_mistakes(card, q, field) if q.submitted_at else (),
            interviewer_points=q.interviewer_points,
            interviewer_rating=q.interviewer_rating,
        )
        rows.append(row)
        if q.rating is None:
            continue
        made += len(points)
        asked += len(card.rubric)
        by_topic.setdefault(card.topic_slug, []).append(row.coverage or 0.0)
        missed.extend(
            MissedPoint(card, point.point_html)
            for index, point in enumerate(card.rubric)
            if index not in points
        )
    weakest = []
    for slug, coverages in by_topic.items():
        topic = catalog.topic(slug)
        weakest.append((slug, topic.title if topic else slug, sum(coverages) / len(coverages)))
    weakest.sort(key=lambda item: item[2])
    return Report(mock, rows, made / asked if asked else None, missed, weakest, len(qs))


def _mistakes(card: CardView, q: MockQuestion, field: Field) -> tuple[tuple[int, str, str], ...]:
    found = rubric.suggestions(card, field, q.answer, q.followup_answer or "")
    return tuple(
        (index, found.mistake_reasons.get(index, ""), card.mistakes_html[index])
        for index in found.mistakes
    )


def history(session: Session, user_id: int, catalog: Catalog) -> list[Report]:
    """Every session of the user as its report, newest first."""
    return [build(mock, qs, catalog) for mock, qs in _with_questions(session, user_id)]


def _with_questions(session: Session, user_id: int) -> list[tuple[MockSession, list[MockQuestion]]]:
    """Every session of the user, newest first, each with its questions: two queries however
    many sessions there are."""
    mocks = list(
        session.scalars(
            select(MockSession)
            .where(MockSession.user_id == user_id)
            .order_by(MockSession.created_at.desc(), MockSession.id.desc())
        )
    )
    by_session: dict[int, list[MockQuestion]] = {mock.id: [] for mock in mocks}
    rows = session.scalars(
        select(MockQuestion)
        .join(MockSession, MockSession.id == MockQuestion.session_id)
        .where(MockSession.user_id == user_id)
        .order_by(MockQuestion.session_id, MockQuestion.position)
    )
    for question in rows:
        # A session begun between the two queries (possible on PostgreSQL) is left out whole.
        if question.session_id in by_session:
            by_session[question.session_id].append(question)
    return [(mock, by_session[mock.id]) for mock in mocks]

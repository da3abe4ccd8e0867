"""The mock interview's JSON: what its routes take and what they answer."""

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, WithJsonSchema

from app import grading
from app.content.catalog import Catalog
from app.mock import followup as followups
from app.mock import report as reports
from app.mock import sessions as mocks
from app.mock import transcripts as spoken_text
from app.models import MockQuestion, MockSession, MockTranscript
from app.srs.days import as_utc
from app.srs.scheduling import HIGHEST_RATING, LOWEST_RATING, RATING_HELP
from app.web.text import CleanText

#: A time with its UTC offset written out ("…T09:00:00+00:00"), as the history has always had.
OffsetTime = Annotated[
    datetime,
    PlainSerializer(datetime.isoformat, return_type=str),
    WithJsonSchema({"type": "string", "format": "date-time"}),
]


class MockIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # no silent coercion

    preset: Literal["infra", "lightning", "custom"] = "custom"
    questions: int | None = Field(default=None, ge=mocks.QUESTIONS[0], le=mocks.QUESTIONS[-1])
    minutes: int | None = Field(default=None, ge=mocks.MINUTES[0], le=mocks.MINUTES[-1])
    followups: bool = True
    grade_after_each: bool = True
    topics: list[CleanText] = []


class AnswerIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # no silent coercion

    part: Literal["main", "followup"]
    text: CleanText


class SubmitIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # no silent coercion

    position: int = Field(ge=1, le=100, description="The question submitted (1-based).")
    part: Literal["main", "followup"] = Field(description="The answer submitted.")
    text: CleanText | None = Field(
        default=None, description="The final text, saved before submitting."
    )


class StartIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # no silent coercion

    position: int | None = Field(
        default=None, ge=1, le=100,
        description="The question started; naming it makes a resent start change nothing.",
    )  # fmt: skip


class GradeIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # no silent coercion

    points: list[int] = Field(description="Indexes of the rubric points the answer made.")
    rating: int = Field(ge=LOWEST_RATING, le=HIGHEST_RATING, description=RATING_HELP)
    position: int | None = Field(
        default=None, ge=1, le=100,
        description="The question graded; naming it makes a resent grade change nothing.",
    )  # fmt: skip


class PairLinkOut(BaseModel):
    invite_url: str = Field(description="The interviewer's page: /pair/<token>. Shown once.")
    expires_at: OffsetTime = Field(
        description="24 hours from now; the link ends sooner if the session does."
    )


class InterviewerOut(BaseModel):
    """What a friend interviewing by link marked (app.mock.pairing): advice beside the
    grader's suggestions; the candidate's own grade is what counts."""

    points: list[int] | None = Field(description="The rubric points (0-based) they heard made.")
    rating: int | None = Field(description="The rating they propose: " + RATING_HELP)
    followup: int | None = Field(description="The follow-up (0-based) they chose to ask.")

    @classmethod
    def of(cls, q: MockQuestion) -> "InterviewerOut | None":
        marks = (q.interviewer_points, q.interviewer_rating, q.interviewer_followup)
        if all(mark is None for mark in marks):
            return None
        return cls(points=marks[0], rating=marks[1], followup=marks[2])


class InterviewerActivityOut(BaseModel):
    """While the question is answered: that your interviewer is at work, not what they marked
    (the marks show when you grade, as the rubric does)."""

    noting: bool = Field(description="They have marked rubric points (which ones shows later).")
    followup_chosen: bool = Field(
        description="They have chosen the follow-up; it is asked when you submit the answer."
    )

    @classmethod
    def of(cls, q: MockQuestion) -> "InterviewerActivityOut | None":
        if q.interviewer_points is None and q.interviewer_followup is None:
            return None
        return cls(
            noting=q.interviewer_points is not None,
            followup_chosen=q.interviewer_followup is not None,
        )


class TranscriptIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # no silent coercion

    text: CleanText = Field(
        max_length=spoken_text.MAX_TEXT,
        description="What was said, as you correct it; it is graded with the typed answer.",
    )


class TranscriptOut(BaseModel):
    """What was said in one recorded take, when the server transcribes takes
    (RINGSIDE_TRANSCRIBE_URL)."""

    part: Literal["main", "followup"]
    take: int = Field(description="The recording, 1-based, as in the audio's URL.")
    state: Literal["pending", "done", "failed"] = Field(
        description="pending: being transcribed (GET it again); done: `text` is the "
        "transcript; failed: `error` says why (POST …/retry to try again)."
    )
    text: str = Field(description="The transcript, or your correction of it.")
    edited: bool = Field(description="You corrected it: the server never writes over it.")
    error: str | None = Field(description="Why the transcription failed, when it did.")
    updated_at: OffsetTime

    @classmethod
    def of(cls, row: MockTranscript) -> "TranscriptOut":
        return cls(
            part=row.part,  # type: ignore[arg-type]  # main | followup, as stored
            take=row.take,
            state=row.state,  # type: ignore[arg-type]  # one of the three, as stored
            text=row.text,
            edited=row.edited,
            error=row.error,
            updated_at=as_utc(row.updated_at),
        )


class QuestionOut(BaseModel):
    """One question; one not yet started shows nothing of itself, so it stays a surprise."""

    position: int
    card_id: str | None
    topic: str | None
    phase: str
    question_html: str
    answer: str
    followup: str | None
    followup_probes: list[int] | None = Field(
        description="The rubric points (0-based) the follow-up asked probes, once it is asked."
    )
    followup_reason: str | None = Field(
        description="Why this follow-up was asked: the first point the main answer missed "
        "that a follow-up probes, or the hardest follow-up when none was missed."
    )
    followup_answer: str
    started_at: datetime | None
    deadline: datetime | None
    followup_deadline: datetime | None
    suggested_points: list[int] | None = Field(
        description="The rubric points the answers seem to make: while the question waits to "
        "be graded, from the main and follow-up answers; afterwards, as they were suggested."
    )
    suggested_reasons: dict[int, str] | None = Field(
        description="While the question waits to be graded: for each suggested point, the "
        "words of the answers that made it."
    )
    suggested_mistakes: list[int] | None = Field(
        default=None,
        description="While the question waits to be graded: the card's common mistakes "
        "(0-based) the answers state.",
    )
    suggested_mistake_reasons: dict[int, str] | None = Field(
        default=None,
        description="While the question waits to be graded: for each mistake found, the "
        "answers' own words that state it.",
    )
    confirmed_points: list[int] | None
    rating: int | None
    interviewer: InterviewerOut | None = Field(
        default=None,
        description="Once the question waits to be graded: what your interviewer marked, if "
        "a friend interviewed you by link. Hidden before, as the rubric is.",
    )
    interviewer_activity: InterviewerActivityOut | None = Field(
        default=None,
        description="While the question is answered: whether your interviewer has marked "
        "points or chosen a follow-up, without which (GET /api/mock/{id}/events tells when "
        "this changes).",
    )
    transcripts: list[TranscriptOut] = Field(
        default=[],
        description="The recorded takes transcribed (or queued, or failed), by part and take; "
        "empty when the server transcribes nothing. Finished ones count with the typed "
        "answer in the suggested points.",
    )

    @classmethod
    def of(
        cls, q: MockQuestion, catalog: Catalog, transcripts: Iterable[MockTranscript] = ()
    ) -> "QuestionOut":
        rows = list(transcripts)
        asked = q.started_at is not None
        card = catalog.card(q.card_id) if asked else None
        followup = q.followup if q.submitted_at else None
        field = grading.Field.of(catalog)  # counted at start-up: a look-up
        probes, reason = followups.explain(card, q, field) if card and followup else (None, None)
        phase = mocks.phase(q)
        suggested, reasons = q.suggested_points, None
        mistakes: list[int] | None = None
        mistake_reasons: dict[int, str] | None = None
        if card and phase == "grading":
            check = mocks.suggestions(q, card, field, spoken_text.spoken(rows))
            suggested, reasons = check.points, check.reasons
            mistakes, mistake_reasons = check.mistakes, check.mistake_reasons
        return cls(
            position=q.position,
            card_id=q.card_id if asked else None,
            topic=card.topic_slug if card else None,
            phase=phase,
            question_html=card.question_html if card else "",
            answer=q.answer,
            followup=followup,
            followup_probes=probes,
            followup_reason=reason,
            followup_answer=q.followup_answer or "",
            started_at=q.started_at and as_utc(q.started_at),
            deadline=q.deadline and as_utc(q.deadline),
            followup_deadline=q.followup_deadline and as_utc(q.followup_deadline),
            suggested_points=suggested,
            suggested_reasons=reasons,
            suggested_mistakes=mistakes,
            suggested_mistake_reasons=mistake_reasons,
            confirmed_points=q.confirmed_points,
            rating=q.rating,
            interviewer=InterviewerOut.of(q) if phase in ("grading", "done") else None,
            interviewer_activity=(
                InterviewerActivityOut.of(q) if phase in ("answering", "followup") else None
            ),
            transcripts=[TranscriptOut.of(row) for row in rows],
        )


class MockOut(BaseModel):
    id: int
    preset: str
    status: str
    step: str
    current: int | None
    remaining_seconds: float | None
    minutes_per_question: int
    followups: bool
    grade_after_each: bool
    questions: list[QuestionOut]
    version: int = Field(
        default=0,
        description="Bumped by every change; GET /api/mock/{id}/events?since=<version> tells "
        "of newer ones.",
    )

    @classmethod
    def of(
        cls, mock: MockSession, qs: list[MockQuestion], catalog: Catalog, now: datetime,
        transcripts: Mapping[int, list[MockTranscript]] | None = None,
    ) -> "MockOut":  # fmt: skip
        """`transcripts`: the questions' (app.mock.transcripts.of_questions), by question id."""
        said = transcripts or {}
        qs = mocks.as_of_all(qs, now, catalog)  # a read: nothing is stored
        step = mocks.current_step(mock, qs, now, catalog)
        current, active = step.question, mock.status == "active"
        return cls(
            id=mock.id,
            preset=mock.preset,
            status=mock.status,
            step=step.kind if active else mock.status,
            current=current.position if current and active else None,
            remaining_seconds=mocks.remaining_seconds(current, now) if current else None,
            minutes_per_question=mock.minutes_per_question,
            followups=mock.followups,
            grade_after_each=mock.grade_after_each,
            questions=[QuestionOut.of(q, catalog, said.get(q.id, [])) for q in qs],
            version=mock.version,
        )


class SavedOut(BaseModel):
    saved_at: datetime
    remaining_seconds: float

    @classmethod
    def of(cls, question: MockQuestion, now: datetime) -> "SavedOut":
        return cls(saved_at=now, remaining_seconds=mocks.remaining_seconds(question, now))


class HistoryOut(BaseModel):
    """One past (or running) session in the history."""

    id: int
    preset: str
    status: str
    created_at: OffsetTime
    score: float | None = Field(
        description="Rubric points made over points asked, graded questions only."
    )
    questions: int = Field(description="Questions in the session, asked or not.")

    @classmethod
    def of(cls, report: reports.Report) -> "HistoryOut":
        mock = report.mock
        return cls(
            id=mock.id,
            preset=mock.preset,
            status=mock.status,
            created_at=as_utc(mock.created_at),
            score=report.score,
            questions=report.planned,
        )


class QuestionReportOut(BaseModel):
    position: int
    card_id: str
    topic: str
    seconds_used: float | None
    followup_seconds_used: float | None
    followup: str | None
    followup_probes: list[int]
    followup_reason: str | None
    points_made: list[int]
    points_total: int
    coverage: float | None = Field(description="Points made over points asked, once graded.")
    rating: int | None
    mistakes: list[int] = Field(
        default=[], description="The card's common mistakes (0-based) the answers state."
    )
    mistake_reasons: dict[str, str] = Field(
        default={}, description="For each mistake found, by index: the answer's words."
    )
    interviewer_points: list[int] | None = Field(
        description="The rubric points a friend interviewing by link marked made, if any."
    )
    interviewer_rating: int | None = Field(description="The rating that friend proposed.")
    followup_chosen_by: Literal["interviewer", "grader"] | None = Field(
        description="Who chose the follow-up asked: your interviewer, or the local grader."
    )

    @classmethod
    def of(cls, q: reports.QuestionReport) -> "QuestionReportOut":
        return cls(
            position=q.position,
            card_id=q.card.id,
            topic=q.card.topic_slug,
            seconds_used=q.seconds_used,
            followup_seconds_used=q.followup_seconds_used,
            followup=q.followup,
            followup_probes=q.followup_probes,
            followup_reason=q.followup_reason,
            points_made=q.points_made,
            points_total=q.points_total,
            coverage=q.coverage,
            rating=q.rating,
            mistakes=[index for index, _said, _html in q.mistakes],
            mistake_reasons={str(index): said for index, said, _html in q.mistakes},
            interviewer_points=q.interviewer_points,
            interviewer_rating=q.interviewer_rating,
            followup_chosen_by=q.followup_chosen_by,  # type: ignore[arg-type]
        )


class WeakTopicOut(BaseModel):
    topic: str
    title: str
    coverage: float


class ReportOut(BaseModel):
    id: int
    status: str
    score: float | None
    questions: list[QuestionReportOut] = Field(
        description="The questions asked so far; one not yet started is not shown."
    )
    weakest_topics: list[WeakTopicOut] = Field(description="Lowest rubric coverage first.")

    @classmethod
    def of(cls, report: reports.Report) -> "ReportOut":
        return cls(
            id=report.mock.id,
            status=report.mock.status,
            score=report.score,
            questions=[QuestionReportOut.of(q) for q in report.questions],
            weakest_topics=[
                WeakTopicOut(topic=slug, title=title, coverage=coverage)
                for slug, title, coverage in report.weakest_topics
            ],
        )

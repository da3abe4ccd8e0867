"""Tables. Content lives in files; the database holds people and their progress."""

from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Constraint names are fixed so migrations are the same on SQLite and PostgreSQL.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class User(Base):
    """A person using Ringside; in local mode there is exactly one, named `local`."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(64), unique=True)
    display_name: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # argon2id (pwdlib); None for the local profile, which never signs in.
    password_hash: Mapped[str | None] = mapped_column(String(255), default=None)
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)


class Attempt(Base):
    """One typed answer to a numeric card, with the numbers that were drawn for it."""

    __tablename__ = "attempts"
    __table_args__ = (
        Index("ix_attempts_user_card", "user_id", "card_id", "created_at"),
        UniqueConstraint("user_id", "idempotency_key"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    card_id: Mapped[str] = mapped_column(String(80))
    seed: Mapped[int | None] = mapped_column(Integer)
    drawn_values: Mapped[dict[str, Any]] = mapped_column(JSON)
    answer: Mapped[str] = mapped_column(String(200))
    given_value: Mapped[float] = mapped_column(Float)  # in the card's unit
    expected_value: Mapped[float] = mapped_column(Float)  # in the card's unit
    unit: Mapped[str] = mapped_column(String(16))
    correct: Mapped[bool] = mapped_column(Boolean)
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    idempotency_key: Mapped[str | None] = mapped_column(String(100))  # a resend returns the row


class ReviewSettings(Base):
    """How a user reviews: retention target, daily limits, and what "today" means."""

    __tablename__ = "review_settings"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    desired_retention: Mapped[float] = mapped_column(Float, default=0.9)
    new_per_day: Mapped[int] = mapped_column(Integer, default=10)
    max_reviews_per_day: Mapped[int] = mapped_column(Integer, default=200)
    day_boundary_hour: Mapped[int] = mapped_column(Integer, default=4)
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    # FSRS's 21 parameters fitted to this user's reviews (app.srs.optimizer); None: defaults.
    fsrs_parameters: Mapped[list[float] | None] = mapped_column(JSON, default=None)
    parameters_fitted_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), default=None
    )


class ExtraNewCards(Base):
    """New cards a user asked for on top of the day's limit or plan, for one study day."""

    __tablename__ = "extra_new_cards"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    day: Mapped[date] = mapped_column(Date)  # the study day they are for; older rows count 0
    count: Mapped[int] = mapped_column(Integer)


#: The minutes a day a plan may ask for; the plan's form, its API and an import check them.
PLAN_MINUTES = (10, 600)
PLAN_HORIZON_DAYS = 365  # how far ahead a loop date may be set


class StudyPlan(Base):
    """The day of a user's interview loop, and what they study towards it (app.plan)."""

    __tablename__ = "study_plans"

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    loop_date: Mapped[date] = mapped_column(Date)
    daily_minutes: Mapped[int] = mapped_column(Integer)
    topics: Mapped[list[str]] = mapped_column(JSON)  # empty: every topic
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class CardState(Base):
    """A user's FSRS memory state for one card; no row means the card is still new."""

    __tablename__ = "card_states"
    __table_args__ = (
        UniqueConstraint("user_id", "card_id"),
        Index("ix_card_states_user_due", "user_id", "due"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    card_id: Mapped[str] = mapped_column(String(80))
    state: Mapped[int] = mapped_column(Integer)  # fsrs.State: 1 learning, 2 review, 3 relearning
    step: Mapped[int | None] = mapped_column(Integer)
    stability: Mapped[float | None] = mapped_column(Float)
    difficulty: Mapped[float | None] = mapped_column(Float)
    due: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_review: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    reps: Mapped[int] = mapped_column(Integer, default=0)
    lapses: Mapped[int] = mapped_column(Integer, default=0)


class ReviewLog(Base):
    """One grade given to one card, with the state before it so it can be undone."""

    __tablename__ = "review_logs"
    __table_args__ = (
        UniqueConstraint("user_id", "idempotency_key"),
        Index("ix_review_logs_user_time", "user_id", "reviewed_at"),
        Index("ix_review_logs_user_card", "user_id", "card_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    card_id: Mapped[str] = mapped_column(String(80))
    rating: Mapped[int] = mapped_column(Integer)
    reviewed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(String(16))  # review | embedded | mock | drill
    was_new: Mapped[bool] = mapped_column(Boolean)  # the card's first review: counts as new
    idempotency_key: Mapped[str | None] = mapped_column(String(100))
    state_before: Mapped[dict[str, Any] | None] = mapped_column(JSON)  # None: the card was new
    state_after: Mapped[dict[str, Any]] = mapped_column(JSON)
    interval_days: Mapped[float] = mapped_column(Float)  # the interval this review gave
    # The interval the card had been scheduled for before this review: true retention tells
    # young (< 21 days) from mature cards with it, as Anki does.
    prior_interval_days: Mapped[float | None] = mapped_column(Float)


class MockSession(Base):
    """A timed mock interview: a few questions, each with a server-kept deadline."""

    __tablename__ = "mock_sessions"
    __table_args__ = (Index("ix_mock_sessions_user_created", "user_id", "created_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    preset: Mapped[str] = mapped_column(String(32))
    minutes_per_question: Mapped[int] = mapped_column(Integer)
    followups: Mapped[bool] = mapped_column(Boolean)
    grade_after_each: Mapped[bool] = mapped_column(Boolean)
    topics: Mapped[list[str]] = mapped_column(JSON)  # empty: all topics
    status: Mapped[str] = mapped_column(String(16))  # active | finished | abandoned
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # Bumped by every change the live pages show (app.mock.live): a page that reconnects
    # says which version it saw, and hears at once if there is a newer one.
    version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class MockQuestion(Base):
    """One question of a mock: its main answer, its follow-up, and how it was graded."""

    __tablename__ = "mock_questions"
    __table_args__ = (UniqueConstraint("session_id", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("mock_sessions.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)  # 1-based
    card_id: Mapped[str] = mapped_column(String(80))
    followup: Mapped[str | None] = mapped_column(Text)  # the follow-up question asked
    # Why that follow-up, kept when it was chosen: the content and the grader may change later.
    followup_probes: Mapped[list[int] | None] = mapped_column(JSON, default=None)
    followup_reason: Mapped[str | None] = mapped_column(Text, default=None)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    answer: Mapped[str] = mapped_column(Text, default="")
    submitted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    followup_started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    followup_deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    followup_answer: Mapped[str] = mapped_column(Text, default="")
    followup_submitted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    saved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    suggested_points: Mapped[list[int] | None] = mapped_column(JSON)  # rubric indexes found
    confirmed_points: Mapped[list[int] | None] = mapped_column(JSON)  # what the user confirmed
    rating: Mapped[int | None] = mapped_column(Integer)
    graded_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # What a friend interviewing by link (MockPairing) marked: shown beside the grader's
    # suggestions when the candidate grades; the candidate's own grade is what counts.
    interviewer_points: Mapped[list[int] | None] = mapped_column(JSON, default=None)
    interviewer_rating: Mapped[int | None] = mapped_column(Integer, default=None)
    interviewer_followup: Mapped[int | None] = mapped_column(Integer, default=None)  # index


class MockPairing(Base):
    """A link that lets a friend interview: it opens one mock session's interviewer view.

    Only a hash of the link's token is stored. One link per session: a new one replaces it.
    """

    __tablename__ = "mock_pairings"

    id: Mapped[int] = mapped_column(primary_key=True)
    session_id: Mapped[int] = mapped_column(
        ForeignKey("mock_sessions.id", ondelete="CASCADE"), unique=True
    )
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class MockAudioChunk(Base):
    """A piece of a spoken answer, as the browser's recorder handed it over.

    A take is one recording (start to stop) of one part of a question; its chunks, joined in
    sequence order, are the take's audio file. Kept in the database, not in files, so every
    app process behind a load balancer sees the same recordings, and deleting a mock session
    (or its user) deletes them by cascade.
    """

    __tablename__ = "mock_audio_chunks"
    __table_args__ = (UniqueConstraint("question_id", "part", "take", "seq"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    question_id: Mapped[int] = mapped_column(
        ForeignKey("mock_questions.id", ondelete="CASCADE"), index=True
    )
    part: Mapped[str] = mapped_column(String(8))  # main | followup
    take: Mapped[int] = mapped_column(Integer)  # 1, 2, … per part
    seq: Mapped[int] = mapped_column(Integer)  # 0, 1, … within the take
    mime: Mapped[str] = mapped_column(String(64))
    data: Mapped[bytes] = mapped_column(LargeBinary)
    received_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class MockTranscript(Base):
    """What was said in one take, as a transcription server heard it (app.mock.transcripts),
    and then as its speaker corrected it.

    state: pending (queued, or being transcribed since claimed_at), done, or failed (with a
    short reason; a retry makes it pending again). Only the speaker's edit or the server's
    first answer writes `text`; the server never overwrites an edit.
    """

    __tablename__ = "mock_transcripts"
    __table_args__ = (UniqueConstraint("question_id", "part", "take"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    question_id: Mapped[int] = mapped_column(
        ForeignKey("mock_questions.id", ondelete="CASCADE"), index=True
    )
    part: Mapped[str] = mapped_column(String(8))  # main | followup
    take: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(String(8), index=True)  # pending | done | failed
    text: Mapped[str] = mapped_column(Text, default="")
    error: Mapped[str | None] = mapped_column(String(200), nullable=True)
    edited: Mapped[bool] = mapped_column(Boolean, default=False)
    claimed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class AuthSession(Base):
    """A signed-in browser. Only a hash of the cookie's value is stored."""

    __tablename__ = "auth_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    csrf_token: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))  # absolute timeout


class ApiToken(Base):
    """A personal token for scripts: `Authorization: Bearer …`; only its hash is stored."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))  # None: never


class LoginAttempt(Base):
    """Every sign-in attempt, so failures are limited across workers and instances."""

    __tablename__ = "login_attempts"
    __table_args__ = (
        Index("ix_login_attempts_username_at", "username", "at"),
        Index("ix_login_attempts_address_at", "address", "at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(64))
    address: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    succeeded: Mapped[bool] = mapped_column(Boolean)
    # "sign-in", or "register": registrations are limited per address too.
    kind: Mapped[str] = mapped_column(String(16), default="sign-in", server_default="sign-in")


class ImportRecord(Base):
    """One file imported into an account: imports per day are capped (app.quotas)."""

    __tablename__ = "import_records"
    __table_args__ = (Index("ix_import_records_user_at", "user_id", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Invite(Base):
    """A one-use registration code, for when registration is by invitation."""

    __tablename__ = "invites"

    id: Mapped[int] = mapped_column(primary_key=True)
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    used_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

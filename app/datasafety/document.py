"""The export document: one JSON file holding a user's learning data, validated on the way in.

It carries progress, never secrets: no password hash, session or API token. Every model
forbids unknown fields and caps what the tables cap, so a foreign or edited file is refused
with the path of its first problem before anything is written.
"""

import base64
import binascii
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from typing import Annotated, Any, Literal
from zoneinfo import available_timezones

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    Strict,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from app.drills.engine import MAX_SEED
from app.errors import DomainError
from app.mock import audio as voice
from app.mock.sessions import MAX_ANSWER
from app.models import PLAN_HORIZON_DAYS, PLAN_MINUTES
from app.srs import optimizer, scheduling
from app.srs import settings as srs_settings
from app.srs.review import SOURCES

APP = "ringside"
FORMAT = 1  # bump (and ExportDocument.format) when an older Ringside would misread a file
INT32 = 2**31 - 1


class DocumentError(DomainError):
    """The file is not a Ringside export this version can read; the message says why."""

    def __init__(self, message: str) -> None:
        super().__init__(None, message, code="not_an_export")


def _time_text(value: Any) -> Any:
    if not isinstance(value, str | datetime):  # lax parsing would take 1700000000 for a time
        raise ValueError("must be an ISO 8601 date-time string")
    return value


def _date_text(value: Any) -> Any:
    if not isinstance(value, str | date) or isinstance(value, datetime):
        raise ValueError("must be an ISO 8601 date string (YYYY-MM-DD)")
    return value


def _utc(moment: datetime) -> datetime:
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise ValueError("out of range once in UTC") from None


def _iso_time(text: str) -> str:
    """A time kept as text inside a stored JSON state; undo stores it back as it reads it."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError("not an ISO 8601 time") from None
    if moment.utcoffset() != timedelta(0):  # stored times are UTC, offsets are not converted
        raise ValueError("must be in UTC (+00:00)")
    _sane(moment)
    return text


EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
LATEST = datetime(2200, 1, 1, tzinfo=UTC)  # FSRS's longest interval is 100 years


def _sane(moment: datetime) -> datetime:
    """Dates a study log can hold: anything else would break day arithmetic later."""
    if not EARLIEST <= moment < LATEST:
        raise ValueError(f"must be between {EARLIEST:%Y-%m-%d} and {LATEST:%Y-%m-%d}")
    return moment


@lru_cache(maxsize=1)
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


def _zone(name: str) -> str:
    """A time zone the system knows by that name (not a folder such as "America")."""
    if name not in _zones():
        raise ValueError(f"unknown time zone {name!r}")
    return name


def _schedulable(state: int, stability: float | None, difficulty: float | None) -> None:
    problem = scheduling.damage(state, stability, difficulty)
    if problem is not None:
        raise ValueError(f"cannot be scheduled: {problem.removeprefix('its ')}")


def _source(name: str) -> str:
    if name not in SOURCES:
        raise ValueError(f"must be one of {', '.join(SOURCES)}")
    return name


Time = Annotated[
    AwareDatetime,
    Strict(False),
    BeforeValidator(_time_text),
    AfterValidator(_utc),
    AfterValidator(_sane),
]
Day = Annotated[date, Strict(False), BeforeValidator(_date_text)]
IsoTime = Annotated[str, StringConstraints(max_length=40), AfterValidator(_iso_time)]
CardId = Annotated[str, StringConstraints(min_length=1, max_length=80)]
Count = Annotated[int, Field(ge=0, le=INT32)]
Millis = Annotated[int, Field(ge=0, le=INT32)]
Rating = Annotated[int, Field(ge=1, le=4)]
FsrsState = Annotated[int, Field(ge=1, le=3, description="1 learning, 2 review, 3 relearning")]
# Bounds no real record comes near, so a crafted file cannot store 1e308 for later arithmetic:
# FSRS caps an interval at 36,500 days; a drill's quantities stay far below 1e30 (FLOPs of a
# frontier run are about 1e25).
Days = Annotated[float, Field(ge=0, le=100_000)]
Quantity = Annotated[float, Field(ge=-1e30, le=1e30)]
# FSRS divides by stability and keeps difficulty in [1, 10]; anything else breaks scheduling.
Stability = Annotated[float, Field(gt=0, le=1e6)]
Difficulty = Annotated[
    float, Field(ge=scheduling.DIFFICULTY_RANGE[0], le=scheduling.DIFFICULTY_RANGE[1])
]


class Record(BaseModel):
    # Strict: the types the schema promises and no coercion ("5" is not 5), for files and the
    # API alike; times are the exception, as JSON has only strings for them.
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    @field_validator("*")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        # PostgreSQL text cannot hold U+0000: refuse it here rather than fail mid-import.
        if _has_nul(value):
            raise ValueError("contains a NUL character")
        return value


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, list):
        return any(_has_nul(item) for item in value)
    if isinstance(value, dict):
        return any(_has_nul(key) or _has_nul(item) for key, item in value.items())
    return False


class UserDoc(Record):
    """Whose data this was; informational: import never changes the target's name."""

    username: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    display_name: Annotated[str, StringConstraints(max_length=128)]


class ReviewSettingsDoc(Record):
    desired_retention: float
    new_per_day: int
    max_reviews_per_day: int
    day_boundary_hour: int
    timezone: Annotated[str, StringConstraints(max_length=64), AfterValidator(_zone)]
    # FSRS parameters fitted to the user (app.srs.optimizer); absent in older exports.
    fsrs_parameters: list[float] | None = None

    @model_validator(mode="after")
    def _in_range(self) -> "ReviewSettingsDoc":
        # The limits the settings page applies, and parameters FSRS accepts.
        srs_settings.validate(self.model_dump(exclude={"fsrs_parameters"}))
        if self.fsrs_parameters is not None:
            optimizer.check_parameters(self.fsrs_parameters)
        return self


class StudyPlanDoc(Record):
    """The loop date and the minutes a day studied towards it (app.plan)."""

    loop_date: Day
    daily_minutes: Annotated[int, Field(ge=PLAN_MINUTES[0], le=PLAN_MINUTES[1])]
    topics: Annotated[
        list[Annotated[str, StringConstraints(min_length=1, max_length=80)]], Field(max_length=50)
    ] = []  # empty: every topic
    updated_at: Time

    @model_validator(mode="after")
    def _sane_date(self) -> "StudyPlanDoc":
        _sane(datetime.combine(self.loop_date, datetime.min.time(), UTC))
        # As the plan's form allows: after the day it was set, and within the year after it.
        set_on = self.updated_at.date()
        if not set_on < self.loop_date <= set_on + timedelta(days=PLAN_HORIZON_DAYS + 1):
            raise ValueError(
                f"loop_date must fall within {PLAN_HORIZON_DAYS} days after updated_at"
            )
        return self


class StateSnapshot(Record):
    """A card's FSRS state as a review log stores it (before and after the grade)."""

    state: FsrsState
    step: Count | None
    stability: Stability | None
    difficulty: Difficulty | None
    due: IsoTime
    last_review: IsoTime | None
    reps: Count
    lapses: Count

    @model_validator(mode="after")
    def _can_schedule(self) -> "StateSnapshot":
        _schedulable(self.state, self.stability, self.difficulty)
        return self


class CardStateDoc(Record):
    card_id: CardId
    state: FsrsState
    step: Count | None
    stability: Stability | None
    difficulty: Difficulty | None
    due: Time
    last_review: Time | None
    reps: Count
    lapses: Count

    @model_validator(mode="after")
    def _can_schedule(self) -> "CardStateDoc":
        _schedulable(self.state, self.stability, self.difficulty)
        return self


class ReviewLogDoc(Record):
    """One grade. Its idempotency key stays behind: it only guards a retried request, and a
    mock's key names the mock's id, which another database would give to a different mock."""

    card_id: CardId
    rating: Rating
    reviewed_at: Time
    duration_ms: Millis | None
    source: Annotated[str, AfterValidator(_source)]
    was_new: bool
    state_before: StateSnapshot | None
    state_after: StateSnapshot
    interval_days: Days
    prior_interval_days: Days | None


class AttemptDoc(Record):
    card_id: CardId
    seed: Annotated[int, Field(ge=0, le=MAX_SEED)] | None
    drawn_values: dict[str, JsonValue]
    answer: Annotated[str, StringConstraints(max_length=200)]
    given_value: Quantity
    expected_value: Quantity
    unit: Annotated[str, StringConstraints(max_length=16)]
    correct: bool
    duration_ms: Millis | None
    created_at: Time


Points = Annotated[list[Annotated[int, Field(ge=0, le=99)]], Field(max_length=100)]
Text = Annotated[str, StringConstraints(max_length=MAX_ANSWER)]


def _audio(text: str) -> str:
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("not base64") from None
    if not data:
        raise ValueError("a recording cannot be empty")
    if len(data) > voice.MAX_BYTES:
        raise ValueError(f"a recording may hold at most {voice.MAX_BYTES // 2**20} MB")
    return text


def _audio_type(text: str) -> str:
    """The recording's type as Ringside stores it; anything but plain audio is refused."""
    stored = voice.media_type(text)
    if stored is None:
        raise ValueError(
            "not an audio type Ringside keeps (audio/webm, audio/ogg or audio/mp4, with at "
            "most a codecs= list of codec names)"
        )
    return stored


class RecordingDoc(Record):
    """A spoken answer: one take of one part, its audio as base64 inside the document, so the
    export stays one self-contained file that imports as the rest does."""

    part: Literal["main", "followup"]
    take: Annotated[int, Field(ge=1, le=voice.MAX_TAKES)]
    mime: Annotated[str, StringConstraints(max_length=64), AfterValidator(_audio_type)]
    data: Annotated[
        str,
        StringConstraints(max_length=(voice.MAX_BYTES + 2) // 3 * 4),
        AfterValidator(_audio),
    ]
    transcript: Annotated[str | None, StringConstraints(max_length=MAX_ANSWER)] = Field(
        default=None,
        description="What was said, as transcribed and corrected (app.mock.transcripts); "
        "absent when the take was never transcribed.",
    )


class MockQuestionDoc(Record):
    position: Annotated[int, Field(ge=1, le=100)]
    card_id: CardId
    followup: Text | None
    # Why the follow-up was chosen, as kept then (absent in older exports).
    followup_probes: Points | None = None
    followup_reason: Text | None = None
    started_at: Time | None
    deadline: Time | None
    answer: Text
    submitted_at: Time | None
    followup_started_at: Time | None
    followup_deadline: Time | None
    followup_answer: Text
    followup_submitted_at: Time | None
    saved_at: Time | None
    suggested_points: Points | None
    confirmed_points: Points | None
    rating: Rating | None
    graded_at: Time | None
    # What a friend interviewing by link marked (absent in older exports).
    interviewer_points: Points | None = None
    interviewer_rating: Rating | None = None
    interviewer_followup: Annotated[int, Field(ge=0, le=100)] | None = None
    # Spoken answers (absent in older exports).
    recordings: Annotated[list[RecordingDoc], Field(max_length=2 * voice.MAX_TAKES)] = []

    @model_validator(mode="after")
    def _takes_unique(self) -> "MockQuestionDoc":
        keys = [(r.part, r.take) for r in self.recordings]
        if len(set(keys)) != len(keys):
            raise ValueError("two recordings share a part and take")
        for part in ("main", "followup"):
            size = sum(len(r.data) * 3 // 4 for r in self.recordings if r.part == part)
            if size > voice.MAX_BYTES + 2 * voice.MAX_TAKES:
                raise ValueError(
                    f"the {part} answer's recordings exceed {voice.MAX_BYTES // 2**20} MB"
                )
        return self


class MockSessionDoc(Record):
    preset: Annotated[str, StringConstraints(min_length=1, max_length=32)]
    minutes_per_question: Annotated[int, Field(ge=1, le=1440)]
    followups: bool
    grade_after_each: bool
    topics: Annotated[list[Annotated[str, StringConstraints(max_length=80)]], Field(max_length=50)]
    status: Literal["active", "finished", "abandoned"]
    created_at: Time
    finished_at: Time | None
    questions: Annotated[list[MockQuestionDoc], Field(max_length=100)]

    @model_validator(mode="after")
    def _positions_unique(self) -> "MockSessionDoc":
        positions = [q.position for q in self.questions]
        if len(set(positions)) != len(positions):
            raise ValueError("two questions share a position")
        return self


class ExportDocument(Record):
    """Everything one user has learnt and done in Ringside, in one file."""

    app: Literal["ringside"] = "ringside"
    format: Literal[1] = 1
    user: UserDoc
    review_settings: ReviewSettingsDoc | None
    # The loop date and daily minutes; absent in older exports, null without a plan.
    study_plan: StudyPlanDoc | None = None
    card_states: list[CardStateDoc]
    review_logs: list[ReviewLogDoc]
    attempts: list[AttemptDoc]
    mock_sessions: list[MockSessionDoc]

    @model_validator(mode="before")
    @classmethod
    def _is_ours(cls, data: Any) -> Any:
        # Say what the file is before listing forty missing fields.
        if not isinstance(data, dict) or data.get("app") != APP:
            raise ValueError('not a Ringside export (it has no "app": "ringside" field)')
        version = data.get("format")
        if isinstance(version, int) and version > FORMAT:
            raise ValueError(
                f"written by a newer Ringside (format {version}); this one reads format {FORMAT}"
            )
        return data

    @model_validator(mode="after")
    def _cards_unique(self) -> "ExportDocument":
        cards = [s.card_id for s in self.card_states]
        if len(set(cards)) != len(cards):
            raise ValueError("card_states lists a card twice")
        return self


def dumps(document: ExportDocument) -> str:
    """The document as the text a download or `ringside export` writes."""
    return document.model_dump_json(indent=2) + "\n"


def parse(raw: bytes | str) -> ExportDocument:
    """Read an export; raises DocumentError with one clear line when it cannot be used."""
    try:
        return ExportDocument.model_validate_json(raw)
    except ValidationError as error:
        raise DocumentError(describe(error)) from None


def describe(error: ValidationError) -> str:
    """The first problem as `path: message`, and how many more there are."""
    problems = error.errors(include_url=False)
    first = problems[0]
    if first["type"] == "json_invalid":
        return f"not a JSON file ({first['ctx'].get('error', 'invalid JSON')})"
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"]).lstrip(".")
    message = first["msg"].removeprefix("Value error, ")
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{path}: {message}{more}" if path else f"{message}{more}"

"""The JSON shapes of review: grades (the page's and the offline batch's), the queue, undo."""

from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.srs import extra, review
from app.srs.scheduling import HIGHEST_RATING, LOWEST_RATING, RATING_HELP
from app.srs.submit import Grade
from app.web.text import CleanText


class GradeIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # no silent coercion

    rating: int = Field(ge=LOWEST_RATING, le=HIGHEST_RATING, description=RATING_HELP)
    idempotency_key: CleanText = Field(
        min_length=1,
        max_length=100,
        description="A fresh random string per grade; resending it records nothing new.",
    )
    duration_ms: int | None = Field(default=None, ge=0, le=86_400_000)
    source: Literal["review", "embedded"] = "review"
    reviewed_at: datetime | None = Field(
        default=None,
        strict=False,
        description="When the grade was given, in UTC (ISO 8601, e.g. 2026-03-02T12:00:00Z),"
        " for a grade sent later; at most 7 days ago and not in the future. Default: now.",
    )

    @field_validator("reviewed_at", mode="before")
    @classmethod
    def _iso_text(cls, value: object) -> object:
        if value is not None and not isinstance(value, str | datetime):
            raise ValueError("must be an ISO 8601 date and time, e.g. 2026-03-02T12:00:00Z")
        return value

    @field_validator("reviewed_at")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        if value is None:
            return None
        if value.utcoffset() is None:
            raise ValueError("needs a time zone: send UTC, e.g. 2026-03-02T12:00:00Z")
        try:
            return value.astimezone(UTC)
        except OverflowError:
            raise ValueError("is out of range") from None

    def to_grade(self) -> Grade:
        return Grade(
            rating=self.rating,
            idempotency_key=self.idempotency_key,
            duration_ms=self.duration_ms,
            source=self.source,
            reviewed_at=self.reviewed_at,
        )


class GradeOut(BaseModel):
    card_id: str
    state: str
    due: str
    stability: float | None
    difficulty: float | None
    interval_days: float

    @classmethod
    def of(cls, result: review.GradeResult) -> "GradeOut":
        return cls(
            card_id=result.card_id,
            state=result.state,
            due=result.due.isoformat(),
            stability=result.stability,
            difficulty=result.difficulty,
            interval_days=result.interval_days,
        )


class QueueCardOut(BaseModel):
    card_id: str
    topic: str
    kind: str
    prompt_html: str
    due: str | None


class QueueOut(BaseModel):
    cards: list[QueueCardOut]
    due_count: int
    new_count: int


class ExtraIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    new_cards: int = Field(
        ge=extra.PER_REQUEST[0],
        le=extra.PER_REQUEST[1],
        description="How many more unseen cards to learn today, on top of the daily limit or "
        "the plan's share",
    )


class ExtraOut(BaseModel):
    extra_today: int = Field(description="Extra new cards asked for today, this request's included")
    new_count: int = Field(description="New cards now left in today's queue")


class UndoOut(BaseModel):
    card_id: str
    rating: int

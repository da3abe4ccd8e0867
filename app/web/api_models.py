"""The JSON shapes of the health and drill API (they are part of the OpenAPI schema)."""

from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.web.text import CleanText


class HealthOut(BaseModel):
    status: str
    topics: int
    cards: int
    database: str


class DrawOut(BaseModel):
    """A numeric card's question with freshly drawn numbers (or its fixed question)."""

    card_id: str
    seed: int | None
    values: dict[str, Any]
    question: str
    question_html: str
    unit: str
    tolerance: float


class AttemptIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # no silent coercion

    answer: CleanText = Field(description='The typed answer with its unit, e.g. "31.4 GB".')
    seed: int | None = Field(default=None, description="The seed of the draw being answered.")
    duration_ms: int | None = Field(default=None, ge=0, le=86_400_000)
    idempotency_key: str | None = Field(
        default=None,
        min_length=1,
        max_length=100,
        description="Sending the same key again returns the first attempt, recording nothing.",
    )


class AttemptOut(BaseModel):
    id: int
    card_id: str
    seed: int | None
    values: dict[str, Any]
    answer: str
    correct: bool
    given_value: float
    expected_value: float
    unit: str
    tolerance: float
    relative_error: float
    suggested_rating: int = Field(description="1 Again, 2 Hard, 3 Good.")
    message: str
    solution: str
    solution_html: str


class AttemptRecordOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    card_id: str
    seed: int | None
    values: dict[str, Any] = Field(validation_alias="drawn_values")
    answer: str
    given_value: float
    expected_value: float
    unit: str
    correct: bool
    duration_ms: int | None
    created_at: datetime

    @field_validator("created_at")
    @classmethod
    def _utc(cls, moment: datetime) -> datetime:
        # SQLite hands back naive datetimes; every stored time is UTC.
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)

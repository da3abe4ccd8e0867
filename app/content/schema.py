"""The shape of a topic file: front matter and cards, as pydantic models (see content/README.md)."""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from app.content import units

Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=80)]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]

CARD_KINDS = ("recall", "derivation", "numeric", "order")


class Strict(BaseModel):
    """Unknown fields are errors, so a typo (`folowups:`) is caught instead of ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Reference(Strict):
    key: Slug
    text: Text
    url: str | None = None


class FrontMatter(Strict):
    slug: Slug
    order: int = Field(ge=1)
    title: Text
    summary: Text
    labs: list[Slug] = []
    related: list[Slug] = []
    references: list[Reference] = Field(min_length=1)


class RubricPoint(Strict):
    point: Text
    keywords: list[Text] = Field(min_length=1)


class CardBase(Strict):
    id: Slug
    question: Text
    answer: Text | None = None
    rubric: list[RubricPoint] = Field(min_length=3, max_length=6)
    followups: list[Text] = Field(min_length=1)
    mistakes: list[Text] = Field(min_length=1)
    sources: list[Text] = Field(min_length=1)
    tags: list[Text] = []


class RecallCard(CardBase):
    kind: Literal["recall"]
    answer: Text


class DerivationCard(CardBase):
    kind: Literal["derivation"]
    steps: list[Text] = Field(min_length=3, max_length=8)


class NumericCard(CardBase):
    kind: Literal["numeric"]
    value: float
    unit: str
    tolerance: float = Field(default=0.02, gt=0, lt=1)
    answer: Text

    @field_validator("unit")
    @classmethod
    def _known_unit(cls, unit: str) -> str:
        if not units.is_known(unit):
            raise ValueError(f"unknown unit {unit!r} (see the list in content/README.md)")
        return unit


class OrderCard(CardBase):
    kind: Literal["order"]
    steps: list[Text] = Field(min_length=3, max_length=10)


Card = RecallCard | DerivationCard | NumericCard | OrderCard
CARD_MODELS: dict[str, type[Card]] = {
    "recall": RecallCard,
    "derivation": DerivationCard,
    "numeric": NumericCard,
    "order": OrderCard,
}

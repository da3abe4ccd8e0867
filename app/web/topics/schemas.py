"""The JSON shapes of the topic and card API (part of the OpenAPI schema)."""

from datetime import date
from typing import Any

from pydantic import BaseModel, Field

from app.content.catalog import CardView, Topic


class RubricPointOut(BaseModel):
    point: str
    keywords: list[str]


class CardOut(BaseModel):
    id: str
    kind: str
    topic: str
    url: str
    question: str
    answer: str | None
    steps: list[str] | None
    value: float | None
    unit: str | None
    tolerance: float | None
    drill: dict[str, Any] | None = Field(
        description="For a parametric numeric card: the lab function, fixed inputs, drawn "
        "ranges and output; GET /api/cards/{id}/draw gives a question with numbers."
    )
    rubric: list[RubricPointOut]
    followups: list[str]
    followup_probes: list[list[int]] = Field(
        description="For each follow-up, the rubric points (0-based) it probes; [] for none."
    )
    followup_answers: list[str] = Field(
        description="For each follow-up, a short reference answer (markdown): what settles it."
    )
    mistakes: list[str]
    sources: list[str]
    tags: list[str]

    @classmethod
    def of(cls, view: CardView) -> "CardOut":
        card = view.card
        return cls(
            id=card.id,
            kind=card.kind,
            topic=view.topic_slug,
            url=f"/cards/{card.id}",
            question=card.question,
            answer=card.answer,
            steps=list(getattr(card, "steps", [])) or None,
            value=getattr(card, "value", None),
            unit=getattr(card, "unit", None),
            tolerance=getattr(card, "tolerance", None),
            drill=drill.model_dump(exclude_none=True)
            if (drill := getattr(card, "drill", None))
            else None,
            rubric=[RubricPointOut(point=p.point, keywords=list(p.keywords)) for p in card.rubric],
            followups=[f.question for f in card.followups],
            followup_probes=[list(f.probes) for f in card.followups],
            followup_answers=[f.answer for f in card.followups],
            mistakes=[m.text for m in card.mistakes],
            sources=list(card.sources),
            tags=list(card.tags),
        )


class TopicSummaryOut(BaseModel):
    slug: str
    title: str
    summary: str
    order: int
    card_count: int
    url: str

    @classmethod
    def of(cls, topic: Topic) -> "TopicSummaryOut":
        return cls(
            slug=topic.slug,
            title=topic.title,
            summary=topic.meta.summary,
            order=topic.meta.order,
            card_count=len(topic.cards),
            url=f"/topics/{topic.slug}",
        )


class ReferenceOut(BaseModel):
    key: str
    text: str
    url: str | None


class TopicOut(TopicSummaryOut):
    labs: list[str]
    related: list[str]
    checked_on: date = Field(
        description="The day the topic was last checked against its sources (ISO date)."
    )
    checked_against: dict[str, str] = Field(
        description="The software (and paper) versions its defaults and names were checked "
        'against, e.g. {"PyTorch": "2.9", "NCCL": "2.28.7"}.'
    )
    references: list[ReferenceOut]
    cards: list[CardOut]

    @classmethod
    def of(cls, topic: Topic) -> "TopicOut":
        summary = TopicSummaryOut.of(topic)
        return cls(
            **summary.model_dump(),
            labs=list(topic.meta.labs),
            related=list(topic.meta.related),
            checked_on=topic.meta.checked_on,
            checked_against=dict(topic.meta.checked_against),
            references=[
                ReferenceOut(key=r.key, text=r.text, url=r.url) for r in topic.meta.references
            ],
            cards=[CardOut.of(c) for c in topic.cards],
        )

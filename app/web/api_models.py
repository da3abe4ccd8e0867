"""The JSON shapes of the public API (they are the OpenAPI schema)."""

from pydantic import BaseModel

from app.content.catalog import CardView, Topic
from app.content.search import Hit


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
    rubric: list[RubricPointOut]
    followups: list[str]
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
            rubric=[RubricPointOut(point=p.point, keywords=list(p.keywords)) for p in card.rubric],
            followups=list(card.followups),
            mistakes=list(card.mistakes),
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
    references: list[ReferenceOut]
    cards: list[CardOut]

    @classmethod
    def of(cls, topic: Topic) -> "TopicOut":
        summary = TopicSummaryOut.of(topic)
        return cls(
            **summary.model_dump(),
            labs=list(topic.meta.labs),
            related=list(topic.meta.related),
            references=[
                ReferenceOut(key=r.key, text=r.text, url=r.url) for r in topic.meta.references
            ],
            cards=[CardOut.of(c) for c in topic.cards],
        )


class SearchHitOut(BaseModel):
    kind: str
    key: str
    title: str
    url: str
    topic: str
    snippet_html: str
    score: int

    @classmethod
    def of(cls, hit: Hit) -> "SearchHitOut":
        return cls(
            kind=hit.kind,
            key=hit.key,
            title=hit.title,
            url=hit.url,
            topic=hit.context,
            snippet_html=hit.snippet_html,
            score=hit.score,
        )


class SearchOut(BaseModel):
    query: str
    hits: list[SearchHitOut]


class HealthOut(BaseModel):
    status: str
    topics: int
    cards: int
    database: str

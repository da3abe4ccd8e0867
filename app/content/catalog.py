"""The loaded content, in memory: topics in order, cards by id, all HTML rendered already."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from app.content.render import Heading
from app.content.schema import Card, FrontMatter


@dataclass(frozen=True)
class RubricView:
    point_html: str
    keywords: tuple[str, ...]


@dataclass(frozen=True)
class SourceView:
    html: str
    href: str | None  # a link to the reference in the topic, or the source's own URL


@dataclass(frozen=True)
class CardView:
    """A card with every markdown field rendered to HTML."""

    card: Card
    topic_slug: str
    topic_title: str
    line: int
    question_html: str
    answer_html: str | None
    steps_html: tuple[str, ...]
    shuffled_steps: tuple[int, ...]  # order cards: a fixed, non-identity order to show
    rubric: tuple[RubricView, ...]
    followups_html: tuple[str, ...]
    followup_answers_html: tuple[str, ...]  # each follow-up's reference answer
    mistakes_html: tuple[str, ...]
    sources: tuple[SourceView, ...]
    question_text: str  # the question as plain words, for titles and search
    plain_text: str
    drill_line: int | None = None  # a drill card's `drill:` key, where app.drills.check reports
    mistake_lines: tuple[int, ...] = ()  # each common mistake's line, for the content check

    @property
    def id(self) -> str:
        return self.card.id

    @property
    def kind(self) -> str:
        return self.card.kind


@dataclass(frozen=True)
class ReferenceView:
    key: str
    html: str
    url: str | None


@dataclass(frozen=True)
class Segment:
    """A piece of a topic page: HTML, or the id of a card to show there."""

    html: str = ""
    card_id: str | None = None


@dataclass(frozen=True)
class Topic:
    meta: FrontMatter
    path: Path
    segments: tuple[Segment, ...]
    cards: tuple[CardView, ...]
    headings: tuple[Heading, ...]
    references: tuple[ReferenceView, ...]
    plain_text: str
    word_count: int

    @property
    def slug(self) -> str:
        return self.meta.slug

    @property
    def title(self) -> str:
        return self.meta.title


@dataclass
class Catalog:
    """All topics, ordered; lookups by slug and card id."""

    topics: list[Topic]
    _by_slug: dict[str, Topic] = field(init=False)
    _cards: dict[str, CardView] = field(init=False)
    _ordered: tuple[CardView, ...] = field(init=False)

    def __post_init__(self) -> None:
        self.topics.sort(key=lambda t: t.meta.order)
        self._by_slug = {t.slug: t for t in self.topics}
        self._ordered = tuple(c for t in self.topics for c in t.cards)
        self._cards = {c.id: c for c in self._ordered}

    def topic(self, slug: str) -> Topic | None:
        return self._by_slug.get(slug)

    def card(self, card_id: str) -> CardView | None:
        return self._cards.get(card_id)

    @property
    def card_index(self) -> Mapping[str, CardView]:
        """Cards by id, for loops that look up many."""
        return self._cards

    @property
    def cards(self) -> tuple[CardView, ...]:
        """Every card, in reading order."""
        return self._ordered

    def neighbours(self, slug: str) -> tuple[Topic | None, Topic | None]:
        """The topics before and after `slug` in reading order."""
        index = [t.slug for t in self.topics].index(slug)
        before = self.topics[index - 1] if index > 0 else None
        after = self.topics[index + 1] if index + 1 < len(self.topics) else None
        return before, after

"""Where a newcomer starts: read a topic and answer its cards, review them, sit a lightning mock.

Offered on a first visit (no review, no mock yet) and kept, with its steps ticked, through the
first study day; it stands aside once the person has come back on a later day or sat a mock,
so it never gets in a returning user's way. (Dismissing it is the page's business: a choice
of that browser's, not a fact about the person's progress.)

The first step is reading, not the review queue: a newcomer's queue is new cards from the
first topic, derivations asked cold, and the topic page holds the same cards inline after the
text that explains them.
"""

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, text
from sqlalchemy.orm import Session

from app.content.catalog import Catalog
from app.db import connection_of
from app.models import ReviewLog
from app.plan.planner import mock_minutes
from app.srs import settings as srs_settings
from app.srs.days import as_utc, today_bounds

WORDS_A_MINUTE = 220  # the reading time the topic list shows too

_FIRST_REVIEW = text("SELECT min(reviewed_at) FROM review_logs WHERE user_id = :user_id").columns(
    ReviewLog.__table__.c.reviewed_at  # positional: the min() comes back typed as a moment
)
_ANY_MOCK = text("SELECT 1 FROM mock_sessions WHERE user_id = :user_id LIMIT 1")
# While the path shows, every review is today's: the first study day's.
_ANSWERED = text("SELECT count(DISTINCT card_id) FROM review_logs WHERE user_id = :user_id")


@dataclass(frozen=True)
class FirstWeek:
    topic_slug: str  # the first topic in reading order
    topic_title: str
    topic_minutes: int  # to read it
    topic_cards: int
    answered: int  # cards answered so far (today: the path shows on the first day only)
    lightning_minutes: int  # a lightning mock with its follow-ups

    @property
    def read(self) -> bool:
        return self.answered > 0


def first_week(
    db: Session | Connection,
    user_id: int,
    catalog: Catalog,
    now: datetime,
    settings: srs_settings.Settings,
) -> FirstWeek | None:
    """The path for a newcomer, or None once they have progressed: a mock started, or a
    review before today's study day (they came back on a later day)."""
    if not catalog.topics:
        return None
    connection = connection_of(db)
    if connection.execute(_ANY_MOCK, {"user_id": user_id}).first() is not None:
        return None
    start, _end = today_bounds(now, settings.timezone, settings.day_boundary_hour)
    first = connection.execute(_FIRST_REVIEW, {"user_id": user_id}).scalar()
    answered = 0
    if first is not None:
        if as_utc(first if isinstance(first, datetime) else datetime.fromisoformat(first)) < start:
            return None
        answered = int(connection.execute(_ANSWERED, {"user_id": user_id}).scalar() or 0)
    topic = catalog.topics[0]
    return FirstWeek(
        topic_slug=topic.slug,
        topic_title=topic.title,
        topic_minutes=max(1, -(-topic.word_count // WORDS_A_MINUTE)),
        topic_cards=len(topic.cards),
        answered=answered,
        lightning_minutes=mock_minutes("lightning"),
    )

"""Today's queue: due learning cards, then due reviews (least likely to be recalled first),
then new cards up to the daily limit — optionally only from chosen topics.
"""

from dataclasses import dataclass
from datetime import datetime

from fsrs import State
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.content.catalog import CardView, Catalog
from app.models import CardState, ReviewLog
from app.srs import scheduling
from app.srs.days import as_utc, today_bounds
from app.srs.settings import Settings


@dataclass(frozen=True)
class QueueItem:
    card_id: str
    topic: str
    kind: str
    due: datetime | None  # None for a new card
    retrievability: float | None


@dataclass(frozen=True)
class Queue:
    items: list[QueueItem]
    due_count: int  # learning and review cards waiting today, within the review limit
    new_count: int  # new cards still to introduce today, within the new-card limit
    done_today: int  # grades given since the day began
    next_due: datetime | None  # when the next card that is not yet due comes due
    over_limit: int  # reviews due today beyond the daily review limit
    day_end: datetime


def build(
    session: Session,
    user_id: int,
    catalog: Catalog,
    settings: Settings,
    now: datetime,
    *,
    topics: set[str] | None = None,
    limit: int | None = None,
) -> Queue:
    start, end = today_bounds(now, settings.timezone, settings.day_boundary_hour)
    wanted = {c.id: c for c in catalog.cards if topics is None or c.topic_slug in topics}

    rows = session.execute(
        select(
            CardState.card_id,
            CardState.state,
            CardState.stability,
            CardState.last_review,
            CardState.due,
        ).where(CardState.user_id == user_id)
    ).all()
    learning, reviews, seen = [], [], set()
    next_due: datetime | None = None
    for card_id, state, stability, last_review, due in rows:
        seen.add(card_id)
        if card_id not in wanted:
            continue
        due = as_utc(due)
        if state == State.Review and due < end:
            r = scheduling.retrievability(stability, last_review, now)
            reviews.append((r, due, card_id))
        elif state != State.Review and due <= now:
            learning.append((due, card_id))
        elif next_due is None or due < next_due:
            next_due = due

    done = dict(
        session.execute(
            select(ReviewLog.was_new, func.count())
            .where(ReviewLog.user_id == user_id, ReviewLog.reviewed_at >= start)
            .group_by(ReviewLog.was_new)
        ).all()
    )
    reviews_left = max(0, settings.max_reviews_per_day - done.get(False, 0))
    new_left = max(0, settings.new_per_day - done.get(True, 0))

    learning.sort()
    reviews.sort()
    new_ids = [card_id for card_id in wanted if card_id not in seen][:new_left]
    chosen_reviews = reviews[:reviews_left]

    items = [_item(wanted[c], due, None) for due, c in learning]
    items += [_item(wanted[c], due, r) for r, due, c in chosen_reviews]
    items += [_item(wanted[c], None, None) for c in new_ids]
    return Queue(
        items=items[:limit] if limit is not None else items,
        due_count=len(learning) + len(chosen_reviews),
        new_count=len(new_ids),
        done_today=sum(done.values()),
        next_due=next_due,
        over_limit=len(reviews) - len(chosen_reviews),
        day_end=end,
    )


def _item(card: CardView, due: datetime | None, r: float | None) -> QueueItem:
    return QueueItem(card.id, card.topic_slug, card.kind, due, r)

"""Today's queue: due learning cards, then due reviews (least likely to be recalled first),
then new cards up to the daily limit (or the plan's) and any more asked for today (app.srs.extra)
— optionally only from chosen topics.
"""

import heapq
import itertools
from dataclasses import dataclass
from datetime import UTC, datetime
from math import inf

from fsrs import State
from sqlalchemy import Connection, DateTime, bindparam, text
from sqlalchemy.orm import Session

from app.content.catalog import CardView, Catalog
from app.db import connection_of
from app.models import CardState
from app.srs import extra, scheduling
from app.srs.days import as_utc, study_day, today_bounds
from app.srs.settings import Settings

# ORDER BY: cards due at the same moment keep one order on every database (PostgreSQL hands
# rows back in whatever order its heap holds them); the (user_id, due) index makes it free.
_DUE_ROWS = text(
    "SELECT card_id, state, stability, last_review, due FROM card_states"
    " WHERE user_id = :user_id AND due < :end ORDER BY due, id"
).bindparams(bindparam("end", type_=DateTime(timezone=True)))

# The queue's other reads, as SQL too: through the ORM they cost more than the rows they read,
# and the queue is asked for before every review (bench/suite.py).
_DONE_TODAY = text(
    "SELECT was_new, count(*) FROM review_logs"
    " WHERE user_id = :user_id AND reviewed_at >= :start GROUP BY was_new"
).bindparams(bindparam("start", type_=DateTime(timezone=True)))
# Every card the user has seen, from the (user_id, card_id) index alone: the rest are new.
_SEEN = text("SELECT card_id FROM card_states WHERE user_id = :user_id")
_FIRST_DUE_AFTER = (
    text("SELECT min(due) FROM card_states WHERE user_id = :user_id AND due >= :moment")
    .bindparams(bindparam("moment", type_=DateTime(timezone=True)))
    .columns(CardState.__table__.c.due)
)


def _moment(value: datetime | str) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(value)


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
    damaged: tuple[str, ...] = ()  # cards whose saved review state cannot be scheduled


@dataclass(frozen=True)
class Planned:
    """A study plan's share of today (app.plan): its new cards, and cards to review early."""

    new_ids: tuple[str, ...]
    ahead_ids: tuple[str, ...]


def build(
    db: Session | Connection,
    user_id: int,
    catalog: Catalog,
    settings: Settings,
    now: datetime,
    *,
    topics: set[str] | None = None,
    limit: int | None = None,
    planned: Planned | None = None,
) -> Queue:
    """Today's queue; with a study plan, its new cards and early reviews replace the daily
    new-card limit (the plan already fits them into the day's minutes)."""
    start, end = today_bounds(now, settings.timezone, settings.day_boundary_hour)
    connection = connection_of(db)

    # Only rows due before the day ends: the (user_id, due) index keeps this small. A typed
    # `text` query hands back plain rows, without SQLAlchemy's per-row conversions, and the
    # loop below does as little as it can per row: with a backlog of thousands of overdue
    # cards this loop is the queue's cost (bench/review.py).
    due_rows = connection.execute(_DUE_ROWS, {"user_id": user_id, "end": end}).all()
    cards = catalog.card_index
    now_naive = now.astimezone(UTC).replace(tzinfo=None)
    learning, reviews, later_today = [], [], []
    damaged: list[str] = []
    for card_id, state, stability, last_review, due in due_rows:
        card = cards.get(card_id)  # None once a card is removed from the content
        if card is None or (topics is not None and card.topic_slug not in topics):
            continue
        if state == State.Review and not 0 < (stability or 0) < inf:
            damaged.append(card_id)  # see scheduling.damage: shown now, and said so
            learning.append((now, card))
            continue
        if state == State.Review:
            # Lowest recall first. fsrs's R falls as whole days elapsed / stability grows,
            # so sort on that and compute R only for the cards that are shown.
            if isinstance(last_review, str):  # SQLite: naive UTC text
                elapsed = (now_naive - datetime.fromisoformat(last_review)).days
            else:
                elapsed = (now - as_utc(last_review)).days
            elapsed = max(elapsed, 0)
            reviews.append((-elapsed / stability, card_id, due, elapsed, stability, card))
            continue
        due = as_utc(_moment(due))
        if due <= now:
            learning.append((due, card))
        else:
            later_today.append(due)

    done = {
        bool(was_new): count
        for was_new, count in connection.execute(_DONE_TODAY, {"user_id": user_id, "start": start})
    }
    reviews_left = max(0, settings.max_reviews_per_day - done.get(False, 0))
    more = extra.today(connection, user_id, study_day(now, settings.timezone,
                                                      settings.day_boundary_hour))  # fmt: skip
    new_left = max(0, settings.new_per_day + more - done.get(True, 0))

    learning.sort(key=lambda pair: pair[0])
    chosen_reviews = heapq.nsmallest(reviews_left, reviews, key=lambda row: (row[0], row[1]))
    if planned is None:
        new_cards = _new_cards(connection, user_id, catalog, topics, new_left)
        ahead: list[CardView] = []
    else:
        new_cards, planned_seen = _planned_new(connection, user_id, catalog, topics, planned)
        # New cards learnt today beyond the plan's were extra ones: what is left of those.
        more_left = max(0, more - max(0, done.get(True, 0) - planned_seen))
        new_cards += _new_cards(
            connection, user_id, catalog, topics, more_left, skip=set(planned.new_ids)
        )
        already = {row[1] for row in chosen_reviews} | {card.id for _due, card in learning}
        ahead = _planned_ahead(connection, user_id, catalog, topics, planned, already, start)

    # Only the items asked for become objects: a large backlog is counted, not copied.
    entries = itertools.chain(
        ((card, due, None) for due, card in learning),
        (
            (
                card,
                as_utc(_moment(due)),
                scheduling.recall(elapsed, stability, settings.fsrs_parameters),
            )
            for _key, _id, due, elapsed, stability, card in chosen_reviews
        ),
        ((card, None, None) for card in ahead),
        ((card, None, None) for card in new_cards),
    )
    items = [_item(*entry) for entry in itertools.islice(entries, limit)]
    next_due = min(later_today) if later_today else _first_due_after(connection, user_id, end)
    return Queue(
        items=items,
        due_count=len(learning) + len(chosen_reviews) + len(ahead),
        new_count=len(new_cards),
        done_today=sum(done.values()),
        next_due=next_due,
        over_limit=len(reviews) - len(chosen_reviews),
        day_end=end,
        damaged=tuple(damaged),
    )


def _new_cards(
    connection: Connection,
    user_id: int,
    catalog: Catalog,
    topics: set[str] | None,
    count: int,
    skip: set[str] | None = None,
) -> list[CardView]:
    """The first `count` cards in reading order that the user has never reviewed (nor in
    `skip`)."""
    if count <= 0:
        return []
    # One query, fetched at once: fewer round trips than asking about the catalog in batches.
    seen = {card_id for (card_id,) in connection.execute(_SEEN, {"user_id": user_id}).all()}
    seen |= skip or set()
    unseen = (  # card_index is in reading order, and its keys spare a property call a card
        card
        for card_id, card in catalog.card_index.items()
        if card_id not in seen and (topics is None or card.topic_slug in topics)
    )
    return list(itertools.islice(unseen, count))


_STATES_OF = text(
    "SELECT card_id, last_review FROM card_states WHERE user_id = :user_id AND card_id IN :ids"
).bindparams(bindparam("ids", expanding=True))


def _planned_new(
    connection: Connection,
    user_id: int,
    catalog: Catalog,
    topics: set[str] | None,
    planned: Planned,
) -> tuple[list[CardView], int]:
    """The plan's new cards for today that are still unseen, and how many are seen now."""
    ids = planned.new_ids
    if not ids:
        return [], 0
    seen = {
        card_id
        for card_id, _last in connection.execute(_STATES_OF, {"user_id": user_id, "ids": list(ids)})
    }
    cards = (catalog.card_index.get(card_id) for card_id in ids if card_id not in seen)
    unseen = [c for c in cards if c is not None and (topics is None or c.topic_slug in topics)]
    return unseen, len(seen)


def _planned_ahead(
    connection: Connection,
    user_id: int,
    catalog: Catalog,
    topics: set[str] | None,
    planned: Planned,
    already: set[str],
    day_start: datetime,
) -> list[CardView]:
    """The plan's early reviews for today, less those done today or already in the queue."""
    if not planned.ahead_ids:
        return []
    rows = connection.execute(_STATES_OF, {"user_id": user_id, "ids": list(planned.ahead_ids)})
    done = {card_id for card_id, last in rows if last and as_utc(_moment(last)) >= day_start}
    cards = (
        catalog.card_index.get(card_id)
        for card_id in planned.ahead_ids
        if card_id not in done and card_id not in already
    )
    return [c for c in cards if c is not None and (topics is None or c.topic_slug in topics)]


def _first_due_after(connection: Connection, user_id: int, moment: datetime) -> datetime | None:
    due = connection.execute(_FIRST_DUE_AFTER, {"user_id": user_id, "moment": moment}).scalar()
    return as_utc(due) if due else None


def _item(card: CardView, due: datetime | None, r: float | None) -> QueueItem:
    return QueueItem(card.id, card.topic_slug, card.kind, due, r)

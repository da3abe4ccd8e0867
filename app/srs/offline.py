"""What the review page needs to review offline: the cards due in the next days, with the FSRS
state and fuzz the browser needs to show the intervals the server will give.

The browser schedules with ts-fsrs's formulas in the same steps as py-fsrs's review_card
(static/js/fsrs-offline.js), so it needs the scheduler's parameters, each card's stored state
and the fuzz draw the server will make for the card's next reviews: the server's fuzz comes
from a generator seeded by (user, card, review count), whose first draw is all a grade uses.
"""

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from fsrs import State
from sqlalchemy import Connection, select

from app.content.catalog import Catalog
from app.models import CardState
from app.srs import queue, scheduling
from app.srs.days import as_utc, day_start, study_day
from app.srs.settings import Settings

# Fuzz draws sent per card: enough for a card to be graded this many times offline.
DRAWS = 8


@dataclass(frozen=True)
class OfflineCard:
    card_id: str
    in_queue: bool  # in today's queue when the snapshot was taken
    state: dict[str, Any] | None  # None for a new card
    fuzz_draws: list[float]
    # When a card not in today's queue joins it: a learning step's end, or the start of the
    # day a review falls due. None for the cards in today's queue.
    available_at: datetime | None = None


@dataclass(frozen=True)
class Snapshot:
    cards: list[OfflineCard]
    day_ends: list[datetime]  # when today and each following day of the snapshot end
    done_today: int
    due_count: int
    new_count: int


def scheduler_config(
    desired_retention: float, fuzz: bool, parameters: Sequence[float] | None = None
) -> dict[str, Any]:
    """The scheduler the server grades with, as the browser needs it: the user's own FSRS
    parameters when they have been fitted (app.srs.optimizer)."""
    defaults = scheduling.scheduler(desired_retention, fuzz=False, parameters=parameters)
    return {
        "parameters": list(defaults.parameters),
        "desired_retention": desired_retention,
        "learning_steps_minutes": [s.total_seconds() / 60 for s in defaults.learning_steps],
        "relearning_steps_minutes": [s.total_seconds() / 60 for s in defaults.relearning_steps],
        "maximum_interval": defaults.maximum_interval,
        "fuzz": fuzz,
    }


def fuzz_draws(user_id: int, card_id: str, reps: int, count: int = DRAWS) -> list[float]:
    """The fuzz draw SeededScheduler makes for this card's next `count` reviews."""
    return [
        random.Random(scheduling.fuzz_seed(user_id, card_id, reps + i)).random()
        for i in range(count)
    ]


def joins_queue(row: scheduling.StoredState, settings: Settings) -> datetime:
    """When a card not in today's queue joins it: a learning or relearning card when its
    step ends, a review card when the day it falls due begins (app.srs.queue's rules)."""
    due = as_utc(row.due)
    if row.state != State.Review:
        return due
    return day_start(
        study_day(due, settings.timezone, settings.day_boundary_hour),
        settings.timezone,
        settings.day_boundary_hour,
    )


def build(
    connection: Connection,
    user_id: int,
    catalog: Catalog,
    settings: Settings,
    now: datetime,
    *,
    days: int,
    limit: int,
    planned: queue.Planned | None,
    topics: set[str] | None = None,
) -> Snapshot:
    """Today's queue first, in the order the review page shows it, then the cards that come
    due before the `days`th day ends, each with the moment it joins the queue; optionally
    only from some topics. The device takes cards in this order and applies no queue rule
    of its own."""
    today = study_day(now, settings.timezone, settings.day_boundary_hour)
    day_ends = [
        day_start(today + timedelta(days=n), settings.timezone, settings.day_boundary_hour)
        for n in range(1, days + 1)
    ]
    built = queue.build(connection, user_id, catalog, settings, now, topics=topics, planned=planned)
    todays = [item.card_id for item in built.items]
    later = connection.execute(
        select(CardState.card_id)
        .where(CardState.user_id == user_id, CardState.due < day_ends[-1])
        .order_by(CardState.due, CardState.id)
    ).scalars()
    index = catalog.card_index
    wanted = [c for c in later if c in index and (topics is None or index[c].topic_slug in topics)]
    ids = list(dict.fromkeys([*todays, *wanted]))[:limit]
    rows = {
        row.card_id: row
        for row in connection.execute(
            select(CardState).where(CardState.user_id == user_id, CardState.card_id.in_(ids))
        )
    }
    in_queue = set(todays)
    cards = []
    for card_id in ids:
        row = rows.get(card_id)
        queued = card_id in in_queue
        cards.append(
            OfflineCard(
                card_id=card_id,
                in_queue=queued,
                state=scheduling.snapshot(row),
                fuzz_draws=fuzz_draws(user_id, card_id, row.reps if row else 0),
                available_at=None if queued or row is None else joins_queue(row, settings),
            )
        )
    return Snapshot(
        cards=cards,
        day_ends=day_ends,
        done_today=built.done_today,
        due_count=built.due_count,
        new_count=built.new_count,
    )

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

from sqlalchemy import Connection, select

from app.content.catalog import Catalog
from app.models import CardState
from app.srs import queue, scheduling
from app.srs.days import day_start, study_day
from app.srs.settings import Settings

# Fuzz draws sent per card: enough for a card to be graded this many times offline.
DRAWS = 8


@dataclass(frozen=True)
class OfflineCard:
    card_id: str
    in_queue: bool  # in today's queue when the snapshot was taken
    state: dict[str, Any] | None  # None for a new card
    fuzz_draws: list[float]


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
) -> Snapshot:
    """Today's queue first, then the cards that come due before the `days`th day ends."""
    today = study_day(now, settings.timezone, settings.day_boundary_hour)
    day_ends = [
        day_start(today + timedelta(days=n), settings.timezone, settings.day_boundary_hour)
        for n in range(1, days + 1)
    ]
    built = queue.build(connection, user_id, catalog, settings, now, planned=planned)
    todays = [item.card_id for item in built.items]
    later = connection.execute(
        select(CardState.card_id)
        .where(CardState.user_id == user_id, CardState.due < day_ends[-1])
        .order_by(CardState.due, CardState.id)
    ).scalars()
    ids = list(dict.fromkeys([*todays, *(c for c in later if c in catalog.card_index)]))[:limit]
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
        cards.append(
            OfflineCard(
                card_id=card_id,
                in_queue=card_id in in_queue,
                state=scheduling.snapshot(row),
                fuzz_draws=fuzz_draws(user_id, card_id, row.reps if row else 0),
            )
        )
    return Snapshot(
        cards=cards,
        day_ends=day_ends,
        done_today=built.done_today,
        due_count=built.due_count,
        new_count=built.new_count,
    )

"""The review page's four buttons for one card: the interval each rating will give it.

Each button's interval is computed with the same fuzz seed the grade will use
(scheduling.SeededScheduler), so pressing a button gives exactly the interval it showed.
"""

from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models import CardState
from app.srs import scheduling
from app.srs.settings import Settings


class Button(NamedTuple):
    rating: int  # 1 Again … 4 Easy
    name: str  # "Again" … "Easy"
    interval: str  # as a button shows it: "10m", "4d", "2.1mo"


@dataclass(frozen=True)
class Choices:
    buttons: list[Button]
    # Why the card's saved state cannot be used (grading it starts afresh), or None.
    damaged: str | None


def choices(
    session: Session,
    user_id: int,
    card_id: str,
    now: datetime,
    settings: Settings,
    *,
    fuzz: bool,
) -> Choices:
    """The card's four buttons from its saved state (a new card's when it has none)."""
    row = session.scalars(
        select(CardState).where(CardState.user_id == user_id, CardState.card_id == card_id)
    ).one_or_none()
    damaged = None
    if row is not None:
        damaged = scheduling.damage(row.state, row.stability, row.difficulty)
    seed = scheduling.fuzz_seed(user_id, card_id, row.reps if row else 0)
    outcomes = scheduling.outcomes(
        scheduling.usable(row),
        now,
        settings.desired_retention,
        seed,
        fuzz,
        settings.fsrs_parameters,
    )
    buttons = [
        Button(rating, scheduling.RATING_NAMES[rating], scheduling.describe_interval(o.interval))
        for rating, o in outcomes.items()
    ]
    return Choices(buttons=buttons, damaged=damaged)

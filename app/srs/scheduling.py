"""FSRS through the `fsrs` package, made repeatable: the interval a button shows is the one saved.

py-fsrs fuzzes long intervals with the process-wide `random()`, so showing the four outcomes
and then grading would draw two different fuzzes. SeededScheduler takes its fuzz from a
generator seeded by (user, card, review count): the preview and the grade that follows it
compute the same interval, and no state needs to be kept between them.
"""

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from fsrs import Card, Rating, Scheduler, State
from fsrs.scheduler import DEFAULT_PARAMETERS, FUZZ_RANGES, MAX_DIFFICULTY, MIN_DIFFICULTY

from app.models import CardState
from app.srs.days import as_utc

RATINGS = (Rating.Again, Rating.Hard, Rating.Good, Rating.Easy)
RATING_NAMES = {1: "Again", 2: "Hard", 3: "Good", 4: "Easy"}
# The ratings' bounds, for the models and forms that take one (the one place they are written).
LOWEST_RATING, HIGHEST_RATING = min(RATING_NAMES), max(RATING_NAMES)
RATING_HELP = ", ".join(f"{n} {name}" for n, name in RATING_NAMES.items()) + "."
MATURE_DAYS = 21


class StoredState(Protocol):
    """A card_states row: the ORM object or a Core row, whichever the caller has."""

    state: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime | None
    reps: int
    lapses: int


class SeededScheduler(Scheduler):
    """A Scheduler whose fuzz comes from `rng` instead of the global random generator."""

    def __init__(self, rng: random.Random, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._rng = rng

    def _get_fuzzed_interval(self, *, interval: timedelta) -> timedelta:
        # The same ranges as fsrs.Scheduler._get_fuzzed_interval (FSRS's fuzz), seeded.
        days = interval.days
        if days < 2.5:
            return interval
        delta = 1.0
        for band in FUZZ_RANGES:
            delta += band["factor"] * max(min(float(days), band["end"]) - band["start"], 0.0)
        low = max(2, round(days - delta))
        high = min(round(days + delta), self.maximum_interval)
        low = min(low, high)
        fuzzed = round(self._rng.random() * (high - low + 1) + low)
        return timedelta(days=min(fuzzed, self.maximum_interval))


def scheduler(
    desired_retention: float,
    *,
    seed: str | None = None,
    fuzz: bool = True,
    parameters: Sequence[float] | None = None,
) -> Scheduler:
    """A scheduler for one decision; `seed` makes its fuzz repeatable; `parameters` are the
    user's fitted FSRS parameters (app.srs.optimizer), FSRS's defaults when None."""
    weights = tuple(parameters) if parameters is not None else DEFAULT_PARAMETERS
    if not fuzz or seed is None:
        return Scheduler(
            parameters=weights, desired_retention=desired_retention, enable_fuzzing=fuzz
        )
    return SeededScheduler(
        random.Random(seed), parameters=weights, desired_retention=desired_retention
    )


def fuzz_seed(user_id: int, card_id: str, reps: int) -> str:
    return f"{user_id}:{card_id}:{reps}"


def to_fsrs(row: StoredState | None, card_number: int) -> Card:
    """The fsrs Card for a stored state, or a new one."""
    if row is None:
        return Card(card_id=card_number)
    return Card(
        card_id=card_number,
        state=State(row.state),
        step=row.step,
        stability=row.stability,
        difficulty=row.difficulty,
        due=as_utc(row.due),
        last_review=as_utc(row.last_review) if row.last_review else None,
    )


DIFFICULTY_RANGE = (MIN_DIFFICULTY, MAX_DIFFICULTY)  # FSRS keeps difficulty in [1, 10]


def damage(state: int, stability: float | None, difficulty: float | None) -> str | None:
    """Why a stored state cannot be scheduled, or None when it can.

    Import refuses such values; this guards against any that reach the database another way,
    so one bad card costs its own schedule, not every page of the account.
    """
    if state not in (State.Learning, State.Review, State.Relearning):
        return f"its state {state} is not learning, review or relearning"
    if stability is not None and not 0 < stability < math.inf:
        return f"its stability {stability} is not a positive number"
    low, high = DIFFICULTY_RANGE
    if difficulty is not None and not low <= difficulty <= high:
        return f"its difficulty {difficulty} is outside {low:g} to {high:g}"
    if state == State.Review and (stability is None or difficulty is None):
        return "it is in review without a stability or difficulty"
    return None


def usable(row: StoredState | None) -> StoredState | None:
    """The row to schedule from: None (a fresh start) for a state that `damage` refuses."""
    if row is not None and damage(row.state, row.stability, row.difficulty) is not None:
        return None
    return row


def _finite(value: float | None) -> float | None:
    return value if value is None or math.isfinite(value) else None


def snapshot(row: StoredState | None) -> dict[str, Any] | None:
    """A stored state as JSON, for the log: undo restores it."""
    if row is None:
        return None
    return {
        "state": row.state,
        "step": row.step,
        "stability": _finite(row.stability),  # JSON (PostgreSQL's) has no inf or NaN
        "difficulty": _finite(row.difficulty),
        "due": as_utc(row.due).isoformat(),
        "last_review": as_utc(row.last_review).isoformat() if row.last_review else None,
        "reps": row.reps,
        "lapses": row.lapses,
    }


def restore(row: CardState, saved: dict[str, Any]) -> None:
    row.state = saved["state"]
    row.step = saved["step"]
    row.stability = saved["stability"]
    row.difficulty = saved["difficulty"]
    row.due = datetime.fromisoformat(saved["due"])
    row.last_review = datetime.fromisoformat(saved["last_review"]) if saved["last_review"] else None
    row.reps = saved["reps"]
    row.lapses = saved["lapses"]


@dataclass(frozen=True)
class Outcome:
    rating: int
    card: Card
    interval: timedelta  # from the review to the next due time


def outcome(
    row: StoredState | None,
    rating: int,
    now: datetime,
    desired_retention: float,
    seed: str,
    fuzz: bool = True,
    parameters: Sequence[float] | None = None,
) -> Outcome:
    """What `rating` does to the card at `now`: the same interval its button showed."""
    chosen = scheduler(desired_retention, seed=seed, fuzz=fuzz, parameters=parameters)
    card, _log = chosen.review_card(to_fsrs(row, 1), Rating(rating), review_datetime=now)
    return Outcome(rating, card, card.due - now)


def outcomes(
    row: StoredState | None,
    now: datetime,
    desired_retention: float,
    seed: str,
    fuzz: bool = True,
    parameters: Sequence[float] | None = None,
) -> dict[int, Outcome]:
    """All four ratings' outcomes, for the buttons."""
    return {
        int(r): outcome(row, int(r), now, desired_retention, seed, fuzz, parameters)
        for r in RATINGS
    }


def scheduled_interval_days(row: StoredState | None) -> float | None:
    """The interval the card was last given (due − last review), in days."""
    if row is None or row.last_review is None:
        return None
    return (as_utc(row.due) - as_utc(row.last_review)).total_seconds() / 86400


# FSRS-6's forgetting curve: R(t) = (1 + F·t/S)^D, D = −w20 and F = 0.9^(1/D) − 1.
_DECAY = -DEFAULT_PARAMETERS[20]
_FACTOR = 0.9 ** (1 / _DECAY) - 1


def retrievability(
    stability: float | None,
    last_review: datetime | None,
    now: datetime,
    parameters: Sequence[float] | None = None,
) -> float:
    """Probability of recall now, as fsrs computes it (whole days elapsed); 0 if never seen.

    Written out rather than through Scheduler.get_card_retrievability so a queue of thousands
    of cards needs no Card objects; a test pins the two to each other.
    """
    if stability is None or last_review is None or not 0 < stability < math.inf:
        return 0.0  # never seen, or a damaged state (see `damage`)
    if last_review.tzinfo is None:  # SQLite's naive UTC: compare without converting
        elapsed_days = max(0, (now.replace(tzinfo=None) - last_review).days)
    else:
        elapsed_days = max(0, (now - last_review).days)
    return recall(elapsed_days, stability, parameters)


def recall(elapsed_days: int, stability: float, parameters: Sequence[float] | None = None) -> float:
    """FSRS's forgetting curve: the probability of recall after whole days elapsed."""
    if parameters is None:
        return float((1 + _FACTOR * elapsed_days / stability) ** _DECAY)
    decay = -parameters[20]
    return float((1 + (0.9 ** (1 / decay) - 1) * elapsed_days / stability) ** decay)


def describe_interval(interval: timedelta) -> str:
    """A button label: "1m", "10m", "3h", "4d", "2.1mo", "1.3y"."""
    seconds = max(interval.total_seconds(), 0)
    if seconds < 3600:
        return f"{max(1, round(seconds / 60))}m"
    if seconds < 86400:
        return f"{round(seconds / 3600)}h"
    days = seconds / 86400
    if days < 30:
        return f"{round(days)}d"
    if days < 365:
        return f"{days / 30:.1f}mo"
    return f"{days / 365:.1f}y"

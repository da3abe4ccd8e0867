"""Readiness: the mean predicted recall of the chosen cards, now and on the loop day."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from fsrs import Card, Rating, Scheduler

LEARNING_GAP = timedelta(minutes=10)  # a new card is seen twice on its first day (1m, 10m steps)


@dataclass(frozen=True)
class CardMemory:
    card_id: str
    topic: str
    card: Card | None  # FSRS state; None: never reviewed


@dataclass(frozen=True)
class TopicReadiness:
    slug: str
    now: float
    if_followed: float


@dataclass(frozen=True)
class Readiness:
    now: float
    if_followed: float
    if_stopped: float
    by_topic: tuple[TopicReadiness, ...]


@dataclass(frozen=True)
class ReadinessPoint:
    """Mean predicted recall of the chosen cards at a day's study time."""

    date: date
    if_followed: float
    if_stopped: float


def review_good(scheduler: Scheduler, card: Card, moment: datetime) -> Card:
    reviewed, _log = scheduler.review_card(card, Rating.Good, review_datetime=moment)
    return reviewed


def expected_recall(
    scheduler: Scheduler, before: Card, moment: datetime, loop_moment: datetime
) -> float:
    """Recall on the day after a last review that is recalled with FSRS's own probability.

    The plan's path assumes every review is answered Good; forecasting from that path alone
    would ignore that one in ten reviews at 0.90 retention is forgotten. A forgotten card is
    relearnt at once (the 10-minute relearning step) and starts again from a low stability.
    """
    recalled = float(scheduler.get_card_retrievability(before, moment))
    good = review_good(scheduler, before, moment)
    again, _log = scheduler.review_card(before, Rating.Again, review_datetime=moment)
    relearnt = review_good(scheduler, again, moment + LEARNING_GAP)
    return recalled * float(scheduler.get_card_retrievability(good, loop_moment)) + (
        1 - recalled
    ) * float(scheduler.get_card_retrievability(relearnt, loop_moment))


def forecast(
    scheduler: Scheduler,
    cards: Sequence[CardMemory],
    now: datetime,
    planned: dict[str, Card],
    last_review: dict[str, tuple[Card, datetime]],
    loop_moment: datetime,
) -> Readiness:
    """Readiness now, on the day as things stand, and on the day after the planned reviews
    (`planned`: each card's state after them; `last_review`: its state before the last one)."""

    def recall(card: Card | None, moment: datetime) -> float:
        return 0.0 if card is None else float(scheduler.get_card_retrievability(card, moment))

    current, stopped, followed = [], [], []
    by_topic: dict[str, tuple[list[float], list[float]]] = {}
    for memory in cards:
        current.append(recall(memory.card, now))
        stopped.append(recall(memory.card, loop_moment))
        if memory.card_id in last_review:
            before, moment = last_review[memory.card_id]
            followed.append(expected_recall(scheduler, before, moment, loop_moment))
        else:
            followed.append(recall(planned.get(memory.card_id), loop_moment))
        topic_now, topic_followed = by_topic.setdefault(memory.topic, ([], []))
        topic_now.append(current[-1])
        topic_followed.append(followed[-1])
    return Readiness(
        now=mean(current),
        if_followed=mean(followed),
        if_stopped=mean(stopped),
        by_topic=tuple(
            TopicReadiness(slug, mean(values_now), mean(values_followed))
            for slug, (values_now, values_followed) in by_topic.items()
        ),
    )


def mean_recall(scheduler: Scheduler, cards: Sequence[Card | None], moment: datetime) -> float:
    return mean(
        [0.0 if c is None else float(scheduler.get_card_retrievability(c, moment)) for c in cards]
    )


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0

"""Planning backwards from the loop date, day by day, with FSRS's own model of memory.

FSRS alone schedules each card for when its recall falls to the target, whether or not that is
after the interview. The plan walks the days from today to the day before the loop and, on each:

1. reviews what FSRS says is due (lowest recall first), within the day's minutes;
2. introduces unseen cards in reading order, spread evenly over the days that leave each one
   time to be reviewed before the loop (the last days take no new cards);
3. in the last days, reviews early the cards FSRS would next show only after the loop date and
   whose recall on the day would fall short of the loop-day target;
4. holds time for mock interviews: lightning rounds through the weeks, a full infra loop near
   the end, none on the day before.

The walk assumes each review is answered Good (the plan's expected path, fuzz off). Readiness
is FSRS's retrievability, with the person's parameters, on the loop day: as things stand
(`if_stopped`), and after the planned reviews (`if_followed`).
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from fsrs import Card, Rating, Scheduler, State

from app.mock.sessions import PRESETS, followup_minutes
from app.wording import plural

LOOP_DAY_TARGET = 0.95  # recall aimed for on the day: above the everyday 0.90, for a margin
REVIEW_AHEAD_DAYS = 3  # the last days, in which cards not due again before the loop come early
LEARNING_GAP = timedelta(minutes=10)  # a new card is seen twice on its first day (1m, 10m steps)
LIGHTNING_EVERY = 4  # days between lightning rounds
FIRST_LIGHTNING = 2  # a lightning round on day 3 of the plan at the earliest


def mock_minutes(preset: str) -> int:
    """A preset's length with every follow-up asked, as the mock runs it."""
    spec = PRESETS[preset]
    return spec.questions * (spec.minutes + followup_minutes(spec.minutes))


@dataclass(frozen=True)
class CardMemory:
    card_id: str
    topic: str
    card: Card | None  # FSRS state; None: never reviewed


@dataclass(frozen=True)
class Pace:
    """How long one review and one new card take, in seconds."""

    seconds_per_review: float
    seconds_per_new: float
    measured: bool  # from the person's own review durations, else the stated defaults


@dataclass(frozen=True)
class PlanInputs:
    today: date  # the study day `now` falls in
    loop_date: date
    daily_minutes: int
    cards: Sequence[CardMemory]  # the chosen topics' cards, in reading order
    now: datetime
    day_start: Callable[[date], datetime]  # when a study day begins, in UTC
    scheduler: Scheduler  # the person's parameters and retention target, fuzz off
    pace: Pace
    done_today: tuple[int, int] = (0, 0)  # (new cards, reviews) already done today


@dataclass
class PlanDay:
    date: date
    new_ids: list[str] = field(default_factory=list)
    reviews: int = 0
    ahead_ids: list[str] = field(default_factory=list)  # reviewed early, before the loop
    mock: str | None = None
    seconds: float = 0.0

    @property
    def new_cards(self) -> int:
        return len(self.new_ids)

    @property
    def minutes(self) -> int:
        return math.ceil(self.seconds / 60 - 1e-9)


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


@dataclass(frozen=True)
class Plan:
    days: tuple[PlanDay, ...]
    dropped: tuple[CardMemory, ...]  # unseen cards the time left cannot cover
    notes: tuple[str, ...]
    readiness: Readiness
    pace: Pace
    trajectory: tuple[ReadinessPoint, ...]  # each day after its study, then the loop day


def make_plan(inputs: PlanInputs) -> Plan:
    count = (inputs.loop_date - inputs.today).days
    if count < 1:
        raise ValueError("the loop date must be after today")
    loop_moment = _session_moment(inputs, inputs.loop_date)
    memory = {c.card_id: c.card for c in inputs.cards if c.card is not None}
    # Each card's state just before its last planned review, and when: readiness weighs the
    # chance that this review is failed (app.plan.planner._expected_recall).
    last_review: dict[str, tuple[Card, datetime]] = {}
    unseen = [c.card_id for c in inputs.cards if c.card is None]
    mocks, notes = _mocks(count, inputs.daily_minutes)
    # New cards stop a few days before the loop so each is reviewed at least once more.
    last_new_day = max(0, count - 1 - max(2, count // 7))
    unseen_at_start = len(unseen) + inputs.done_today[0]
    start = [c.card for c in inputs.cards]
    days, trajectory = [], []
    for index in range(count):
        day = PlanDay(inputs.today + timedelta(days=index), mock=mocks.get(index))
        moment = _session_moment(inputs, day.date) if index else inputs.now
        day_end = inputs.day_start(day.date + timedelta(days=1))
        budget = inputs.daily_minutes * 60.0
        if day.mock:
            budget -= mock_minutes(day.mock) * 60
            day.seconds += mock_minutes(day.mock) * 60
        if index == 0:  # what was already done today counts against today's minutes
            new_done, reviews_done = inputs.done_today
            budget -= new_done * inputs.pace.seconds_per_new
            budget -= reviews_done * inputs.pace.seconds_per_review
        spent = _review_due(inputs, memory, last_review, day, moment, day_end, budget)
        spent += _introduce(
            inputs,
            memory,
            unseen,
            day,
            moment,
            budget - spent,
            index,
            last_new_day,
            unseen_at_start,
        )
        if index >= count - REVIEW_AHEAD_DAYS:
            spent += _review_ahead(
                inputs, memory, last_review, day, moment, loop_moment, budget - spent, count - index
            )
        day.seconds += spent
        days.append(day)
        later = moment + timedelta(hours=1)
        trajectory.append(
            ReadinessPoint(
                day.date,
                _mean_recall(
                    inputs.scheduler, [memory.get(c.card_id) for c in inputs.cards], later
                ),
                _mean_recall(inputs.scheduler, start, later),
            )
        )
    readiness = _readiness(inputs, memory, last_review, loop_moment)
    trajectory.append(ReadinessPoint(inputs.loop_date, readiness.if_followed, readiness.if_stopped))
    dropped = tuple(c for c in inputs.cards if c.card_id in set(unseen))
    if dropped:
        cards = plural(len(dropped), "unseen card")
        verb = "does" if len(dropped) == 1 else "do"
        notes.append(
            f"{cards} {verb} not fit in {inputs.daily_minutes} minutes a day before the loop: "
            f"{'it is' if len(dropped) == 1 else 'they are'} left out, last in reading order "
            "first. More minutes a day, or fewer topics, bring them back."
        )
    return Plan(
        days=tuple(days),
        dropped=dropped,
        notes=tuple(notes),
        readiness=readiness,
        pace=inputs.pace,
        trajectory=tuple(trajectory),
    )


def _session_moment(inputs: PlanInputs, day: date) -> datetime:
    """When a future day's study is assumed to happen: eight hours into the study day."""
    return inputs.day_start(day) + timedelta(hours=8)


def _mocks(count: int, daily_minutes: int) -> tuple[dict[int, str], list[str]]:
    """Which day (index) sits which mock preset; none on the day before the loop."""
    mocks: dict[int, str] = {}
    notes: list[str] = []
    infra, lightning = mock_minutes("infra"), mock_minutes("lightning")
    last_mock_day = count - 2  # the day before the loop (count - 1) is for rest and review
    if last_mock_day < 0:
        return mocks, notes
    if infra <= daily_minutes:
        mocks[last_mock_day] = "infra"
        if count >= 14:
            mocks[last_mock_day - 5] = "infra"
    else:
        notes.append(
            f"A full infra loop takes {infra} minutes, more than {daily_minutes} a day: "
            "the plan sits lightning rounds instead. Raise the daily minutes to fit one."
        )
    if lightning <= daily_minutes:
        first_infra = min(mocks) if mocks else last_mock_day + 1
        for index in range(FIRST_LIGHTNING, first_infra - 1, LIGHTNING_EVERY):
            mocks[index] = "lightning"
        if not mocks:
            mocks[last_mock_day] = "lightning"
    return mocks, notes


def _review(scheduler: Scheduler, card: Card, moment: datetime) -> Card:
    reviewed, _log = scheduler.review_card(card, Rating.Good, review_datetime=moment)
    return reviewed


def _review_due(
    inputs: PlanInputs,
    memory: dict[str, Card],
    last_review: dict[str, tuple[Card, datetime]],
    day: PlanDay,
    moment: datetime,
    day_end: datetime,
    budget: float,
) -> float:
    """The day's due reviews, lowest recall first; what does not fit waits for tomorrow."""
    scheduler, cost = inputs.scheduler, inputs.pace.seconds_per_review
    due = [(cid, card) for cid, card in memory.items() if card.due < day_end]
    due.sort(key=lambda pair: scheduler.get_card_retrievability(pair[1], moment))
    spent = 0.0
    for card_id, card in due:
        if spent + cost > budget:
            break
        last_review[card_id] = (card, max(moment, card.due))
        memory[card_id] = _review(scheduler, card, max(moment, card.due))
        day.reviews += 1
        spent += cost
    return spent


def _introduce(
    inputs: PlanInputs,
    memory: dict[str, Card],
    unseen: list[str],
    day: PlanDay,
    moment: datetime,
    budget: float,
    index: int,
    last_new_day: int,
    unseen_at_start: int,
) -> float:
    """New cards in reading order, an even share of what is left over the days for them."""
    if index > last_new_day or not unseen:
        return 0.0
    if index == 0:  # today's share is fixed at the start of the day, whatever is done since
        share = math.ceil(unseen_at_start / (last_new_day + 1)) - inputs.done_today[0]
    else:
        share = math.ceil(len(unseen) / (last_new_day - index + 1))
    fits = int(max(0.0, budget) // inputs.pace.seconds_per_new)
    chosen = unseen[: max(0, min(share, fits))]
    for number, card_id in enumerate(chosen):
        card = Card(card_id=number + 1)
        card = _review(inputs.scheduler, card, moment)  # first sight: learning step 1
        memory[card_id] = _review(inputs.scheduler, card, moment + LEARNING_GAP)
        day.new_ids.append(card_id)
    del unseen[: len(chosen)]
    return len(chosen) * inputs.pace.seconds_per_new


def _review_ahead(
    inputs: PlanInputs,
    memory: dict[str, Card],
    last_review: dict[str, tuple[Card, datetime]],
    day: PlanDay,
    moment: datetime,
    loop_moment: datetime,
    budget: float,
    days_left: int,
) -> float:
    """Early reviews for cards FSRS would next show after the loop, if they would fall short."""
    scheduler, cost = inputs.scheduler, inputs.pace.seconds_per_review
    short = [
        (scheduler.get_card_retrievability(card, loop_moment), cid, card)
        for cid, card in memory.items()
        if card is not None
        and card.state == State.Review
        and card.due >= loop_moment
        and _not_just_reviewed(card, moment)
        and scheduler.get_card_retrievability(card, loop_moment) < LOOP_DAY_TARGET
    ]
    short.sort(key=lambda row: (row[0], row[1]))
    # Spread over the days left, so the early reviews sit as close to the loop as they can.
    share = math.ceil(len(short) / days_left)
    spent = 0.0
    for _recall, card_id, card in short[:share]:
        if spent + cost > budget:
            break
        last_review[card_id] = (card, moment)
        memory[card_id] = _review(scheduler, card, moment)
        day.ahead_ids.append(card_id)
        day.reviews += 1
        spent += cost
    return spent


def _not_just_reviewed(card: Card, moment: datetime) -> bool:
    """A card reviewed within the last 12 hours is not reviewed again early the same day."""
    return card.last_review is None or moment - card.last_review > timedelta(hours=12)


def _expected_recall(
    scheduler: Scheduler, before: Card, moment: datetime, loop_moment: datetime
) -> float:
    """Recall on the day after a last review that is recalled with FSRS's own probability.

    The plan's path assumes every review is answered Good; forecasting from that path alone
    would ignore that one in ten reviews at 0.90 retention is forgotten. A forgotten card is
    relearnt at once (the 10-minute relearning step) and starts again from a low stability.
    """
    recalled = float(scheduler.get_card_retrievability(before, moment))
    good = _review(scheduler, before, moment)
    again, _log = scheduler.review_card(before, Rating.Again, review_datetime=moment)
    relearnt = _review(scheduler, again, moment + LEARNING_GAP)
    return recalled * float(scheduler.get_card_retrievability(good, loop_moment)) + (
        1 - recalled
    ) * float(scheduler.get_card_retrievability(relearnt, loop_moment))


def _readiness(
    inputs: PlanInputs,
    planned: dict[str, Card],
    last_review: dict[str, tuple[Card, datetime]],
    loop_moment: datetime,
) -> Readiness:
    scheduler = inputs.scheduler

    def recall(card: Card | None, moment: datetime) -> float:
        return 0.0 if card is None else float(scheduler.get_card_retrievability(card, moment))

    now, stopped, followed = [], [], []
    by_topic: dict[str, tuple[list[float], list[float]]] = {}
    for memory in inputs.cards:
        now.append(recall(memory.card, inputs.now))
        stopped.append(recall(memory.card, loop_moment))
        if memory.card_id in last_review:
            before, moment = last_review[memory.card_id]
            followed.append(_expected_recall(scheduler, before, moment, loop_moment))
        else:
            followed.append(recall(planned.get(memory.card_id), loop_moment))
        topic_now, topic_followed = by_topic.setdefault(memory.topic, ([], []))
        topic_now.append(now[-1])
        topic_followed.append(followed[-1])
    return Readiness(
        now=_mean(now),
        if_followed=_mean(followed),
        if_stopped=_mean(stopped),
        by_topic=tuple(
            TopicReadiness(slug, _mean(values_now), _mean(values_followed))
            for slug, (values_now, values_followed) in by_topic.items()
        ),
    )


def _mean_recall(scheduler: Scheduler, cards: Sequence[Card | None], moment: datetime) -> float:
    return _mean(
        [0.0 if c is None else float(scheduler.get_card_retrievability(c, moment)) for c in cards]
    )


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0

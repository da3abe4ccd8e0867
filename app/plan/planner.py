"""Planning backwards from the loop date, day by day, with FSRS's own model of memory.

FSRS alone schedules each card for when its recall falls to the target, whether or not that is
after the interview. The plan walks the days from today to the day before the loop and, on each:

1. reviews what FSRS says is due (lowest recall first), within the day's minutes;
2. introduces unseen cards, the topics interleaved (each in its reading order: study_order),
   over the days that leave each one time to be reviewed before the loop, each day's share in
   proportion to the time its reviews and mock leave it (`make_plan` says how); cards no
   earlier day could hold come in the last days rather than never, and a card is left out
   only when every day is full;
3. in the last days, reviews early the cards FSRS would next show only after the loop date and
   whose recall on the day would fall short of the loop-day target;
4. holds time for mock interviews: lightning rounds through the weeks, a full infra loop near
   the end, none on the day before.

The walk assumes each review is answered Good (the plan's expected path, fuzz off). Readiness
is FSRS's retrievability, with the person's parameters, on the loop day: as things stand
(`if_stopped`), and after the planned reviews (`if_followed`); app.plan.readiness works it out.
"""

import math
from collections.abc import Callable, Sequence
from copy import copy
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from functools import cache

from fsrs import Card, Scheduler, State

from app.mock.sessions import PRESETS, followup_minutes
from app.plan.readiness import (
    LEARNING_GAP,
    CardMemory,
    Readiness,
    ReadinessPoint,
    forecast,
    mean_recall,
    review_good,
)
from app.wording import plural

LOOP_DAY_TARGET = 0.95  # recall aimed for on the day: above the everyday 0.90, for a margin
REVIEW_AHEAD_DAYS = 3  # the last days, in which cards not due again before the loop come early
LIGHTNING_EVERY = 4  # days between lightning rounds
FIRST_LIGHTNING = 2  # a lightning round on day 3 of the plan at the earliest
MORE_WALKS = 3  # walks that give spare time to cards left over, at most


def mock_minutes(preset: str) -> int:
    """A preset's length with every follow-up asked, as the mock runs it."""
    spec = PRESETS[preset]
    return spec.questions * (spec.minutes + followup_minutes(spec.minutes))


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
    # The days are walked several times: when each begins is worked out once.
    inputs = replace(inputs, day_start=cache(inputs.day_start))
    order = study_order(inputs.cards)
    mocks, notes = _mocks(count, inputs.daily_minutes)
    # New cards stop a few days before the loop so each is reviewed at least once more; what
    # the days before could not hold still comes in the last days, rather than never.
    last_new_day = max(0, count - 1 - max(2, count // 7))
    # The days are walked more than once. The first walk shares the new cards out by each
    # day's minutes less its mock; the second by what the first found each day left after its
    # reviews, so days with slack take more and a mock day fewer. If cards are still left over,
    # each further walk gives the days that had time to spare as many more as that time holds.
    walk = _walk(inputs, order, mocks, last_new_day, None, [0] * count)
    walk = _walk(inputs, order, mocks, last_new_day, walk.review_seconds, [0] * count)
    extra = [0] * count
    for _attempt in range(MORE_WALKS):
        if not walk.unseen:
            break
        grown = _fill_slack(walk, extra, inputs.pace.seconds_per_new)
        if grown == extra:
            break
        extra = grown
        again = _walk(inputs, order, mocks, last_new_day, walk.review_seconds, extra)
        if len(again.unseen) > len(walk.unseen):
            break
        walk = again
    loop_moment = _session_moment(inputs, inputs.loop_date)
    start = [c.card for c in inputs.cards]
    trajectory = []
    for day, memory in zip(walk.days, walk.snapshots, strict=True):
        index = (day.date - inputs.today).days
        moment = _session_moment(inputs, day.date) if index else inputs.now
        later = moment + timedelta(hours=1)
        trajectory.append(
            ReadinessPoint(
                day.date,
                mean_recall(inputs.scheduler, [memory.get(c.card_id) for c in inputs.cards], later),
                mean_recall(inputs.scheduler, start, later),
            )
        )
    readiness = forecast(
        inputs.scheduler, inputs.cards, inputs.now, walk.memory, walk.last_review, loop_moment
    )
    trajectory.append(ReadinessPoint(inputs.loop_date, readiness.if_followed, readiness.if_stopped))
    left_out = set(walk.unseen)
    dropped = tuple(c for c in inputs.cards if c.card_id in left_out)
    if dropped:
        many = len(dropped) != 1
        notes.append(
            f"{plural(len(dropped), 'unseen card')} {'do' if many else 'does'} not fit: every "
            f"day to the loop is full at {inputs.daily_minutes} minutes, so "
            f"{'they are' if many else 'it is'} left out (the last in study order). More "
            "minutes a day, or fewer topics, bring them back."
        )
    return Plan(
        days=tuple(walk.days),
        dropped=dropped,
        notes=tuple(notes),
        readiness=readiness,
        pace=inputs.pace,
        trajectory=tuple(trajectory),
    )


def study_order(cards: Sequence[CardMemory]) -> list[str]:
    """The unseen cards in the order they are introduced: the topics interleaved.

    Each topic keeps its own reading order, but its cards are spread over the whole stretch
    of new-card days (by their place within the topic), instead of the last topic starting
    in the last week with the least time left to be reviewed. Ties go in reading order."""
    by_topic: dict[str, list[str]] = {}
    for memory in cards:
        if memory.card is None:
            by_topic.setdefault(memory.topic, []).append(memory.card_id)
    ranked = [
        ((place + 0.5) / len(ids), topic_index, card_id)
        for topic_index, ids in enumerate(by_topic.values())
        for place, card_id in enumerate(ids)
    ]
    return [card_id for _share, _topic, card_id in sorted(ranked)]


@dataclass
class _Walk:
    """One walk through the days: what it planned, and what it left."""

    days: list[PlanDay]
    snapshots: list[dict[str, Card]]  # the planned memory after each day's study
    memory: dict[str, Card]
    last_review: dict[str, tuple[Card, datetime]]
    unseen: list[str]  # cards no day had time for
    review_seconds: list[float]  # per day
    slack: list[float]  # per day: seconds of the daily minutes left unused


def _walk(
    inputs: PlanInputs,
    order: list[str],
    mocks: dict[int, str],
    last_new_day: int,
    reviews_hint: list[float] | None,
    extra: list[int],
) -> _Walk:
    """Every day from today to the day before the loop, planned in turn."""
    count = len(extra)
    loop_moment = _session_moment(inputs, inputs.loop_date)
    memory = {c.card_id: c.card for c in inputs.cards if c.card is not None}
    # Each card's state just before its last planned review, and when: readiness weighs the
    # chance that this review is failed (app.plan.planner._expected_recall).
    last_review: dict[str, tuple[Card, datetime]] = {}
    unseen = list(order)
    budgets = [inputs.daily_minutes * 60.0 - mock_minutes(mocks[i]) * 60 if i in mocks
               else inputs.daily_minutes * 60.0 for i in range(count)]  # fmt: skip
    hint = reviews_hint or [0.0] * count
    # after[i]: the time for new cards the days after day i are expected to have, to the last.
    after = [0.0] * (count + 1)
    for j in range(last_new_day, 0, -1):
        after[j - 1] = after[j] + max(0.0, budgets[j] - hint[j])
    result = _Walk([], [], memory, last_review, unseen, [], [])
    for index in range(count):
        day = PlanDay(inputs.today + timedelta(days=index), mock=mocks.get(index))
        moment = _session_moment(inputs, day.date) if index else inputs.now
        day_end = inputs.day_start(day.date + timedelta(days=1))
        budget = budgets[index]
        if day.mock:
            day.seconds += mock_minutes(day.mock) * 60
        done_new = 0
        if index == 0:  # what was already done today counts against today's minutes
            done_new, reviews_done = inputs.done_today
            budget -= done_new * inputs.pace.seconds_per_new
            budget -= reviews_done * inputs.pace.seconds_per_review
        reviewed = _review_due(inputs, memory, last_review, day, moment, day_end, budget)
        spent = reviewed
        if index <= last_new_day:
            # This day's part of the cards left, in proportion to the time it has for them
            # against the time the days after it are expected to have.
            room = max(0.0, budgets[index] - reviewed)
            if index == 0:
                room = max(0.0, room - inputs.done_today[1] * inputs.pace.seconds_per_review)
            later = after[index]
            left = len(unseen) + done_new
            share = math.ceil(left * room / (room + later)) if room + later > 0 else left
            share = max(0, share - done_new) + extra[index]
        else:
            share = len(unseen) + extra[index]  # cards no earlier day held: better late
        spent += _introduce(inputs, memory, unseen, day, moment, budget - spent, share)
        if index >= count - REVIEW_AHEAD_DAYS:
            spent += _review_ahead(
                inputs, memory, last_review, day, moment, loop_moment, budget - spent, count - index
            )
        day.seconds += spent
        result.days.append(day)
        result.snapshots.append(dict(memory))
        result.review_seconds.append(reviewed)
        result.slack.append(max(0.0, budget - spent))
    return result


def _fill_slack(walk: _Walk, extra: list[int], seconds_per_new: float) -> list[int]:
    """More new cards for the days that had time left, earliest first, until the cards left
    over are covered."""
    grown, wanted = list(extra), len(walk.unseen)
    for index, slack in enumerate(walk.slack):
        room = min(int(slack // seconds_per_new), wanted)
        grown[index] += room
        wanted -= room
        if not wanted:
            break
    return grown


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
    elif lightning <= daily_minutes:
        notes.append(
            f"A full infra loop takes {infra} minutes, more than {daily_minutes} a day: "
            "the plan sits lightning rounds instead. Raise the daily minutes to fit one."
        )
    else:
        notes.append(
            f"A lightning round takes {lightning} minutes and a full infra loop {infra}, more "
            f"than {daily_minutes} a day: the plan holds no mock interview. Raise the daily "
            "minutes to fit one."
        )
    if lightning <= daily_minutes:
        first_infra = min(mocks) if mocks else last_mock_day + 1
        for index in range(FIRST_LIGHTNING, first_infra - 1, LIGHTNING_EVERY):
            mocks[index] = "lightning"
        if not mocks:
            mocks[last_mock_day] = "lightning"
    return mocks, notes


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
        memory[card_id] = review_good(scheduler, card, max(moment, card.due))
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
    share: int,
) -> float:
    """Up to `share` new cards in study order, as many as the time left holds."""
    fits = int(max(0.0, budget) // inputs.pace.seconds_per_new)
    chosen = unseen[: max(0, min(share, fits))]
    if chosen:
        # Every new card of a day is learnt alike (fuzz is off): seen at once (learning step
        # 1) and again after the gap. Work it out once and copy it.
        learnt = review_good(inputs.scheduler, Card(card_id=1), moment)
        learnt = review_good(inputs.scheduler, learnt, moment + LEARNING_GAP)
    for number, card_id in enumerate(chosen):
        memory[card_id] = copy(learnt)
        memory[card_id].card_id = number + 1
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
        memory[card_id] = review_good(scheduler, card, moment)
        day.ahead_ids.append(card_id)
        day.reviews += 1
        spent += cost
    return spent


def _not_just_reviewed(card: Card, moment: datetime) -> bool:
    """A card reviewed within the last 12 hours is not reviewed again early the same day."""
    return card.last_review is None or moment - card.last_review > timedelta(hours=12)

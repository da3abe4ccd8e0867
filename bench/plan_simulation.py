"""Does the plan work? A simulated learner studies to a loop date two ways and is tested on the day.

The learner's real memory follows FSRS with parameters that differ from the defaults the app
schedules with (they forget new cards faster and gain less from each review), so the app's
belief about them is wrong in the way a new user's is. Each day the learner:

(a) follows the plan (app.plan.planner, remade each morning from what the app believes): its
    new cards, the reviews due, and its early reviews in the last days; or
(b) follows plain FSRS as the review page does without a plan: reviews due, then new cards up
    to the default 10 a day, within the same minutes.

Every review is answered by the simulated memory: recalled with its true probability (Good),
else forgotten (Again). On the loop day the mean true recall over every card is measured (an
unseen card counts 0), and compared with the plan's own forecast (`if_followed`) from day 1.

    python -m bench.plan_simulation [--days 21] [--minutes 45] [--seeds 5] [--content content]

With --content, the learner studies the cards of that content folder, topic by topic as the
app has them (the shipped topics differ in size), instead of ten topics of fifteen cards.
Recall on the day is printed per topic too: the plan should leave none of them behind.
"""

import argparse
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from fsrs import Card, Rating, Scheduler
from fsrs.scheduler import DEFAULT_PARAMETERS
from fsrs_rs_python import FSRSItem

from app.plan.planner import PlanInputs, make_plan
from app.plan.readiness import CardMemory
from app.plan.service import DEFAULT_PACE
from app.srs.days import day_start

# Forgets faster than FSRS's defaults assume: lower initial stabilities and a smaller gain
# from each successful review.
TRUE_PARAMETERS = (
    0.15, 0.7, 1.2, 4.5, *DEFAULT_PARAMETERS[4:8], 1.5, *DEFAULT_PARAMETERS[9:],
)  # fmt: skip
TOPICS = 10
CARDS_PER_TOPIC = 15
NEW_PER_DAY = 10  # Ringside's default without a plan (app.srs.settings)
TIMEZONE, BOUNDARY = "UTC", 4


@dataclass(frozen=True)
class Outcome:
    recall_on_the_day: float  # mean true recall over every card, measured
    forecast: float  # what the plan predicted on day 1 (the plan arm only)
    reviews: int
    seen: int
    logs: tuple[tuple[str, int, datetime], ...]  # (card, rating, when): the review history
    by_topic: dict[str, float]  # mean true recall on the day of each topic's cards


def _start(day: date) -> datetime:
    return day_start(day, TIMEZONE, BOUNDARY)


def simulate(
    arm: str,
    days: int = 21,
    minutes: int = 45,
    seed: int = 7,
    cards: int | None = None,
    topics: int = TOPICS,
    layout: Sequence[tuple[str, str]] | None = None,
) -> Outcome:
    """One learner, one arm ("plan" or "fsrs"), from a fresh profile to the loop day.

    `layout`: the cards as (card id, topic) in reading order; else `topics` of 15 cards."""
    rng = random.Random(seed)
    if layout is None:
        layout = [(f"t{t}-c{c}", f"t{t}") for t in range(topics) for c in range(CARDS_PER_TOPIC)]
    ids = [card_id for card_id, _topic in layout][:cards]
    topic_of = dict(layout)
    belief_scheduler = Scheduler(enable_fuzzing=False)
    true_scheduler = Scheduler(parameters=TRUE_PARAMETERS, enable_fuzzing=False)
    belief: dict[str, Card] = {}
    truth: dict[str, Card] = {}
    first = date(2026, 12, 1)
    loop = first + timedelta(days=days)
    forecast, reviews = 0.0, 0
    logs: list[tuple[str, int, datetime]] = []

    def answer(card_id: str, moment: datetime) -> None:
        nonlocal reviews
        known = truth.get(card_id)
        # First sight is learning, not recall: the card is read and graded Good, as most
        # people grade a card they have just understood. Every later review is a recall.
        recalled = known is None or rng.random() < true_scheduler.get_card_retrievability(
            known, moment
        )
        rating = Rating.Good if recalled else Rating.Again
        number = ids.index(card_id) + 1
        truth[card_id] = true_scheduler.review_card(known or Card(card_id=number), rating, moment)[
            0
        ]
        belief[card_id] = belief_scheduler.review_card(
            belief.get(card_id) or Card(card_id=number), rating, moment
        )[0]
        reviews += 1
        logs.append((card_id, int(rating), moment))

    for index in range(days):
        today = first + timedelta(days=index)
        moment = _start(today) + timedelta(hours=8)
        end = _start(today + timedelta(days=1))
        budget = minutes * 60.0
        if arm == "plan":
            inputs = PlanInputs(
                today=today,
                loop_date=loop,
                daily_minutes=minutes,
                cards=[CardMemory(i, topic_of[i], belief.get(i)) for i in ids],
                now=moment,
                day_start=_start,
                scheduler=belief_scheduler,
                pace=DEFAULT_PACE,
            )
            plan = make_plan(inputs)
            if index == 0:
                forecast = plan.readiness.if_followed
            planned = plan.days[0]
            new_ids, ahead = planned.new_ids, planned.ahead_ids
            budget -= planned.seconds - _study_seconds(len(new_ids), planned.reviews)
        else:
            seen = set(belief)
            new_ids = [i for i in ids if i not in seen][:NEW_PER_DAY]
            ahead = []
        due = sorted(
            (i for i, card in belief.items() if card.due < end),
            key=lambda i: belief_scheduler.get_card_retrievability(belief[i], moment),
        )
        spent = 0.0
        for card_id in due:
            if spent + DEFAULT_PACE.seconds_per_review > budget:
                break
            answer(card_id, max(moment, belief[card_id].due))
            spent += DEFAULT_PACE.seconds_per_review
        for card_id in new_ids:
            if spent + DEFAULT_PACE.seconds_per_new > budget:
                break
            answer(card_id, moment)
            answer(card_id, moment + timedelta(minutes=10))  # the 10-minute learning step
            spent += DEFAULT_PACE.seconds_per_new
        for card_id in ahead:
            if card_id in due or spent + DEFAULT_PACE.seconds_per_review > budget:
                continue
            answer(card_id, moment)
            spent += DEFAULT_PACE.seconds_per_review
    on_the_day = _start(loop) + timedelta(hours=8)
    recall = [
        true_scheduler.get_card_retrievability(truth[i], on_the_day) if i in truth else 0.0
        for i in ids
    ]
    by_topic: dict[str, list[float]] = {}
    for card_id, value in zip(ids, recall, strict=True):
        by_topic.setdefault(topic_of[card_id], []).append(value)
    means = {topic: statistics.fmean(values) for topic, values in by_topic.items()}
    return Outcome(statistics.fmean(recall), forecast, reviews, len(truth), tuple(logs), means)


def content_layout(folder: Path) -> list[tuple[str, str]]:
    """The cards of a content folder as (card id, topic), in reading order."""
    from app.content.loader import load_catalog

    return [(cid, card.topic_slug) for cid, card in load_catalog(folder).card_index.items()]


def recovery(seed: int = 7, days: int = 60) -> tuple[float, float, int]:
    """The optimizer on one learner's reviews: (log loss with the defaults, with the fitted
    parameters, reviews fitted on), both scored on another learner's reviews with the same
    memory that the fit never saw."""
    from fsrs_rs_python import FSRS

    from app.srs.optimizer import to_items

    def history(learner_seed: int) -> list[FSRSItem]:
        # Plain FSRS scheduling, so the reviews spread over many intervals.
        logs = simulate("fsrs", days=days, minutes=90, seed=learner_seed, topics=30).logs
        return [i.item for i in to_items(logs, TIMEZONE, BOUNDARY)]

    fitted_on, held_out = history(seed), history(seed + 1000)
    fitted = FSRS(list(DEFAULT_PARAMETERS)).compute_parameters(fitted_on)
    before = FSRS(list(DEFAULT_PARAMETERS)).evaluate(held_out).log_loss
    after = FSRS(fitted).evaluate(held_out).log_loss
    return before, after, len(fitted_on)


def _study_seconds(new: int, reviews: int) -> float:
    return new * DEFAULT_PACE.seconds_per_new + reviews * DEFAULT_PACE.seconds_per_review


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--days", type=int, default=21)
    parser.add_argument("--minutes", type=int, default=45)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--content", type=Path, help="study this content folder's cards")
    parser.add_argument("--no-optimizer", action="store_true", help="skip the optimizer check")
    args = parser.parse_args()
    layout = content_layout(args.content) if args.content else None
    rows: dict[str, list[Outcome]] = {"plan": [], "fsrs": []}
    for seed in range(args.seeds):
        for arm in rows:
            rows[arm].append(simulate(arm, args.days, args.minutes, seed, layout=layout))
    count = len(layout) if layout else TOPICS * CARDS_PER_TOPIC
    print(
        f"{args.days} days, {args.minutes} min a day, {count} cards, "
        f"{args.seeds} learners; true recall on the loop day (mean over cards):"
    )
    for arm, outcomes in rows.items():
        recall = [o.recall_on_the_day for o in outcomes]
        print(
            f"  {arm:5} {statistics.fmean(recall):.3f} (min {min(recall):.3f}), "
            f"{statistics.fmean(o.reviews for o in outcomes):.0f} reviews, "
            f"{statistics.fmean(o.seen for o in outcomes):.0f} cards seen"
        )
    plan = rows["plan"]
    gap = statistics.fmean(o.forecast - o.recall_on_the_day for o in plan)
    print(f"  plan's day-1 forecast (if_followed) minus the recall reached: {gap:+.3f}")
    print("  per topic, plan (fsrs):")
    for topic in plan[0].by_topic:
        mean = statistics.fmean(o.by_topic[topic] for o in plan)
        low = min(o.by_topic[topic] for o in plan)
        other = statistics.fmean(o.by_topic[topic] for o in rows["fsrs"])
        print(f"    {topic:28} {mean:.3f} (min {low:.3f})  ({other:.3f})")
    if args.no_optimizer:
        return
    before, after, used = recovery()
    print(
        f"optimizer: fitted on one learner's {used} review items, scored on another's: "
        f"log loss {before:.4f} with FSRS's defaults, {after:.4f} with the fitted parameters"
    )


if __name__ == "__main__":
    main()

"""The planner: every unseen card in, no day over budget, mocks placed, recall on the day."""

from datetime import UTC, date, datetime, timedelta

import pytest
from fsrs import Card, Scheduler, State

from app.plan.planner import (
    LOOP_DAY_TARGET,
    CardMemory,
    Pace,
    PlanInputs,
    make_plan,
    mock_minutes,
)
from app.srs.days import day_start

TODAY = date(2026, 12, 1)
NOW = datetime(2026, 12, 1, 9, tzinfo=UTC)
PACE = Pace(seconds_per_review=30, seconds_per_new=90, measured=False)


def fresh(count: int = 146, topics: int = 10) -> list[CardMemory]:
    return [CardMemory(f"c{i}", f"t{i * topics // count}", None) for i in range(count)]


def inputs(
    cards: list[CardMemory], days: int = 21, minutes: int = 45, **extra: object
) -> PlanInputs:
    return PlanInputs(
        today=TODAY,
        loop_date=TODAY + timedelta(days=days),
        daily_minutes=minutes,
        cards=cards,
        now=NOW,
        day_start=lambda d: day_start(d, "UTC", 4),
        scheduler=Scheduler(enable_fuzzing=False),
        pace=PACE,
        **extra,  # type: ignore[arg-type]
    )


def test_three_weeks_at_45_minutes_covers_every_card_within_budget() -> None:
    plan = make_plan(inputs(fresh()))
    assert len(plan.days) == 21
    assert [d.date for d in plan.days] == [TODAY + timedelta(days=i) for i in range(21)]
    introduced = [card_id for day in plan.days for card_id in day.new_ids]
    assert introduced == [f"c{i}" for i in range(146)]  # all of them, in reading order
    assert not plan.dropped
    assert all(day.minutes <= 45 for day in plan.days)
    assert all(day.new_cards == 0 for day in plan.days[-3:])  # the last days only review
    assert plan.readiness.now == 0.0 and plan.readiness.if_stopped == 0.0
    assert 0.9 <= plan.readiness.if_followed <= 1.0


def test_mocks_lightning_through_the_weeks_a_full_loop_near_the_end_none_the_day_before() -> None:
    plan = make_plan(inputs(fresh(), minutes=60))
    mocks = {day.date: day.mock for day in plan.days if day.mock}
    assert plan.days[-1].mock is None
    assert plan.days[-2].mock == "infra"
    assert list(mocks.values()).count("lightning") >= 3
    infra_day = plan.days[-2]
    assert infra_day.minutes <= 60 and infra_day.seconds >= mock_minutes("infra") * 60


def test_a_full_loop_that_cannot_fit_the_day_is_said_plainly() -> None:
    plan = make_plan(inputs(fresh(), minutes=45))
    assert mock_minutes("infra") > 45
    assert "infra" not in {day.mock for day in plan.days}
    assert any("full infra loop takes 52 minutes" in note for note in plan.notes)
    assert any(day.mock == "lightning" for day in plan.days)


def test_too_little_time_drops_the_last_cards_in_reading_order_and_says_so() -> None:
    plan = make_plan(inputs(fresh(), days=4, minutes=10))
    introduced = [card_id for day in plan.days for card_id in day.new_ids]
    assert plan.dropped
    assert [c.card_id for c in plan.dropped] == [f"c{i}" for i in range(len(introduced), 146)]
    assert all(day.minutes <= 10 for day in plan.days)
    assert any(f"{len(plan.dropped)} unseen cards do not fit" in note for note in plan.notes)


def test_a_card_fsrs_would_show_after_the_loop_is_reviewed_early_if_it_would_fall_short() -> None:
    scheduler = Scheduler(enable_fuzzing=False)
    last = NOW - timedelta(days=4)  # stability 12 days: due 8 days from now, recall 0.9 then
    learnt = Card(1, State.Review, None, 12.0, 5.0, last + timedelta(days=12), last)
    loop = TODAY + timedelta(days=5)
    loop_moment = day_start(loop, "UTC", 4) + timedelta(hours=8)
    assert learnt.due > loop_moment  # FSRS alone would not show it before the day
    assert scheduler.get_card_retrievability(learnt, loop_moment) < LOOP_DAY_TARGET
    plan = make_plan(inputs([CardMemory("kept", "t0", learnt)], days=5))
    early = [day.date for day in plan.days if "kept" in day.ahead_ids]
    assert len(early) == 1 and early[0] >= loop - timedelta(days=3)
    assert plan.readiness.if_followed > LOOP_DAY_TARGET > plan.readiness.if_stopped


def test_todays_share_is_fixed_by_what_was_already_done_today() -> None:
    cards = fresh(40)
    first = make_plan(inputs(cards, days=10)).days[0].new_cards
    seen = Card(card_id=1, state=Card().state)
    later = [CardMemory(c.card_id, c.topic, seen if i < 3 else None) for i, c in enumerate(cards)]
    again = make_plan(inputs(later, days=10, done_today=(3, 0))).days[0]
    assert again.new_cards == first - 3  # not a fresh share of what is left


def test_readiness_per_topic_in_reading_order() -> None:
    plan = make_plan(inputs(fresh(20, topics=2), days=7))
    assert [t.slug for t in plan.readiness.by_topic] == ["t0", "t1"]
    assert all(0 <= t.now <= t.if_followed <= 1 for t in plan.readiness.by_topic)
    assert plan.trajectory[-1].date == TODAY + timedelta(days=7)
    assert plan.trajectory[-1].if_followed == pytest.approx(plan.readiness.if_followed)


def test_the_loop_must_be_after_today() -> None:
    with pytest.raises(ValueError):
        make_plan(inputs(fresh(3), days=0))

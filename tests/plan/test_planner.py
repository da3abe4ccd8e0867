"""The planner: every unseen card in, no day over budget, mocks placed, recall on the day."""

from datetime import UTC, date, datetime, timedelta

import pytest
from fsrs import Card, Scheduler, State

from app.plan.planner import (
    LOOP_DAY_TARGET,
    Pace,
    PlanInputs,
    make_plan,
    mock_minutes,
    study_order,
)
from app.plan.readiness import CardMemory
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
    assert sorted(introduced) == sorted(f"c{i}" for i in range(146))  # all of them
    assert introduced == study_order(fresh())
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


def test_too_little_time_drops_the_last_cards_in_study_order_and_says_so() -> None:
    plan = make_plan(inputs(fresh(), days=4, minutes=10))
    introduced = [card_id for day in plan.days for card_id in day.new_ids]
    assert plan.dropped
    order = study_order(fresh())
    assert introduced == order[: len(introduced)]
    assert {c.card_id for c in plan.dropped} == set(order[len(introduced) :])
    assert all(day.minutes <= 10 for day in plan.days)
    # Dropped only because every day is full: none has time for one more new card.
    assert all(10 * 60 - day.seconds < PACE.seconds_per_new for day in plan.days)
    assert any(f"{len(plan.dropped)} unseen cards do not fit" in note for note in plan.notes)


@pytest.mark.parametrize("days", [10, 12, 14, 17, 21, 28])
def test_no_card_is_dropped_while_the_time_can_hold_it(days: int) -> None:
    # The content's shape: 183 cards in ten topics of different sizes.
    sizes = [22, 20, 18, 16, 19, 17, 21, 15, 18, 17]
    cards = [CardMemory(f"t{t}-c{c}", f"t{t}", None) for t, n in enumerate(sizes) for c in range(n)]
    plan = make_plan(inputs(cards, days=days, minutes=45))
    assert not plan.dropped, days
    assert all(day.minutes <= 45 for day in plan.days)
    assert not any("do not fit" in note for note in plan.notes)


def test_a_mock_days_lost_time_goes_to_days_with_time_to_spare() -> None:
    plan = make_plan(inputs(fresh(183), days=14, minutes=45))
    assert not plan.dropped
    lightning = [day for day in plan.days if day.mock == "lightning"]
    assert lightning
    for day in lightning:  # fewer new cards on a mock day, and the day still fits
        assert day.minutes <= 45
        neighbours = [d.new_cards for d in plan.days if d.mock is None and d.new_cards]
        assert day.new_cards < max(neighbours)


def test_one_card_left_out_is_said_in_the_singular() -> None:
    # Ten minutes for a day: 6 new cards fit, the seventh does not.
    plan = make_plan(inputs(fresh(7, topics=1), days=1, minutes=10))
    assert len(plan.dropped) == 1
    assert any(note.startswith("1 unseen card does not fit") for note in plan.notes)


def test_notes_never_promise_a_mock_the_table_does_not_hold() -> None:
    plan = make_plan(inputs(fresh(20), days=10, minutes=20))
    assert not any(day.mock for day in plan.days)
    assert not any("lightning rounds instead" in note for note in plan.notes)
    assert any("holds no mock interview" in note for note in plan.notes)


def test_topics_are_interleaved_and_each_keeps_its_reading_order() -> None:
    cards = fresh(40, topics=4)
    order = study_order(cards)
    assert {c.topic for c in cards if c.card_id in order[:4]} == {"t0", "t1", "t2", "t3"}
    for topic in ("t0", "t1", "t2", "t3"):
        mine = [c.card_id for c in cards if c.topic == topic]
        assert [card_id for card_id in order if card_id in mine] == mine
    learnt = CardMemory("c0", "t0", Card(card_id=1))
    assert "c0" not in study_order([learnt, *cards[1:]])  # only unseen cards are introduced


def test_every_topic_is_ready_on_the_day_at_45_minutes_for_three_weeks() -> None:
    sizes = [22, 20, 18, 16, 19, 17, 21, 15, 18, 17]
    cards = [CardMemory(f"t{t}-c{c}", f"t{t}", None) for t, n in enumerate(sizes) for c in range(n)]
    plan = make_plan(inputs(cards, days=21, minutes=45))
    by_topic = {t.slug: t.if_followed for t in plan.readiness.by_topic}
    assert min(by_topic.values()) >= 0.90, by_topic
    assert max(by_topic.values()) - min(by_topic.values()) < 0.03, by_topic  # none behind


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

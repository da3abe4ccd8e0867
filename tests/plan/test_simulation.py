"""The plan's proof, small: a learner who forgets faster than FSRS assumes, tested on the day."""

from bench.plan_simulation import simulate


def test_following_the_plan_is_remembered_on_the_day_better_than_plain_fsrs() -> None:
    plan = simulate("plan", days=21, minutes=45, seed=1)
    plain = simulate("fsrs", days=21, minutes=45, seed=1)
    assert plan.seen == plain.seen == 150  # both find time for every card
    assert plan.recall_on_the_day >= 0.90
    assert plan.recall_on_the_day > plain.recall_on_the_day
    # The forecast is made with the default parameters, which this learner does not have.
    assert abs(plan.forecast - plan.recall_on_the_day) < 0.1

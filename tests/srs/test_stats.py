"""Statistics on a synthetic history with a known answer."""

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from app.srs import stats
from tests.srs.test_queue import CATALOG, World

NOW = datetime(2026, 3, 20, 12, 0, tzinfo=UTC)
CATALOG_SIZE = 5


def test_empty_history(tmp_path: Path) -> None:
    world = World(tmp_path)
    with world.db.read_session() as session:
        result = stats.compute(session, world.user, CATALOG, world.settings, NOW)
    assert result.total_reviews == 0 and result.streak == 0
    assert result.counts == {"new": CATALOG_SIZE, "learning": 0, "review": 0, "relearning": 0}
    assert len(result.heatmap) == 365 and result.heatmap[-1] == (date(2026, 3, 20), 0)
    assert result.retention["all"].rate is None
    assert set(result.mastery.values()) == {0.0}


def test_synthetic_history(tmp_path: Path) -> None:
    world = World(tmp_path)
    first = world.grade("alpha-ring-bytes", 4, NOW - timedelta(days=20))  # Easy: review state
    assert first.due < NOW - timedelta(days=5)
    world.grade("alpha-ring-bytes", 3, first.due)  # a passed review of a young card
    world.grade("beta-order", 3, NOW - timedelta(days=1))  # a new card, now learning
    world.grade("beta-order", 1, NOW - timedelta(days=1, minutes=-1))  # its learning step
    world.grade("alpha-busbw", 4, NOW - timedelta(days=200))  # long ago: out of the 30 days
    mature = world.grade("alpha-busbw", 4, NOW - timedelta(days=60))
    assert mature.interval_days >= 21
    world.grade("alpha-busbw", 1, NOW)  # a mature card, forgotten today

    with world.db.read_session() as session:
        result = stats.compute(session, world.user, CATALOG, world.settings, NOW)

    assert result.total_reviews == 7
    per_day = dict(result.heatmap)
    assert per_day[date(2026, 3, 20)] == 1 and per_day[date(2026, 3, 19)] == 2
    assert per_day[date(2026, 2, 28)] == 1  # the Easy 20 days ago
    assert sum(per_day.values()) == 7 and per_day[date(2025, 9, 1)] == 1
    # True retention over 30 days: the day's first review of cards already in review state.
    young, old = result.retention["young"], result.retention["mature"]
    assert (young.passed, young.total) == (1, 1)
    assert (old.passed, old.total) == (0, 1)
    assert result.retention["all"].rate == 0.5
    assert result.counts == {"new": 2, "learning": 1, "review": 1, "relearning": 1}
    assert result.streak == 2  # yesterday and today
    assert 0 < result.mastery["alpha"] < 1 and 0 < result.mastery["beta"] < 1


def test_streak_counts_back_from_yesterday_when_today_is_empty() -> None:
    from collections import Counter

    today = date(2026, 3, 20)
    days = Counter({today - timedelta(days=i): 1 for i in (1, 2, 3, 5)})
    assert stats._streak(days, today) == 3
    days[today] = 2
    assert stats._streak(days, today) == 4


def test_forecast_puts_overdue_cards_today(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.grade("alpha-ring-bytes", 4, NOW - timedelta(days=100))
    with world.db.read_session() as session:
        result = stats.compute(session, world.user, CATALOG, world.settings, NOW)
    assert result.forecast[0] == (date(2026, 3, 20), 1)
    assert sum(count for _d, count in result.forecast) == 1

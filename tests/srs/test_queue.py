"""The daily queue and what "today" means: order, limits, topics, day boundary, time zones."""

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from app import migrate
from app.auth.users import ensure_local_user
from app.content.loader import load_catalog
from app.db import Database
from app.srs import queue, review
from app.srs.days import study_day, today_bounds
from app.srs.settings import Settings
from tests.conftest import FIXTURE_CONTENT

CATALOG = load_catalog(FIXTURE_CONTENT)
ORDER = ["alpha-ring-bytes", "alpha-busbw", "alpha-drill-bytes", "beta-derive", "beta-order"]
NOON = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


class World:
    def __init__(self, tmp_path: Path, settings: Settings | None = None) -> None:
        self.db = Database(f"sqlite:///{tmp_path}/queue.db")
        migrate.upgrade(self.db.engine)
        with self.db.write_session() as session:
            self.user = ensure_local_user(session).id
        self.settings = settings or Settings()

    def grade(self, card: str, rating: int, when: datetime) -> review.GradeResult:
        with self.db.write_session() as session:
            return review.grade(
                session, self.user, card, rating, when, desired_retention=0.9, fuzz=False
            )

    def queue(self, now: datetime, **kw: object) -> queue.Queue:
        with self.db.read_session() as session:
            return queue.build(session, self.user, CATALOG, self.settings, now, **kw)  # type: ignore[arg-type]


def ids(q: queue.Queue) -> list[str]:
    return [item.card_id for item in q.items]


def test_new_cards_come_in_catalog_order(tmp_path: Path) -> None:
    q = World(tmp_path).queue(NOON)
    assert ids(q) == ORDER
    assert (q.due_count, q.new_count, q.done_today) == (0, 5, 0)


def test_learning_first_then_reviews_by_lowest_recall_then_new(tmp_path: Path) -> None:
    world = World(tmp_path)
    start = NOON - timedelta(days=40)
    # Two review cards with different memory: the weaker one must come first.
    strong = world.grade("beta-derive", 4, start)
    world.grade("beta-derive", 4, strong.due)
    world.grade("alpha-busbw", 4, start + timedelta(days=30))
    learning = world.grade("beta-order", 3, NOON - timedelta(minutes=20))  # due after 10 min
    q = world.queue(NOON)
    assert ids(q)[0] == "beta-order" and learning.state == "learning"
    reviews = [item for item in q.items if item.retrievability is not None]
    assert [r.retrievability for r in reviews] == sorted(r.retrievability for r in reviews)  # type: ignore[type-var]
    assert ids(q)[-2:] == ["alpha-ring-bytes", "alpha-drill-bytes"]  # new, in catalog order


def test_daily_limits(tmp_path: Path) -> None:
    world = World(tmp_path, Settings(new_per_day=2, max_reviews_per_day=1))
    assert ids(world.queue(NOON)) == ORDER[:2]
    world.grade("alpha-ring-bytes", 4, NOON)
    q = world.queue(NOON + timedelta(minutes=1))
    assert q.new_count == 1 and q.done_today == 1  # one new card left today
    # Tomorrow the new-card allowance is back.
    assert world.queue(NOON + timedelta(days=1)).new_count == 2


def test_review_limit_holds_back_the_rest(tmp_path: Path) -> None:
    world = World(tmp_path, Settings(max_reviews_per_day=1, new_per_day=0))
    for card in ORDER[:3]:
        world.grade(card, 4, NOON - timedelta(days=60))
    q = world.queue(NOON)
    assert q.due_count == 1 and q.over_limit == 2


def test_topic_filter(tmp_path: Path) -> None:
    q = World(tmp_path).queue(NOON, topics={"beta"})
    assert ids(q) == ["beta-derive", "beta-order"]


def test_limit_cuts_the_list_not_the_counts(tmp_path: Path) -> None:
    q = World(tmp_path).queue(NOON, limit=2)
    assert ids(q) == ORDER[:2] and q.new_count == 5


def test_cards_removed_from_the_content_are_skipped(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.grade("gone-card", 4, NOON - timedelta(days=30))
    assert "gone-card" not in ids(world.queue(NOON))


def test_done_state_reports_when_the_next_card_is_due(tmp_path: Path) -> None:
    world = World(tmp_path, Settings(new_per_day=1))
    result = world.grade("alpha-ring-bytes", 3, NOON)  # learning step: back in 10 minutes
    q = world.queue(NOON + timedelta(minutes=1))
    assert q.items == [] and q.next_due == result.due


def test_day_boundary_default_four_am() -> None:
    before = datetime(2026, 3, 3, 3, 59, tzinfo=UTC)
    after = datetime(2026, 3, 3, 4, 0, tzinfo=UTC)
    assert study_day(before, "UTC", 4) == date(2026, 3, 2)
    assert study_day(after, "UTC", 4) == date(2026, 3, 3)


def test_time_zone_decides_the_day() -> None:
    # 06:00 UTC is 22:00 the evening before in Los Angeles (UTC−8 in winter).
    moment = datetime(2026, 1, 10, 6, 0, tzinfo=UTC)
    assert study_day(moment, "America/Los_Angeles", 4) == date(2026, 1, 9)
    assert study_day(moment, "Asia/Tokyo", 4) == date(2026, 1, 10)
    start, end = today_bounds(moment, "America/Los_Angeles", 4)
    assert start == datetime(2026, 1, 9, 12, 0, tzinfo=UTC)  # 04:00 PST
    assert end - start == timedelta(hours=24)


def test_a_day_across_a_daylight_saving_change_is_23_hours() -> None:
    # Clocks in New York jump from 02:00 to 03:00 on 8 March 2026, inside the study day that
    # runs from 04:00 on the 7th to 04:00 on the 8th. 05:00 UTC is midnight in New York.
    start, end = today_bounds(datetime(2026, 3, 8, 5, 0, tzinfo=UTC), "America/New_York", 4)
    assert end - start == timedelta(hours=23)


def test_new_card_allowance_resets_at_the_users_boundary(tmp_path: Path) -> None:
    world = World(tmp_path, Settings(new_per_day=1, timezone="Asia/Tokyo", day_boundary_hour=4))
    # 18:30 UTC is 03:30 in Tokyo: still the previous study day there.
    evening = datetime(2026, 3, 2, 18, 30, tzinfo=UTC)
    world.grade("alpha-ring-bytes", 4, evening)
    assert world.queue(evening + timedelta(minutes=20)).new_count == 0
    assert world.queue(evening + timedelta(minutes=40)).new_count == 1  # 04:10 in Tokyo

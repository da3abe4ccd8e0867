"""A user's study plan: the stored loop date, checked; the plan made from their progress, kept.

The plan is computed from the database (card states, review durations, settings) by
app.plan.planner and kept per user until something it depends on changes: a grade, the plan,
the settings, or the study day. The review queue uses the day's share of it, fixed at the
start of the study day (`today`), so grading does not move the day's target.
"""

import math
import statistics
import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import Connection, DateTime, bindparam, select, text
from sqlalchemy.orm import Session

from app.content.catalog import Catalog
from app.db import connection_of
from app.errors import FieldError
from app.models import PLAN_HORIZON_DAYS, PLAN_MINUTES, CardState, StudyPlan
from app.plan.planner import Pace, Plan, PlanInputs, make_plan, mock_minutes
from app.plan.readiness import CardMemory
from app.srs import queue, scheduling
from app.srs import settings as srs_settings
from app.srs.days import Today, as_utc, calendar_day, day_start, study_day, today_of
from app.srs.queue import Planned, Queue

MINUTES = PLAN_MINUTES
HORIZON_DAYS = PLAN_HORIZON_DAYS
DEFAULT_PACE = Pace(seconds_per_review=30.0, seconds_per_new=90.0, measured=False)
# Enough of the person's own reviews for their median to say more than the default.
MEASURED_REVIEWS, MEASURED_NEW = 30, 10
_DURATION_BOUNDS = (3.0, 600.0)  # seconds; longer ones were a break, not a review


@dataclass(frozen=True)
class StoredPlan:
    loop_date: date
    daily_minutes: int
    topics: tuple[str, ...]  # empty: every topic
    updated_at: datetime


# As SQL, typed: the review queue asks for the plan before every review, and through the ORM
# the lookup cost up to a sixth of the queue's own time (bench/suite.py).
_PLANS = StudyPlan.__table__.c
_LOAD = text(
    "SELECT loop_date, daily_minutes, topics, updated_at FROM study_plans WHERE user_id = :user_id"
).columns(_PLANS.loop_date, _PLANS.daily_minutes, _PLANS.topics, _PLANS.updated_at)


def load(db: Session | Connection, user_id: int) -> StoredPlan | None:
    row = connection_of(db).execute(_LOAD, {"user_id": user_id}).first()
    if row is None:
        return None
    return StoredPlan(row.loop_date, row.daily_minutes, tuple(row.topics), as_utc(row.updated_at))


def save(
    session: Session,
    user_id: int,
    catalog: Catalog,
    now: datetime,
    *,
    loop_date: date,
    daily_minutes: int,
    topics: list[str] | None,
) -> StoredPlan:
    """Set (or move) the loop date; raises FieldError naming the first bad field."""
    settings = srs_settings.load(session, user_id)
    # The calendar's today, not the study day: at 01:00 the loop cannot be set for the day
    # that has just begun, even though the study day is still yesterday's.
    today = calendar_day(now, settings.timezone)
    if loop_date <= today:
        raise FieldError("loop_date", f"must be after today ({today.isoformat()})", "past")
    if loop_date > today + timedelta(days=HORIZON_DAYS):
        raise FieldError("loop_date", f"must be within {HORIZON_DAYS} days", "too_far")
    if not MINUTES[0] <= daily_minutes <= MINUTES[1]:
        raise FieldError("daily_minutes", f"must be between {MINUTES[0]} and {MINUTES[1]}")
    chosen = list(dict.fromkeys(topics or []))
    unknown = [slug for slug in chosen if catalog.topic(slug) is None]
    if unknown:
        raise FieldError("topics", f"no topic '{unknown[0]}'", "unknown_topic")
    row = session.get(StudyPlan, user_id)
    if row is None:
        row = StudyPlan(user_id=user_id)
        session.add(row)
    row.loop_date, row.daily_minutes, row.topics, row.updated_at = (
        loop_date,
        daily_minutes,
        chosen,
        now,
    )
    session.flush()
    return StoredPlan(loop_date, daily_minutes, tuple(chosen), now)


def delete(session: Session, user_id: int) -> bool:
    row = session.get(StudyPlan, user_id)
    if row is None:
        return False
    session.delete(row)
    return True


class PlanCache:
    """Plans kept per user while what they were made from is unchanged; bounded."""

    def __init__(self, size: int = 512) -> None:
        self._plans: OrderedDict[tuple[int, str], tuple[Hashable, object]] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, user_id: int, kind: str, key: Hashable) -> object | None:
        with self._lock:
            found = self._plans.get((user_id, kind))
            return found[1] if found and found[0] == key else None

    def put(self, user_id: int, kind: str, key: Hashable, value: object) -> None:
        with self._lock:
            self._plans[(user_id, kind)] = (key, value)
            self._plans.move_to_end((user_id, kind))
            while len(self._plans) > self._size:
                self._plans.popitem(last=False)


_PROGRESS = text("SELECT count(*), max(id) FROM review_logs WHERE user_id = :user_id")
_DONE_SINCE = text(
    "SELECT was_new, count(*) FROM review_logs"
    " WHERE user_id = :user_id AND reviewed_at >= :start GROUP BY was_new"
)
_DURATIONS = text(
    "SELECT was_new, duration_ms FROM review_logs"
    " WHERE user_id = :user_id AND duration_ms IS NOT NULL ORDER BY id DESC LIMIT 2000"
)


def _ahead(
    connection: Connection,
    user_id: int,
    now: datetime,
    settings: srs_settings.Settings | None,
) -> tuple[StoredPlan, srs_settings.Settings, date] | None:
    """The stored plan, the user's settings and their study day; None unless a loop is ahead."""
    row = load(connection, user_id)
    if row is None:
        return None
    settings = settings or srs_settings.load(connection, user_id)
    day = study_day(now, settings.timezone, settings.day_boundary_hour)
    if not day < row.loop_date <= day + timedelta(days=HORIZON_DAYS + 1):
        return None  # passed; or, from an edited import, further off than a plan can be set
    return row, settings, day


def compute(
    db: Session | Connection,
    user_id: int,
    catalog: Catalog,
    now: datetime,
    cache: PlanCache,
    settings: srs_settings.Settings | None = None,
) -> tuple[StoredPlan, Plan] | None:
    """The user's plan from now to the loop, or None without a loop date (or once it passed).

    `settings`: the user's review settings when the caller has read them already (a page).
    """
    connection = connection_of(db)
    found = _ahead(connection, user_id, now, settings)
    if found is None:
        return None
    row, settings, today = found
    progress = tuple(connection.execute(_PROGRESS, {"user_id": user_id}).one())
    key = (row, today, settings, progress)
    cached = cache.get(user_id, "plan", key)
    if isinstance(cached, Plan):
        return row, cached
    plan = make_plan(_inputs(connection, user_id, catalog, now, row, settings, today))
    cache.put(user_id, "plan", key, plan)
    return row, plan


def today(
    db: Session | Connection,
    user_id: int,
    catalog: Catalog,
    now: datetime,
    cache: PlanCache,
    settings: srs_settings.Settings | None = None,
) -> Planned | None:
    """Today's new cards and early reviews, as planned at the start of the study day.

    `settings`: the user's review settings when the caller has read them already (the queue).
    """
    connection = connection_of(db)
    found = _ahead(connection, user_id, now, settings)
    if found is None:
        return None
    row, settings, day = found
    # Kept for the whole study day: grading today's cards does not move today's target.
    key = (row, day, settings)
    cached = cache.get(user_id, "today", key)
    if isinstance(cached, Planned):
        return cached
    first = make_plan(_inputs(connection, user_id, catalog, now, row, settings, day)).days[0]
    planned = Planned(tuple(first.new_ids), tuple(first.ahead_ids))
    cache.put(user_id, "today", key, planned)
    return planned


@dataclass(frozen=True)
class TodaysWork:
    """Today's queue with the plan's share of it: the one source of today's counts, so the
    home page, the plan's first row and the review queue say the same at the same moment."""

    today: Today
    queue: Queue
    planned: bool  # a plan chose today's new cards and early reviews


def todays_work(
    db: Session | Connection,
    user_id: int,
    catalog: Catalog,
    now: datetime,
    cache: PlanCache,
    settings: srs_settings.Settings | None = None,
    *,
    topics: set[str] | None = None,
    limit: int | None = None,
) -> TodaysWork:
    """Today's queue (app.srs.queue.build), its new cards and early reviews the plan's when
    there is one. `limit`: how many items to build (0 for the counts alone)."""
    connection = connection_of(db)
    settings = settings or srs_settings.load(connection, user_id)
    planned = today(connection, user_id, catalog, now, cache, settings)
    built = queue.build(
        connection, user_id, catalog, settings, now, topics=topics, limit=limit, planned=planned
    )
    day = today_of(now, settings.timezone, settings.day_boundary_hour)
    return TodaysWork(day, built, planned is not None)


@dataclass(frozen=True)
class DayCounts:
    """A row of the plan as pages and the API show it."""

    date: date
    new_cards: int
    reviews: int
    minutes: int
    mock: str | None


def rows(plan: Plan, work: TodaysWork) -> list[DayCounts]:
    """The plan's days, the first one what is left of today as the review queue counts it.

    The walk's first day is its forecast from the morning's state (learning steps due later
    today included); the queue is what the reviewer will actually be shown, so today's row
    takes its counts, and its minutes are those counts at the person's pace (with the mock).
    """
    first, *later = plan.days
    due, new = work.queue.due_count, work.queue.new_count
    seconds = due * plan.pace.seconds_per_review + new * plan.pace.seconds_per_new
    seconds += mock_minutes(first.mock) * 60 if first.mock else 0
    today_row = DayCounts(first.date, new, due, math.ceil(seconds / 60 - 1e-9), first.mock)
    return [today_row] + [
        DayCounts(d.date, d.new_cards, d.reviews, d.minutes, d.mock) for d in later
    ]


def _inputs(
    connection: Connection,
    user_id: int,
    catalog: Catalog,
    now: datetime,
    row: StoredPlan,
    settings: srs_settings.Settings,
    today: date,
) -> PlanInputs:
    chosen = set(row.topics) or None
    states = {
        state.card_id: state
        for state in connection.execute(
            select(CardState.__table__).where(CardState.user_id == user_id)
        )
    }
    cards = []
    for number, (card_id, card) in enumerate(catalog.card_index.items(), start=1):
        if chosen is not None and card.topic_slug not in chosen:
            continue
        state = states.get(card_id)
        memory = scheduling.to_fsrs(state, number) if state is not None else None
        cards.append(CardMemory(card_id, card.topic_slug, memory))
    start = day_start(today, settings.timezone, settings.day_boundary_hour)
    done = {
        bool(was_new): count
        for was_new, count in connection.execute(_DONE_SINCE, {"user_id": user_id, "start": start})
    }
    return PlanInputs(
        today=today,
        loop_date=row.loop_date,
        daily_minutes=row.daily_minutes,
        cards=cards,
        now=now,
        day_start=lambda d: day_start(d, settings.timezone, settings.day_boundary_hour),
        scheduler=scheduling.scheduler(
            settings.desired_retention, fuzz=False, parameters=settings.fsrs_parameters
        ),
        pace=pace(connection, user_id),
        done_today=(done.get(True, 0), done.get(False, 0)),
    )


_OVERDUE = text(
    "SELECT count(*) FROM card_states WHERE user_id = :user_id AND due < :start"
).bindparams(bindparam("start", type_=DateTime(timezone=True)))


def overdue(
    db: Session | Connection,
    user_id: int,
    now: datetime,
    settings: srs_settings.Settings | None = None,
) -> int:
    """Cards that were due before today began: what is behind."""
    connection = connection_of(db)
    settings = settings or srs_settings.load(connection, user_id)
    day = study_day(now, settings.timezone, settings.day_boundary_hour)
    start = day_start(day, settings.timezone, settings.day_boundary_hour)
    return int(connection.execute(_OVERDUE, {"user_id": user_id, "start": start}).scalar() or 0)


def pace(connection: Connection, user_id: int) -> Pace:
    """Seconds per review and per new card: the person's medians once there are enough."""
    low, high = _DURATION_BOUNDS
    reviews: list[float] = []
    firsts: list[float] = []
    for was_new, duration_ms in connection.execute(_DURATIONS, {"user_id": user_id}):
        seconds = min(max(duration_ms / 1000, low), high)
        (firsts if was_new else reviews).append(seconds)
    if len(reviews) < MEASURED_REVIEWS or len(firsts) < MEASURED_NEW:
        return DEFAULT_PACE
    per_review = statistics.median(reviews)
    # A new card is read once and seen again at its 10-minute learning step the same day.
    return Pace(per_review, statistics.median(firsts) + per_review, measured=True)

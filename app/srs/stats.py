"""Statistics from the review log and card states: activity, retention, forecast, mastery."""

from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from fsrs import State
from sqlalchemy import Connection, bindparam, select, text
from sqlalchemy.orm import Session

from app.content.catalog import Catalog, Topic
from app.db import connection_of
from app.models import CardState, ReviewLog
from app.srs import scheduling
from app.srs.days import as_utc, study_day
from app.srs.settings import Settings

HEATMAP_DAYS = 365
STATE_NAMES = {int(s): s.name.lower() for s in State}
RECENT_DAYS = 30


@dataclass(frozen=True)
class Retention:
    passed: int
    total: int

    @property
    def rate(self) -> float | None:
        return self.passed / self.total if self.total else None


@dataclass(frozen=True)
class Stats:
    today: date
    heatmap: list[tuple[date, int]]  # one entry per day, oldest first, HEATMAP_DAYS long
    reviews_per_day: list[tuple[date, int]]  # the last RECENT_DAYS days
    retention: dict[str, Retention]  # "young", "mature", "all": the last RECENT_DAYS days
    forecast: list[tuple[date, int]]  # cards due on each of the next RECENT_DAYS days
    counts: dict[str, int]  # new, learning, review, relearning
    mastery: dict[str, float]  # topic slug → mean retrievability now (new cards count 0)
    streak: int  # consecutive study days with a review, up to today (or yesterday)
    total_reviews: int
    skipped: int = 0  # reviews and card states left out: their dates or state cannot be read


def mastery(session: Session, user_id: int, catalog: Catalog, now: datetime) -> dict[str, float]:
    """Mean probability of recall now over each topic's cards; unseen cards count as 0."""
    recall = {
        card_id: scheduling.retrievability(stability, last_review, now)
        for card_id, stability, last_review in session.execute(
            select(CardState.card_id, CardState.stability, CardState.last_review).where(
                CardState.user_id == user_id
            )
        )
    }
    return {
        topic.slug: sum(recall.get(c.id, 0.0) for c in topic.cards) / len(topic.cards)
        for topic in catalog.topics
        if topic.cards
    }


# SQL rather than an ORM select: half the cost, and a topic page asks on every view.
_TOPIC_STATES = (
    text(
        "SELECT stability, last_review FROM card_states"
        " WHERE user_id = :user_id AND card_id IN :card_ids"
    )
    .bindparams(bindparam("card_ids", expanding=True))
    .columns(CardState.__table__.c.stability, CardState.__table__.c.last_review)
)


def topic_mastery(db: Session | Connection, user_id: int, topic: Topic, now: datetime) -> float:
    """`mastery` for one topic, reading only its cards' states (one query by index)."""
    if not topic.cards:
        return 0.0
    card_ids = [card.id for card in topic.cards]
    rows = connection_of(db).execute(_TOPIC_STATES, {"user_id": user_id, "card_ids": card_ids})
    recall = sum(scheduling.retrievability(stability, last, now) for stability, last in rows)
    return recall / len(topic.cards)


def compute(
    session: Session, user_id: int, catalog: Catalog, settings: Settings, now: datetime
) -> Stats:
    def day_of(moment: datetime) -> date:
        return study_day(as_utc(moment), settings.timezone, settings.day_boundary_hour)

    def day_or_none(moment: datetime) -> date | None:
        """The study day, or None for a time too near year 1 or 9999 to have one (an import
        refuses such times; this keeps one bad row from failing the whole page)."""
        try:
            return day_of(moment)
        except (OverflowError, ValueError):
            return None

    today = day_of(now)
    skipped = 0
    logs = session.execute(
        select(
            ReviewLog.card_id,
            ReviewLog.rating,
            ReviewLog.reviewed_at,
            ReviewLog.state_before,
            ReviewLog.prior_interval_days,
        )
        .where(ReviewLog.user_id == user_id)
        .order_by(ReviewLog.reviewed_at, ReviewLog.id)
    ).all()

    per_day: Counter[date] = Counter()
    first_of_day: set[tuple[str, date]] = set()
    passed: Counter[str] = Counter()
    total: Counter[str] = Counter()
    recent_from = today - timedelta(days=RECENT_DAYS - 1)
    for card_id, rating, reviewed_at, before, prior_interval in logs:
        day = day_or_none(reviewed_at)
        if day is None:
            skipped += 1
            continue
        per_day[day] += 1
        if (card_id, day) in first_of_day:
            continue
        first_of_day.add((card_id, day))
        # True retention, as Anki counts it: the day's first review of a card in review state.
        if day < recent_from or not before or before.get("state") != State.Review:
            continue
        age = "mature" if (prior_interval or 0) >= scheduling.MATURE_DAYS else "young"
        for bucket in (age, "all"):
            total[bucket] += 1
            passed[bucket] += rating > 1

    states = session.execute(
        select(CardState.card_id, CardState.state, CardState.due).where(
            CardState.user_id == user_id
        )
    ).all()
    counts: Counter[str] = Counter()
    due_days: Counter[date] = Counter()
    for _card, state, due in states:
        due_day = day_or_none(due)
        if state not in STATE_NAMES or due_day is None:
            skipped += 1
            continue
        counts[STATE_NAMES[state]] += 1
        due_days[max(due_day, today)] += 1
    counts["new"] = len({c.id for c in catalog.cards} - {c for c, _s, _d in states})

    return Stats(
        today=today,
        heatmap=_series(per_day, today, HEATMAP_DAYS),
        reviews_per_day=_series(per_day, today, RECENT_DAYS),
        retention={k: Retention(passed[k], total[k]) for k in ("young", "mature", "all")},
        forecast=[
            (today + timedelta(days=i), due_days[today + timedelta(days=i)])
            for i in range(RECENT_DAYS)
        ],  # fmt: skip
        counts={k: counts.get(k, 0) for k in ("new", "learning", "review", "relearning")},
        mastery=mastery(session, user_id, catalog, now),
        streak=_streak(per_day, today),
        total_reviews=len(logs),
        skipped=skipped,
    )


def _series(per_day: Counter[date], today: date, days: int) -> list[tuple[date, int]]:
    start = today - timedelta(days=days - 1)
    return [(start + timedelta(days=i), per_day[start + timedelta(days=i)]) for i in range(days)]


def _streak(per_day: Counter[date], today: date) -> int:
    """Days in a row with reviews, ending today, or yesterday if today has none yet."""
    day = today if per_day[today] else today - timedelta(days=1)
    streak = 0
    while per_day[day]:
        streak += 1
        day -= timedelta(days=1)
    return streak

"""Review settings: read with defaults, validate, save; a new retention target reschedules."""

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from fsrs import Rating
from fsrs import ReviewLog as FsrsLog
from sqlalchemy import Connection, Table, bindparam, select
from sqlalchemy.orm import Session

from app import locks
from app.db import connection_of
from app.errors import FieldError
from app.models import CardState, ReviewLog, ReviewSettings
from app.srs import scheduling
from app.srs.days import as_utc


@dataclass(frozen=True)
class Settings:
    desired_retention: float = 0.90
    new_per_day: int = 10
    max_reviews_per_day: int = 200
    day_boundary_hour: int = 4
    timezone: str = "UTC"
    fsrs_parameters: tuple[float, ...] | None = None  # fitted to the user; None: FSRS's defaults


_TABLE = cast(Table, ReviewSettings.__table__)
_LOAD = select(_TABLE).where(_TABLE.c.user_id == bindparam("user_id"))

LIMITS = {
    "desired_retention": (0.70, 0.97),
    "new_per_day": (0, 500),
    "max_reviews_per_day": (0, 10_000),
    "day_boundary_hour": (0, 23),
}


def load(db: Session | Connection, user_id: int) -> Settings:
    """The user's settings, or the defaults; read through Core as every grade needs them."""
    row = connection_of(db).execute(_LOAD, {"user_id": user_id}).first()
    if row is None:
        return Settings()
    values = {f.name: getattr(row, f.name) for f in fields(Settings)}
    if values["fsrs_parameters"] is not None:
        values["fsrs_parameters"] = tuple(values["fsrs_parameters"])
    return Settings(**values)


def known_zone(name: object) -> bool:
    """True for an IANA time zone name such as Europe/Paris: not a folder of the database
    (`America`), not a path, not longer than any real name."""
    if not isinstance(name, str) or not 0 < len(name) <= 64 or "\x00" in name:
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a folder, a name too long
        return False
    return True


class SettingRejected(FieldError):
    """A review setting out of its bounds, or no review setting at all: `field` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(field, message, code="value_error")


def validate(changes: dict[str, object]) -> dict[str, object]:
    """The changes, checked; raises SettingRejected for the first bad one."""
    for name, value in changes.items():
        if name == "timezone":
            if not known_zone(value):
                if isinstance(value, str) and len(value) <= 64:
                    raise SettingRejected(name, f"unknown time zone {value!r}")
                raise SettingRejected(name, "unknown time zone (names have at most 64 characters)")
        elif name in LIMITS:
            low, high = LIMITS[name]
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise SettingRejected(name, "must be a number")
            if not low <= value <= high:
                raise SettingRejected(name, f"must be between {low} and {high}")
        else:
            raise SettingRejected(name, "not a review setting")
    return changes


def save(session: Session, user_id: int, changes: dict[str, object]) -> Settings:
    """Apply validated changes; a changed retention target reschedules every card from its log."""
    validate(changes)
    locks.take_turn(session, user_id)  # two first saves at once must not both insert the row
    old = load(session, user_id)
    row = session.get(ReviewSettings, user_id)
    if row is None:
        row = ReviewSettings(user_id=user_id, **old.__dict__)
        session.add(row)
    for name, value in changes.items():
        setattr(row, name, value)
    session.flush()
    new = load(session, user_id)
    if new.desired_retention != old.desired_retention:
        reschedule_all(session, user_id, new.desired_retention, new.fsrs_parameters)
    return new


def chosen(db: Session | Connection, user_id: int) -> bool:
    """Whether the user has any stored review settings: until then every value, the time zone
    included, is the untouched default, and the browser's zone may be taken for it."""
    row = connection_of(db).execute(_LOAD, {"user_id": user_id}).first()
    return row is not None


def take_browser_zone(
    session: Session, user_id: int, name: str, *, first_visit: bool
) -> tuple[Settings, bool]:
    """Store the browser's time zone; (the settings, whether the zone changed).

    `first_visit`: only if nothing is stored yet (the page found the default untouched). A
    zone already stored, chosen or taken, is then kept: the page offers the switch instead,
    and the person decides. Raises SettingRejected for a name that is not a time zone.
    """
    validate({"timezone": name})
    locks.take_turn(session, user_id)  # two first pages at once: one takes it, one sees it
    current = load(session, user_id)
    if (first_visit and chosen(session, user_id)) or current.timezone == name:
        return current, False
    return save(session, user_id, {"timezone": name}), True


def reschedule_all(
    session: Session,
    user_id: int,
    desired_retention: float,
    parameters: Sequence[float] | None = None,
) -> int:
    """Replay each card's review log under a new target or parameters (reschedule_card)."""
    logs: dict[str, list[ReviewLog]] = {}
    for log in session.scalars(
        select(ReviewLog).where(ReviewLog.user_id == user_id).order_by(ReviewLog.id)
    ):
        logs.setdefault(log.card_id, []).append(log)
    count = 0
    for row in session.scalars(select(CardState).where(CardState.user_id == user_id)):
        history = logs.get(row.card_id)
        if not history:
            continue
        seed = scheduling.fuzz_seed(user_id, row.card_id, row.reps) + ":reschedule"
        chosen = scheduling.scheduler(desired_retention, seed=seed, parameters=parameters)
        replay = [
            FsrsLog(1, Rating(log.rating), as_utc(log.reviewed_at), log.duration_ms)
            for log in history
        ]
        card = chosen.reschedule_card(scheduling.to_fsrs(row, 1), replay)
        row.state, row.step = int(card.state), card.step
        row.stability, row.difficulty = card.stability, card.difficulty
        row.due, row.last_review = card.due, card.last_review
        count += 1
    return count

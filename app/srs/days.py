"""What "today" means: a day runs from the boundary hour to the next, in the user's time zone.

With the default boundary of 04:00, a review at 01:30 on Tuesday belongs to Monday, as in Anki:
people study past midnight and expect it to count for the evening they started.
"""

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from app.clock import as_utc as as_utc  # kept here for its importers; it lives in app.clock


def study_day(moment: datetime, timezone: str, boundary_hour: int) -> date:
    """The study day `moment` (aware) falls in."""
    local = moment.astimezone(ZoneInfo(timezone))
    return (local - timedelta(hours=boundary_hour)).date()


def day_start(day: date, timezone: str, boundary_hour: int) -> datetime:
    """When study day `day` begins, in UTC."""
    local = datetime.combine(day, time(hour=boundary_hour), tzinfo=ZoneInfo(timezone))
    return local.astimezone(UTC)


def today_bounds(now: datetime, timezone: str, boundary_hour: int) -> tuple[datetime, datetime]:
    """[start, end) of the study day containing `now`, in UTC."""
    today = study_day(now, timezone, boundary_hour)
    start = day_start(today, timezone, boundary_hour)
    end = day_start(today + timedelta(days=1), timezone, boundary_hour)
    return start, end

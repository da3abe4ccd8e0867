"""What "today" means: a day runs from the boundary hour to the next, in the user's time zone.

With the default boundary of 04:00, a review at 01:30 on Tuesday belongs to Monday, as in Anki:
people study past midnight and expect it to count for the evening they started.
"""

from dataclasses import dataclass
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


def calendar_day(moment: datetime, timezone: str) -> date:
    """The date on the user's wall calendar at `moment` (aware): what a countdown counts from."""
    return moment.astimezone(ZoneInfo(timezone)).date()


@dataclass(frozen=True)
class Today:
    """Where `now` stands for the user: the calendar date, the study day, and when it ends."""

    calendar: date
    study: date
    ends: datetime  # when the study day ends, in the user's zone
    boundary_hour: int

    @property
    def still_yesterday(self) -> bool:
        """Past midnight but before the boundary hour: the study day is the calendar's
        yesterday, and the page says so rather than leaving a row dated yesterday unexplained."""
        return self.study < self.calendar

    def days_to(self, day: date) -> int:
        """Whole calendar days to `day`: 1 on the eve, 0 on the day. Calendar days, not study
        days: at 01:22 on 2 December the 23rd is 21 days away, though the study day is still
        the 1st."""
        return (day - self.calendar).days


def today_of(now: datetime, timezone: str, boundary_hour: int) -> Today:
    study = study_day(now, timezone, boundary_hour)
    ends = day_start(study + timedelta(days=1), timezone, boundary_hour)
    return Today(
        calendar=calendar_day(now, timezone),
        study=study,
        ends=ends.astimezone(ZoneInfo(timezone)),
        boundary_hour=boundary_hour,
    )

"""Where "now" stands for a person: the calendar's today (what a countdown counts from), the
study day (what reviews count for), and when it ends; across the boundary and in other zones."""

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from app.srs.days import calendar_day, study_day, today_of

LOOP = date(2026, 12, 23)


def at(local: str, zone: str) -> datetime:
    """A wall-clock time in `zone`, as the UTC moment a clock would report."""
    return datetime.fromisoformat(local).replace(tzinfo=ZoneInfo(zone)).astimezone(UTC)


@pytest.mark.parametrize("zone", ["Europe/Berlin", "America/Los_Angeles"])
def test_at_0122_the_countdown_counts_calendar_days_and_the_study_day_is_yesterday(
    zone: str,
) -> None:
    now = at("2026-12-02T01:22", zone)
    today = today_of(now, zone, boundary_hour=4)
    assert today.calendar == date(2026, 12, 2)
    assert today.study == date(2026, 12, 1)
    assert today.still_yesterday
    assert today.days_to(LOOP) == 21  # not 22: the 23rd is 21 days from the 2nd
    assert today.ends == datetime(2026, 12, 2, 4, 0, tzinfo=ZoneInfo(zone))
    # The same moment in UTC is another day's story: the zone decides, not the server.
    utc = today_of(now, "UTC", boundary_hour=4)
    assert (utc.calendar, utc.still_yesterday) == {
        "Europe/Berlin": (date(2026, 12, 2), True),  # 00:22 UTC
        "America/Los_Angeles": (date(2026, 12, 2), False),  # 09:22 UTC
    }[zone]


@pytest.mark.parametrize("zone", ["Europe/Berlin", "America/Los_Angeles"])
def test_across_the_boundary_the_study_day_catches_up_with_the_calendar(zone: str) -> None:
    before = at("2026-12-02T03:59:59", zone)
    after = before + timedelta(seconds=1)
    early, late = today_of(before, zone, 4), today_of(after, zone, 4)
    assert early.study == date(2026, 12, 1) and early.still_yesterday
    assert late.study == late.calendar == date(2026, 12, 2) and not late.still_yesterday
    assert early.days_to(LOOP) == late.days_to(LOOP) == 21  # the countdown moved at midnight
    assert late.ends == datetime(2026, 12, 3, 4, 0, tzinfo=ZoneInfo(zone))
    # Midnight itself moves the countdown, not the study day.
    eve = today_of(at("2026-12-01T23:59:59", zone), zone, 4)
    assert eve.days_to(LOOP) == 22 and eve.study == date(2026, 12, 1)


def test_a_boundary_at_midnight_never_leaves_the_study_day_behind() -> None:
    today = today_of(at("2026-12-02T00:05", "Europe/Berlin"), "Europe/Berlin", 0)
    assert today.study == today.calendar == date(2026, 12, 2) and not today.still_yesterday


def test_the_study_day_ends_at_the_boundary_in_local_time_across_a_clock_change() -> None:
    # Berlin moves its clocks from 02:00 to 03:00 on 29 March 2026: the day still ends at 04:00
    # local time, which is 02:00 UTC (not 03:00, as it would be in winter).
    today = today_of(at("2026-03-29T01:30", "Europe/Berlin"), "Europe/Berlin", 4)
    assert today.study == date(2026, 3, 28) and today.calendar == date(2026, 3, 29)
    assert today.ends.astimezone(UTC) == datetime(2026, 3, 29, 2, 0, tzinfo=UTC)
    assert today.ends.utcoffset() == timedelta(hours=2)


def test_calendar_day_and_study_day_agree_with_today_of() -> None:
    moment = at("2026-12-02T01:22", "America/Los_Angeles")
    today = today_of(moment, "America/Los_Angeles", 4)
    assert today.calendar == calendar_day(moment, "America/Los_Angeles")
    assert today.study == study_day(moment, "America/Los_Angeles", 4)

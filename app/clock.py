"""The one clock: everything that asks "when is now" takes a Clock, so tests never sleep."""

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)

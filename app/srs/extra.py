"""New cards asked for on top of today's limit or plan ("Learn more today"), kept for the day.

The count is for one study day: a row from an earlier day counts as none. Each request adds
1 to PER_REQUEST cards; the day's total is capped so a script cannot grow it without end.
"""

from datetime import date

from sqlalchemy import Connection, Date, bindparam, text
from sqlalchemy.orm import Session

from app.db import connection_of
from app.errors import FieldError
from app.models import ExtraNewCards

PER_REQUEST = (1, 50)
DAY_CAP = 1000  # more than any content set holds

_TODAY = text(
    "SELECT count FROM extra_new_cards WHERE user_id = :user_id AND day = :day"
).bindparams(bindparam("day", type_=Date()))


def today(db: Session | Connection, user_id: int, day: date) -> int:
    """Extra new cards asked for on study day `day`."""
    found = connection_of(db).execute(_TODAY, {"user_id": user_id, "day": day}).scalar()
    return int(found or 0)


def add(session: Session, user_id: int, day: date, count: int) -> int:
    """Ask for `count` more new cards on `day`; the day's total. FieldError when out of range."""
    low, high = PER_REQUEST
    if not low <= count <= high:
        raise FieldError("new_cards", f"must be between {low} and {high}")
    row = session.get(ExtraNewCards, user_id)
    if row is None:
        row = ExtraNewCards(user_id=user_id, day=day, count=0)
        session.add(row)
    elif row.day != day:
        row.day, row.count = day, 0
    row.count = min(DAY_CAP, row.count + count)
    session.flush()
    return row.count

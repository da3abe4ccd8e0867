"""The review page's four buttons: each shows the interval its grade will give."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import update

from app import migrate
from app.auth.users import ensure_local_user
from app.db import Database
from app.models import CardState
from app.srs import buttons, review, scheduling
from app.srs.buttons import Button
from app.srs.settings import Settings

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def database(tmp_path: Path) -> tuple[Database, int]:
    db = Database(f"sqlite:///{tmp_path}/srs.db")
    migrate.upgrade(db.engine)
    with db.write_session() as session:
        user_id = ensure_local_user(session).id
    return db, user_id


def grade(db: Database, user_id: int, rating: int, when: datetime, fuzz: bool) -> datetime:
    with db.write_session() as session:
        result = review.grade(session, user_id, "c", rating, when, desired_retention=0.9, fuzz=fuzz)
    return result.due


def choices(db: Database, user_id: int, when: datetime, fuzz: bool) -> buttons.Choices:
    with db.read_session() as session:
        return buttons.choices(session, user_id, "c", when, Settings(), fuzz=fuzz)


def test_a_new_card_shows_fsrs_first_steps(tmp_path: Path) -> None:
    db, user_id = database(tmp_path)
    shown = choices(db, user_id, START, fuzz=False)
    assert shown.damaged is None
    # FSRS's defaults for a new card: learning steps of 1 and 10 minutes; Easy graduates.
    assert shown.buttons[:3] == [Button(1, "Again", "1m"), Button(2, "Hard", "6m"),
                                 Button(3, "Good", "10m")]  # fmt: skip
    assert [b.rating for b in shown.buttons] == [1, 2, 3, 4]
    assert shown.buttons[3].name == "Easy" and shown.buttons[3].interval.endswith("d")


@pytest.mark.parametrize("fuzz", [False, True])
def test_each_button_shows_the_interval_its_grade_gives(tmp_path: Path, fuzz: bool) -> None:
    db, user_id = database(tmp_path)
    when = START
    for rating in (3, 3, 3, 3, 2, 4):  # into intervals of weeks, where fuzz applies
        shown = choices(db, user_id, when, fuzz)
        due = grade(db, user_id, rating, when, fuzz)
        assert shown.buttons[rating - 1].interval == scheduling.describe_interval(due - when)
        when = due
    assert when - START > timedelta(days=30)  # fuzz was in play (intervals past 2.5 days)


def test_a_damaged_state_says_why_and_shows_a_new_cards_buttons(tmp_path: Path) -> None:
    db, user_id = database(tmp_path)
    grade(db, user_id, 3, START, fuzz=False)
    with db.write_session() as session:
        session.execute(update(CardState).values(stability=-1.0))
    later = START + timedelta(days=1)
    shown = choices(db, user_id, later, fuzz=False)
    assert shown.damaged == "its stability -1.0 is not a positive number"
    fresh_db, fresh_user = database(tmp_path / "fresh")
    assert shown.buttons == choices(fresh_db, fresh_user, later, fuzz=False).buttons

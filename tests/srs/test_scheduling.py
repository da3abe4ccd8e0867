"""The scheduling contract: Ringside's grades give exactly what fsrs gives."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fsrs import Card, Rating, Scheduler
from sqlalchemy import select

from app import migrate
from app.auth.users import ensure_local_user
from app.db import Database
from app.models import CardState, ReviewLog
from app.srs import review, scheduling

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def database(tmp_path: Path) -> tuple[Database, int]:
    db = Database(f"sqlite:///{tmp_path}/srs.db")
    migrate.upgrade(db.engine)
    with db.write_session() as session:
        user_id = ensure_local_user(session).id
    return db, user_id


def grade(db: Database, user_id: int, card_id: str, rating: int, when: datetime, **kw: object):  # type: ignore[no-untyped-def]
    with db.write_session() as session:
        return review.grade(
            session,
            user_id,
            card_id,
            rating,
            when,
            desired_retention=0.9,
            **kw,  # type: ignore[arg-type]
        )


def test_intervals_equal_fsrs_own_without_fuzz(tmp_path: Path) -> None:
    db, user_id = database(tmp_path)
    reference = Scheduler(desired_retention=0.9, enable_fuzzing=False)
    card = Card(card_id=1)
    when = START
    for rating in (3, 3, 1, 3, 4, 2, 3):
        mine = grade(db, user_id, "c", rating, when, fuzz=False)
        card, _log = reference.review_card(card, Rating(rating), review_datetime=when)
        assert mine.due == card.due
        assert mine.stability == pytest.approx(card.stability)
        assert mine.difficulty == pytest.approx(card.difficulty)
        when = card.due  # review exactly when due
    with db.read_session() as session:
        assert len(session.scalars(select(ReviewLog)).all()) == 7


def test_the_interval_shown_is_the_interval_saved_with_fuzz_on(tmp_path: Path) -> None:
    db, user_id = database(tmp_path)
    when = START
    for rating in (3, 3, 3, 3, 3):  # long enough intervals for fuzz to apply
        with db.read_session() as session:
            row = session.scalars(select(CardState).where(CardState.card_id == "c")).one_or_none()
            reps = row.reps if row else 0
            shown = scheduling.outcomes(
                row, when, 0.9, scheduling.fuzz_seed(user_id, "c", reps), fuzz=True
            )
        saved = grade(db, user_id, "c", rating, when)
        assert saved.due == shown[rating].card.due
        when = saved.due
    assert saved.interval_days > 10  # fuzz was in play


def test_fuzz_differs_between_cards_but_repeats_for_one() -> None:
    row = CardState(
        user_id=1,
        card_id="c",
        state=2,
        step=None,
        stability=40.0,
        difficulty=5.0,
        due=START,
        last_review=START - timedelta(days=30),
        reps=5,
        lapses=0,
    )
    dues = {
        scheduling.outcomes(row, START, 0.9, scheduling.fuzz_seed(1, f"card-{i}", 5))[3].card.due
        for i in range(12)
    }
    assert len(dues) > 1
    again = scheduling.outcomes(row, START, 0.9, scheduling.fuzz_seed(1, "card-0", 5))
    first = scheduling.outcomes(row, START, 0.9, scheduling.fuzz_seed(1, "card-0", 5))
    assert again[3].card.due == first[3].card.due


def test_retrievability_matches_fsrs() -> None:
    reference = Scheduler()
    for stability, days in ((1.0, 0), (2.5, 3), (30.0, 45), (200.0, 10)):
        last = START - timedelta(days=days, hours=5)
        card = Card(
            card_id=1, state=2, stability=stability, difficulty=5, due=START, last_review=last
        )
        expected = reference.get_card_retrievability(card, START)
        assert scheduling.retrievability(stability, last, START) == pytest.approx(expected)
    assert scheduling.retrievability(None, None, START) == 0.0


def test_undo_restores_state_and_removes_the_log(tmp_path: Path) -> None:
    db, user_id = database(tmp_path)
    grade(db, user_id, "c", 3, START, fuzz=False)
    first = grade(db, user_id, "c", 3, START + timedelta(minutes=10), fuzz=False)
    grade(db, user_id, "c", 1, first.due, fuzz=False)
    with db.write_session() as session:
        undone = review.undo(session, user_id)
    assert undone == review.UndoResult("c", 1)
    with db.read_session() as session:
        row = session.scalars(select(CardState)).one()
        assert row.reps == 2 and row.lapses == 0
        assert row.due.replace(tzinfo=UTC) == first.due
        assert len(session.scalars(select(ReviewLog)).all()) == 2


def test_undoing_a_first_review_makes_the_card_new_again(tmp_path: Path) -> None:
    db, user_id = database(tmp_path)
    grade(db, user_id, "c", 4, START)
    with db.write_session() as session:
        review.undo(session, user_id)
    with db.read_session() as session:
        assert session.scalars(select(CardState)).all() == []
        assert session.scalars(select(ReviewLog)).all() == []
    with db.write_session() as session:
        assert review.undo(session, user_id) is None


def test_same_idempotency_key_records_once(tmp_path: Path) -> None:
    db, user_id = database(tmp_path)
    first = grade(db, user_id, "c", 3, START, idempotency_key="k")
    second = grade(db, user_id, "c", 1, START + timedelta(minutes=1), idempotency_key="k")
    assert second == first
    with db.read_session() as session:
        assert len(session.scalars(select(ReviewLog)).all()) == 1


def test_lapses_count_forgotten_review_cards(tmp_path: Path) -> None:
    db, user_id = database(tmp_path)
    done = grade(db, user_id, "c", 4, START, fuzz=False)  # Easy: straight to review
    grade(db, user_id, "c", 1, done.due, fuzz=False)
    with db.read_session() as session:
        row = session.scalars(select(CardState)).one()
        assert (row.reps, row.lapses, row.state) == (2, 1, 3)  # relearning


@pytest.mark.parametrize(("rating", "source"), [(0, "review"), (5, "review"), (3, "magic")])
def test_bad_rating_or_source_is_refused(tmp_path: Path, rating: int, source: str) -> None:
    db, user_id = database(tmp_path)
    with pytest.raises(ValueError, match="rating|source"):
        grade(db, user_id, "c", rating, START, source=source)

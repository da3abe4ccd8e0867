"""Rows of another user's, for the tests that check one user cannot reach them."""

from datetime import datetime

from sqlalchemy.orm import Session

from app.models import MockSession, User


def other_users_mock(session: Session, created_at: datetime) -> MockSession:
    """An active custom mock session of a second user's, flushed (its id is set)."""
    other = User(username="other", display_name="Other")
    session.add(other)
    session.flush()
    theirs = MockSession(
        user_id=other.id, preset="custom", minutes_per_question=5, followups=False,
        grade_after_each=True, topics=[], status="active", created_at=created_at,
    )  # fmt: skip
    session.add(theirs)
    session.flush()
    return theirs

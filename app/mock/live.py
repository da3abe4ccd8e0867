"""A mock session's news, for the pages that show it live: the candidate's and the
interviewer's (app.mock.pairing.watch).

Every change the other screen shows bumps the session's `version` in the write's own
transaction and publishes "<version> <kind>" on the session's topic (app.events): heard only
once the change is committed, in every process. The news names no content: a page that hears
it fetches the JSON it is allowed to see, so the candidate's stream cannot carry the rubric.
A page that reconnects says the version it last saw and hears at once if there is a newer one.
"""

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from app import events
from app.mock import sessions as mocks
from app.models import MockSession


class Kind(StrEnum):
    STEP = "step"  # the candidate started, submitted, graded or abandoned
    NOTES = "notes"  # the candidate's answer autosaved
    INTERVIEWER = "interviewer"  # the interviewer marked points, chose a follow-up or rated
    LINK = "link"  # the interviewer's link was made or revoked
    ENDED = "ended"  # the session was deleted


def topic(mock_id: int) -> str:
    return f"mock:{mock_id}"


def changed(session: Session, mock: MockSession, kind: Kind) -> int:
    """Record that `mock` changed (a new version, in this transaction) and tell its pages
    once the transaction commits. Returns the new version."""
    version: int = session.execute(
        update(MockSession)
        .where(MockSession.id == mock.id)
        .values(version=MockSession.version + 1)
        .returning(MockSession.version),
        execution_options={"synchronize_session": False},
    ).scalar_one()
    set_committed_value(mock, "version", version)  # what this transaction's caller shows
    events.publish(session, topic(mock.id), f"{version} {kind}")
    return version


def deleted(session: Session, mock: MockSession) -> None:
    """Tell `mock`'s pages it is being deleted (its version goes with it)."""
    events.publish(session, topic(mock.id), f"0 {Kind.ENDED}")


def parse(message: str) -> tuple[int, str] | None:
    """A message's version and kind; None for anything else (events.RESYNC)."""
    number, _, kind = message.partition(" ")
    return (int(number), kind) if number.isdigit() and kind in set(Kind) else None


@dataclass(frozen=True)
class Watched:
    """What a live page may still watch: the session, its version, and until when."""

    mock_id: int
    version: int
    until: datetime | None  # the interviewer's link ends then; None: while the session lasts


def for_candidate(session: Session, user_id: int, mock_id: int) -> Watched | None:
    """The user's own session; None when it is not theirs or no longer exists."""
    mock = mocks.load(session, user_id, mock_id)
    return None if mock is None else Watched(mock.id, mock.version, None)

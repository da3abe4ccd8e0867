"""A mock session of the signed-in user's, to read or to change; anyone else's is a 404."""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Path
from sqlalchemy.orm import Session

from app import locks
from app.db import Database
from app.mock import sessions as mocks
from app.models import MockSession
from app.web.deps import SessionDep, UserDep, WriteSessionDep

MockId = Annotated[int, Path(ge=1, le=2**31 - 1, description="A mock session's number.")]
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "No such session of yours"}}


def not_yours(mock_id: int) -> HTTPException:
    return HTTPException(status_code=404, detail=f"No mock session {mock_id} of yours.")


def own_mock(mock_id: MockId, session: SessionDep, user_id: UserDep) -> MockSession:
    mock = mocks.load(session, user_id, mock_id)
    if mock is None:
        raise not_yours(mock_id)
    return mock


#: The session named in the path, read with the request's read session.
OwnMockDep = Annotated[MockSession, Depends(own_mock)]


def own_mock_to_change(mock_id: MockId, session: WriteSessionDep, user_id: UserDep) -> MockSession:
    """The session named in the path, in the request's write transaction, with the user's turn
    taken (on PostgreSQL, one change to a user's mocks at a time). A refused step raises, and
    the whole transaction is rolled back: nothing is left behind, not even a settle."""
    locks.take_turn(session, user_id)  # on PostgreSQL, one change to a user's mocks at a time
    mock = mocks.load(session, user_id, mock_id)
    if mock is None:
        raise not_yours(mock_id)
    return mock


#: The session named in the path, to change in the request's write session (WriteSessionDep).
MockToChangeDep = Annotated[MockSession, Depends(own_mock_to_change)]


@contextmanager
def writing(
    database: Database, user_id: int, mock_id: int
) -> Iterator[tuple[Session, MockSession]]:
    """One write transaction on the user's session: committed if the block ends normally,
    rolled back on any error. Only for the two routes that must act around their own
    transaction: the audio upload, which begins it once its body is in (a slow upload never
    holds the write lock), and queueing a transcription, which wakes the worker once the row
    is committed. Every other route takes MockToChangeDep."""
    with database.write_session() as session:
        yield session, own_mock_to_change(mock_id, session, user_id)

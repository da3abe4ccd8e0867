"""Taking turns inside a write transaction, for checks that must hold across processes.

A read followed by a write ("count the failed sign-ins, then record one"; "is this username
free? then insert it") is safe on SQLite, whose writers run one at a time (BEGIN IMMEDIATE).
On PostgreSQL, at READ COMMITTED, two transactions run such a check side by side and both
pass. `hold` makes them queue: it takes a transaction-scoped advisory lock per name, released
at commit or rollback, so the second transaction reads only after the first has written.
"""

import hashlib
from typing import cast

from sqlalchemy import Table, bindparam, select, text
from sqlalchemy.orm import Session

from app.models import User

_ADVISORY = text("SELECT pg_advisory_xact_lock(:key)")
_USERS = cast(Table, User.__table__)
# NO KEY UPDATE: queues this user's writers without blocking inserts that merely reference the
# user (their foreign keys take KEY SHARE), so it cannot deadlock with them.
_LOCK_USER = (
    select(_USERS.c.id).where(_USERS.c.id == bindparam("user_id")).with_for_update(key_share=True)
)


def key_of(name: str) -> int:
    """A signed 64-bit advisory lock key for a name (a hash: any name, any length)."""
    return int.from_bytes(
        hashlib.blake2b(name.encode(), digest_size=8).digest(), "big", signed=True
    )


def hold(session: Session, *names: str) -> None:
    """Queue behind any other transaction holding one of `names` until this one ends.

    Always taken in sorted order, so two transactions wanting the same names cannot deadlock.
    A no-op on SQLite, where the write transaction already holds the database's only write
    lock.
    """
    connection = session.connection()
    if connection.dialect.name != "postgresql":
        return
    for key in sorted({key_of(name) for name in names}):
        connection.execute(_ADVISORY, {"key": key})


def take_turn(session: Session, user_id: int) -> None:
    """Queue behind the user's other writers (their user row, FOR NO KEY UPDATE) until this
    transaction ends; a no-op on SQLite (see `hold`)."""
    connection = session.connection()
    if connection.dialect.name != "sqlite":
        connection.execute(_LOCK_USER, {"user_id": user_id})

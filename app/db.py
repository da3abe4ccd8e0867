"""Database engine, SQLite pragmas, and the two kinds of session: read and write.

Reads use a plain (deferred) transaction. Writes go through `write_session()`, which on SQLite
begins with BEGIN IMMEDIATE: two deferred transactions that both read and then write lose
updates or fail with "database is locked" (see the measurements in the security reference);
taking the write lock up front serialises them behind busy_timeout instead.

On PostgreSQL writers run side by side and lock only the rows they change (app.srs.review
queues one user's grades on their user row), and every session runs in UTC.
"""

import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.orm import Session, sessionmaker

SQLITE_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA busy_timeout=5000",
    "PRAGMA foreign_keys=ON",
)
_WRITE_OPTION = "ringside_write"
POOL_SIZE, POOL_OVERFLOW = 20, 30  # enough for every worker thread of one process


def create_db_engine(url: str) -> Engine:
    """An engine for `url`; on SQLite the folder is created and every connection configured."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "postgresql":
        return _postgresql_engine(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)

    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    # A connection per worker thread (anyio runs 40): a smaller pool makes requests queue
    # for connections under load, and past pool_timeout fail. SQLite connections are cheap.
    engine = create_engine(
        url,
        connect_args={"check_same_thread": False},
        pool_size=POOL_SIZE,
        max_overflow=POOL_OVERFLOW,
    )

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, decide when transactions begin (see module doc).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        for pragma in SQLITE_PRAGMAS:
            cursor.execute(pragma)
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        write = conn.get_execution_options().get(_WRITE_OPTION, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


def _postgresql_engine(url: str) -> Engine:
    engine = create_engine(url, pool_pre_ping=True, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW)

    @event.listens_for(engine, "connect", insert=True)
    def _utc(dbapi_connection: Any, _record: Any) -> None:
        # Timestamps come back in the session's time zone, which is the server's setting: pin
        # it to UTC so that every datetime read back is in UTC, as it is on SQLite.
        autocommit = dbapi_connection.autocommit
        dbapi_connection.autocommit = True  # a SET outside any transaction lasts the session
        cursor = dbapi_connection.cursor()
        cursor.execute("SET TIME ZONE 'UTC'")
        cursor.close()
        dbapi_connection.autocommit = autocommit

    return engine


def for_writes(engine: Engine) -> Engine:
    """The same engine, whose transactions begin with BEGIN IMMEDIATE on SQLite."""
    return engine.execution_options(**{_WRITE_OPTION: True})


class Database:
    """The engine and its session factories; one per app."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = create_db_engine(url)
        # SQLite has one writer at a time. Threads of this process queue on a lock instead of
        # in SQLite's busy handler, whose growing sleeps cost throughput and tail latency
        # (reference/perf.md); other processes still wait through busy_timeout.
        is_sqlite = self.engine.dialect.name == "sqlite"
        self._write_lock: AbstractContextManager[object] = (
            threading.Lock() if is_sqlite else nullcontext()
        )
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        self._write = sessionmaker(for_writes(self.engine), expire_on_commit=False)

    def read_session(self) -> Session:
        """A session for reads; on SQLite its transaction takes no write lock."""
        return self._read()

    @contextmanager
    def write_session(self) -> Iterator[Session]:
        """One write transaction: committed on success, rolled back on any error."""
        with self._write_lock, self._write() as session, session.begin():
            yield session

    def dispose(self) -> None:
        self.engine.dispose()

"""Database engine, SQLite pragmas, and the two kinds of session: read and write.

Reads use a plain (deferred) transaction. Writes go through `write_session()`, which on SQLite
begins with BEGIN IMMEDIATE: two deferred transactions that both read and then write lose
updates or fail with "database is locked" (docs/security.md has the measurements); taking
the write lock up front serialises them behind busy_timeout instead.

Reads for a request go through `read()`. On SQLite they run in the event loop, on a connection
of its own: in WAL mode a reader never waits for a writer, so a read is CPU work, and a worker
thread would add a hop and contention for the GIL without running it any more in parallel.
Writes, which can wait for the write lock, run in worker threads.

On PostgreSQL writers run side by side and lock only the rows they change (app.srs.review
queues one user's grades on their user row), and every session runs in UTC.
"""

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any, TypeVar

import anyio
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import ArgumentError, OperationalError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import SingletonThreadPool

SQLITE_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA busy_timeout=5000",
    "PRAGMA foreign_keys=ON",
)
_WRITE_OPTION = "ringside_write"
T = TypeVar("T")
POOL_SIZE, POOL_OVERFLOW = 20, 30  # enough for every worker thread of one process
RETRY_WRITE_S = 30.0  # after a write failed for lack of space, /readyz tries one this late


def create_db_engine(url: str, *, per_thread: bool = False) -> Engine:
    """An engine for `url`; on SQLite the folder is created and every connection configured.

    `per_thread` (SQLite only): a connection of its own for each thread that uses the engine,
    kept open, for reads in the event loop (in a server, its thread is the only one).
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "postgresql":
        return _postgresql_engine(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)

    if (
        parsed.database
        and parsed.database != ":memory:"
        and not parsed.database.startswith("file:")
    ):
        private_database_file(Path(parsed.database))
    # A connection per worker thread (anyio runs 40): a smaller pool makes requests queue
    # for connections under load, and past pool_timeout fail. SQLite connections are cheap.
    pool: dict[str, Any] = (
        {"poolclass": SingletonThreadPool}
        if per_thread
        else {"pool_size": POOL_SIZE, "max_overflow": POOL_OVERFLOW}
    )
    engine = create_engine(url, connect_args={"check_same_thread": False}, **pool)

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


def private_database_file(path: Path) -> None:
    """Make the SQLite file 0600 in a 0700 folder, before SQLite creates it 0644.

    It holds password hashes and the keyed hashes of sessions and tokens. SQLite gives the
    -wal and -shm files the database file's mode, so they follow. A file from an older
    version is narrowed to 0600 when this process owns it; one it cannot open is left for
    SQLite (and start-up's checks) to report.
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        pass
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            if file.stat().st_mode & 0o077 and file.stat().st_uid == os.geteuid():
                file.chmod(0o600)
        except OSError:
            pass


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


def masked(url: str) -> str:
    """`url` fit to print or log: its password replaced by ***."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(a database URL that cannot be parsed)"  # it may hold a password: never shown


def storage_problem(error: BaseException) -> str | None:
    """What stops the database from writing, when `error` says the disk is full or the file
    is read-only (a state the operator must fix, not a bug); None for any other error.

    SQLite says "database or disk is full" (ENOSPC, or a write cut short by a file size
    limit), "disk I/O error" (the write that follows), or "attempt to write a readonly
    database"; PostgreSQL answers SQLSTATE 53100 (disk_full) or 25006 (read_only_sql_transaction).
    """
    if not isinstance(error, OperationalError):
        return None
    message = str(error.orig).lower()
    state = getattr(error.orig, "sqlstate", None)
    if state == "53100" or "database or disk is full" in message or "disk i/o error" in message:
        return "storage full"
    if state == "25006" or "readonly database" in message or "read-only" in message:
        return "read-only"
    return None


def connection_of(db: Session | Connection) -> Connection:
    """The connection to run Core queries on: reads take either (see `Database.read`)."""
    return db.connection() if isinstance(db, Session) else db


def for_writes(engine: Engine) -> Engine:
    """The same engine, whose transactions begin with BEGIN IMMEDIATE on SQLite."""
    return engine.execution_options(**{_WRITE_OPTION: True})


class Database:
    """The engine and its session factories; one per app."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = create_db_engine(url)
        self.cannot_write: str | None = None  # see write_session
        self._failed_at = 0.0
        # SQLite has one writer at a time. Threads of this process queue on a lock instead of
        # in SQLite's busy handler, whose growing sleeps cost throughput and tail latency
        # (docs/performance.md); other processes still wait through busy_timeout.
        is_sqlite = self.engine.dialect.name == "sqlite"
        self._write_lock: AbstractContextManager[object] = (
            threading.Lock() if is_sqlite else nullcontext()
        )
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        self._write = sessionmaker(for_writes(self.engine), expire_on_commit=False)
        # The event loop's own connection (see `read`); not for an in-memory database, which
        # every connection sees a fresh copy of.
        in_memory = make_url(url).database in (None, "", ":memory:")
        self._loop: Engine | None = None
        if is_sqlite and not in_memory:
            self._loop = create_db_engine(url, per_thread=True)

    async def read(self, read: Callable[[Connection], T]) -> T:
        """`read(connection)` for a request: in the event loop on SQLite, in a thread elsewhere.

        See the module doc: a SQLite read never waits, so it is CPU work, and under the GIL
        a worker thread runs CPU work no more in parallel than the loop itself does, while
        the hop costs more than a small request's own work and every row fetched in a thread
        contends for the GIL with the loop (bench/suite.py). A PostgreSQL query is a network
        round trip, so there `read` runs in a worker thread. Only for reads of a few
        milliseconds at most, never for a write: in the loop, a long read would hold up every
        other request, where in a thread the GIL would let the loop in every 5 ms.
        """
        if self._loop is not None:
            with self._loop.connect() as connection:  # BEGIN at the first query, then ROLLBACK
                return read(connection)
        return await anyio.to_thread.run_sync(self._read_in_thread, read)

    def _read_in_thread(self, read: Callable[[Connection], T]) -> T:
        with self.engine.connect() as connection:
            return read(connection)

    def add_commit_hooks(
        self, after_commit: Callable[[Session], None], after_rollback: Callable[[Session], None]
    ) -> None:
        """Call `after_commit(session)` once each write transaction has committed, and
        `after_rollback(session)` when one rolled back (app.events delivers news with them)."""
        event.listen(self._write, "after_commit", after_commit)
        event.listen(self._write, "after_rollback", after_rollback)

    def read_session(self) -> Session:
        """A session for reads; on SQLite its transaction takes no write lock."""
        return self._read()

    @contextmanager
    def write_session(self) -> Iterator[Session]:
        """One write transaction: committed on success, rolled back on any error.

        A write that fails for lack of space (or on a read-only file) is remembered, for
        /readyz, until a write succeeds again (see `can_write`).
        """
        try:
            with self._write_lock, self._write() as session, session.begin():
                yield session
        except OperationalError as error:
            problem = storage_problem(error)
            if problem is not None:
                self.cannot_write, self._failed_at = problem, time.monotonic()
            raise
        self.cannot_write = None

    def can_write(self) -> str | None:
        """None when writes go through, else why not ("storage full", "read-only").

        What real writes met: after a failure, the problem stands until a write succeeds.
        When none has been tried for RETRY_WRITE_S, a probe is: an update of the schema's
        version row to the same value, which writes a page and changes nothing. (A probe
        only clears a problem it outlived: one page can fit where a review's pages do not.)
        """
        if self.cannot_write is None:
            return None
        if time.monotonic() - self._failed_at < RETRY_WRITE_S:
            return self.cannot_write
        try:
            with self.write_session() as session:
                session.execute(text("UPDATE alembic_version SET version_num = version_num"))
        except OperationalError as error:
            return storage_problem(error) or "cannot write"
        return None

    def dispose(self) -> None:
        self.engine.dispose()
        if self._loop is not None:
            self._loop.dispose()

"""News of a change, from the transaction that made it to whoever waits for it, in any process.

A writer calls `publish(session, topic, message)` inside its write transaction; the message
reaches the topic's subscribers only if that transaction commits, and after it has, so a
subscriber that reads the database on hearing it sees the change:

- on PostgreSQL, as `pg_notify` in the same transaction, which PostgreSQL delivers at commit
  to every connection listening, in every process. Each process has one listening
  connection (`Hub`, in a thread of its own), not one per subscriber. The channel is named
  after the schema, so apps on separate schemas of one database do not hear each other.
- on SQLite (one process), from the session's after-commit hook, in this process.

A message is a hint, never the data: a subscriber that hears one reads what it may see from
the database. After the listening connection was lost (notifications sent meanwhile are
gone) every subscriber is woken with `RESYNC`, to read again. `Hub.close()` wakes every
subscriber with `CLOSED` and refuses new ones: for a server that stops, since a stream that
never ends would keep it waiting.
"""

import asyncio
import logging
import threading
from dataclasses import dataclass, field

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from app.db import Database
from app.errors import DomainError

log = logging.getLogger("ringside.events")

RESYNC = "*resync"  # the listener reconnected: anything may have changed
CLOSED = "*closed"  # the server is stopping
_PENDING = "ringside_events"  # session.info key: (topic, message) to deliver after commit
# One channel per schema: LISTEN is database-wide, and test apps share a database.
_CHANNEL = "'ringside_' || left(md5(current_schema()), 16)"
_NOTIFY = text(f"SELECT pg_notify({_CHANNEL}, :payload)")
_LISTEN_POLL_S = 0.5  # how often the listener looks up from waiting, to notice close()
_RECONNECT_S = 1.0


class TooManySubscribers(DomainError):
    """A topic already has as many subscribers as it may (429)."""

    status = 429
    retry_after = 10

    def __init__(self, limit: int) -> None:
        super().__init__(
            None,
            f"This session already has {limit} live connections open: close a tab or two.",
            "too_many_streams",
        )


class Stopping(DomainError):
    """The server is stopping: the client should reconnect, to it or another (503)."""

    status = 503
    retry_after = 2

    def __init__(self) -> None:
        super().__init__(None, "The server is restarting: try again in a moment.", "stopping")


def publish(session: Session, topic: str, message: str) -> None:
    """Tell `topic`'s subscribers `message` once `session`'s transaction commits (never if it
    rolls back). `topic` must not contain a space."""
    if " " in topic:
        raise ValueError(f"a topic has no spaces: {topic!r}")
    if session.get_bind().dialect.name == "postgresql":
        session.execute(_NOTIFY, {"payload": f"{topic} {message}"})
    else:
        session.info.setdefault(_PENDING, []).append((topic, message, _savepoints(session)))


def _savepoints(session: Session) -> int:
    """How many savepoints deep the session's transaction is now (0: none)."""
    depth, transaction = 0, session.get_nested_transaction()
    while transaction is not None:
        depth += transaction.nested
        transaction = transaction.parent
    return depth


@dataclass(eq=False)
class Subscription:
    """One subscriber's mailbox: messages land in its event loop, in order."""

    topic: str
    _loop: asyncio.AbstractEventLoop
    _queue: asyncio.Queue[str] = field(default_factory=asyncio.Queue)

    def _deliver(self, message: str) -> None:
        try:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, message)
        except RuntimeError:  # its loop has closed: nobody is waiting any more
            pass

    async def next(self, timeout: float) -> str | None:
        """The next message, or None after `timeout` seconds without one."""
        try:
            return await asyncio.wait_for(self._queue.get(), timeout)
        except TimeoutError:
            return None


class Hub:
    """This process's subscribers, and what delivers their messages (see the module doc)."""

    def __init__(self, database: Database) -> None:
        engine = self._engine = database.engine
        self._lock = threading.Lock()
        self._subscribers: dict[str, set[Subscription]] = {}
        self._closed = False
        self._stop = threading.Event()
        self._listener: threading.Thread | None = None
        self.listening = threading.Event()  # set while the PostgreSQL listener is connected
        self.postgresql = engine.dialect.name == "postgresql"
        if not self.postgresql:
            database.add_commit_hooks(self._committed, self._rolled_back)

    # --- subscribers ---------------------------------------------------------------------

    def subscribe(self, topic: str, limit: int) -> Subscription:
        """A mailbox for `topic`, in the running event loop; refused past `limit` on the
        topic (TooManySubscribers) and once the hub is closed (Stopping)."""
        subscription = Subscription(topic, asyncio.get_running_loop())
        with self._lock:
            if self._closed:
                raise Stopping()
            present = self._subscribers.setdefault(topic, set())
            if len(present) >= limit:
                raise TooManySubscribers(limit)
            present.add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            present = self._subscribers.get(subscription.topic, set())
            present.discard(subscription)
            if not present:
                self._subscribers.pop(subscription.topic, None)

    def count(self, topic: str) -> int:
        with self._lock:
            return len(self._subscribers.get(topic, ()))

    def deliver(self, topic: str, message: str) -> None:
        """Hand `message` to `topic`'s subscribers in this process (from any thread)."""
        with self._lock:
            present = list(self._subscribers.get(topic, ()))
        for subscription in present:
            subscription._deliver(message)

    def _everyone(self, message: str) -> None:
        with self._lock:
            present = [s for group in self._subscribers.values() for s in group]
        for subscription in present:
            subscription._deliver(message)

    # --- SQLite: after commit, in this process ---------------------------------------------

    # A savepoint's release or rollback fires these hooks too (SQLAlchemy calls both "commit"
    # and "rollback"): news published inside a released savepoint waits for the transaction
    # around it, and news of a savepoint rolled back is dropped with it.

    def _committed(self, session: Session) -> None:
        depth = _savepoints(session)  # the savepoint being released, if any, still counts
        if depth:
            pending = session.info.get(_PENDING, [])
            session.info[_PENDING] = [(t, m, min(d, depth - 1)) for t, m, d in pending]
            return
        for topic, message, _depth in session.info.pop(_PENDING, []):
            self.deliver(topic, message)

    def _rolled_back(self, session: Session) -> None:
        depth = _savepoints(session)
        if depth:
            pending = session.info.get(_PENDING, [])
            session.info[_PENDING] = [(t, m, d) for t, m, d in pending if d < depth]
            return
        session.info.pop(_PENDING, None)

    # --- PostgreSQL: one listening connection per process ----------------------------------

    def start(self) -> None:
        """Take subscribers (again, after a close) and, on PostgreSQL, start listening."""
        with self._lock:
            self._closed = False
        self._stop.clear()
        if not self.postgresql or (self._listener is not None and self._listener.is_alive()):
            return
        self._listener = threading.Thread(target=self._listen, name="ringside-events", daemon=True)
        self._listener.start()

    def close(self, wait: bool = True) -> None:
        """Wake every subscriber with CLOSED, refuse new ones, and stop listening (`wait`: until
        the listener has let go of its connection, within a second or two)."""
        with self._lock:
            self._closed = True
        self._everyone(CLOSED)
        self._stop.set()
        if wait and self._listener is not None:
            self._listener.join(timeout=_LISTEN_POLL_S * 4)

    def _conninfo(self) -> str:
        url = make_url(self._engine.url).set(drivername="postgresql")
        return url.render_as_string(hide_password=False)

    def _listen(self) -> None:
        import psycopg  # the PostgreSQL driver: imported only where it is used

        first = True
        while not self._stop.is_set():
            try:
                with psycopg.connect(self._conninfo(), autocommit=True) as connection:
                    row = connection.execute(f"SELECT {_CHANNEL}").fetchone()
                    assert row is not None
                    channel = str(row[0])
                    connection.execute(f'LISTEN "{channel}"')  # md5 hex: nothing to quote
                    self.listening.set()
                    if not first:  # what was sent while nobody listened is lost: read again
                        self._everyone(RESYNC)
                    first = False
                    while not self._stop.is_set():
                        for note in connection.notifies(timeout=_LISTEN_POLL_S):
                            topic, _, message = note.payload.partition(" ")
                            self.deliver(topic, message)
            except Exception as error:  # noqa: BLE001 - a lost connection is retried
                self.listening.clear()
                if self._stop.is_set():
                    break
                log.warning("event listener lost its connection (%s); reconnecting", error)
                self._stop.wait(_RECONNECT_S)
        self.listening.clear()

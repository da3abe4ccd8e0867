"""News of a change reaches subscribers only once the transaction around it commits (SQLite:
in this process, after commit), savepoints included: a released savepoint's news waits for the
transaction around it, a rolled-back savepoint's news is dropped with it."""

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from app import events, migrate
from app.db import Database
from app.events import Hub


def test_news_waits_for_the_outer_commit_and_a_rolled_back_savepoint_takes_its_own(
    tmp_path: Path,
) -> None:
    database = Database(f"sqlite:///{tmp_path}/events.db")
    migrate.upgrade(database.engine)
    hub = Hub(database)

    async def run() -> list[str]:
        subscription = hub.subscribe("mock:1", limit=8)
        with database.write_session() as session:
            events.publish(session, "mock:1", "1 before")
            with session.begin_nested():
                events.publish(session, "mock:1", "2 kept")
            assert await subscription.next(0.05) is None  # released, but not yet committed
            try:
                with session.begin_nested():
                    events.publish(session, "mock:1", "3 refused")
                    raise RuntimeError("a refused step")
            except RuntimeError:
                pass
        heard = []
        while (message := await subscription.next(0.2)) is not None:
            heard.append(message)
        with database.write_session() as session:
            events.publish(session, "mock:1", "4 never")
            session.rollback()
        assert await subscription.next(0.05) is None
        return heard

    # In a thread of its own: the browser tests' driver keeps an event loop in this one.
    with ThreadPoolExecutor(1) as thread:
        assert thread.submit(asyncio.run, run()).result() == ["1 before", "2 kept"]
    database.dispose()

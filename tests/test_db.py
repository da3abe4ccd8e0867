"""The database: migrations from empty, SQLite pragmas, BEGIN IMMEDIATE for writes."""

from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, event, inspect, select, text

from app import migrate
from app.auth.users import LOCAL_USERNAME, ensure_local_user
from app.db import Database
from app.models import Base, User


def database(tmp_path: Path) -> Database:
    return Database(f"sqlite:///{tmp_path}/nested/dir/test.db")


def test_upgrade_from_empty_creates_the_tables(tmp_path: Path) -> None:
    db = database(tmp_path)
    migrate.upgrade(db.engine)
    tables = set(inspect(db.engine).get_table_names())
    assert {"users", "attempts", "alembic_version"} <= tables
    with db.read_session() as session:
        version = session.execute(text("SELECT version_num FROM alembic_version")).scalar()
    head = ScriptDirectory.from_config(migrate.alembic_config(db.engine)).get_current_head()
    assert version == head


def test_downgrade_to_base_and_upgrade_again(tmp_path: Path) -> None:
    db = database(tmp_path)
    migrate.upgrade(db.engine)
    migrate.downgrade(db.engine, "base")
    assert "users" not in inspect(db.engine).get_table_names()
    migrate.upgrade(db.engine)
    assert "users" in inspect(db.engine).get_table_names()


def test_models_and_migrations_agree(tmp_path: Path) -> None:
    db = database(tmp_path)
    migrate.upgrade(db.engine)
    with db.engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert diff == []


def test_every_connection_gets_the_pragmas(tmp_path: Path) -> None:
    db = database(tmp_path)
    with db.engine.connect() as connection:
        values = {
            name: connection.exec_driver_sql(f"PRAGMA {name}").scalar()
            for name in ("journal_mode", "synchronous", "busy_timeout", "foreign_keys")
        }
    assert values == {
        "journal_mode": "wal",
        "synchronous": 1,
        "busy_timeout": 5000,
        "foreign_keys": 1,
    }


def test_writes_begin_immediate_and_reads_do_not(tmp_path: Path) -> None:
    db = database(tmp_path)
    migrate.upgrade(db.engine)
    statements: list[str] = []
    event.listen(db.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    with db.write_session() as session:
        ensure_local_user(session)
    with db.read_session() as session:
        session.scalars(select(User)).all()
    begins = [s for s in statements if s.startswith("BEGIN")]
    assert begins == ["BEGIN IMMEDIATE", "BEGIN"]


def test_write_session_rolls_back_on_error(tmp_path: Path) -> None:
    db = database(tmp_path)
    migrate.upgrade(db.engine)
    try:
        with db.write_session() as session:
            session.add(User(username="someone", display_name="x"))
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    with db.read_session() as session:
        assert session.scalars(select(User.username)).all() == []


def test_local_user_is_created_once(tmp_path: Path) -> None:
    db = database(tmp_path)
    migrate.upgrade(db.engine)
    for _ in range(2):
        with db.write_session() as session:
            ensure_local_user(session)
    with db.read_session() as session:
        assert session.scalars(select(User.username)).all() == [LOCAL_USERNAME]


def test_app_start_migrates_and_creates_the_local_user(tmp_path: Path) -> None:
    from app.config import Settings
    from app.main import create_app
    from tests.conftest import FIXTURE_CONTENT

    url = f"sqlite:///{tmp_path}/app.db"
    create_app(Settings(database_url=url, content_dir=FIXTURE_CONTENT))
    db = Database(url)
    with db.read_session() as session:
        assert session.scalars(select(User.username)).all() == [LOCAL_USERNAME]


def test_reads_run_in_the_event_loop_on_sqlite_and_see_every_commit(tmp_path: Path) -> None:
    """Database.read: no thread hop on SQLite, and no snapshot kept between reads."""
    import threading

    import anyio

    db = database(tmp_path)
    migrate.upgrade(db.engine)

    def count_users(connection: Connection) -> tuple[int, int]:
        users = connection.execute(text("SELECT count(*) FROM users")).scalar_one()
        return users, threading.get_ident()

    seen: list[tuple[int, int]] = []

    async def main() -> None:
        seen.append(await db.read(count_users))
        with db.write_session() as session:  # committed by another connection
            ensure_local_user(session)
        seen.append(await db.read(count_users))
        seen.append((-1, threading.get_ident()))  # the loop's own thread

    # In a thread of its own: earlier tests (the browser's) may leave a loop on this one.
    runner = threading.Thread(target=anyio.run, args=(main,))
    runner.start()
    runner.join()
    # A read that was left open would pin its snapshot: a full checkpoint could not finish.
    with db.engine.connect() as connection:
        busy, _log, _done = connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)").one()
    assert busy == 0
    loop_thread = seen[2][1]
    assert seen[:2] == [(0, loop_thread), (1, loop_thread)]
    db.dispose()

"""PostgreSQL: migrations both ways, models agreeing with them, UTC timestamps, same answers.

Tests marked by the `postgres_url` fixture need PostgreSQL and skip, saying how to enable them,
unless RINGSIDE_TEST_DATABASE_URL is set; the others run on whichever database the suite uses.
"""

import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from fastapi.testclient import TestClient
from sqlalchemy import inspect, select, text
from sqlalchemy.engine import make_url

from app import migrate
from app.auth.users import ensure_local_user
from app.content.loader import load_catalog
from app.db import Database
from app.models import Base, User
from app.srs import queue, review, stats
from app.srs.settings import Settings as ReviewSettings
from tests.conftest import FIXTURE_CONTENT, ClientFactory, DatabaseFactory, FakeClock
from tests.postgres.schemas import (
    PREFIX,
    SKIP_REASON,
    STALE_AFTER_S,
    Schemas,
    schema_of,
    template_url,
)

CATALOG = load_catalog(FIXTURE_CONTENT)
NOON = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


@pytest.fixture
def postgres_url(postgres_schemas: Schemas | None) -> Iterator[str]:
    """A fresh, empty PostgreSQL schema; skips when the suite runs on SQLite only."""
    if postgres_schemas is None:
        pytest.skip(SKIP_REASON)
    url = postgres_schemas.create()
    yield url
    postgres_schemas.drop(url)


@pytest.fixture
def postgres(postgres_url: str) -> Iterator[Database]:
    database = Database(postgres_url)
    yield database
    database.dispose()


def table_names(database: Database) -> set[str]:
    return set(inspect(database.engine).get_table_names())


def test_apps_run_on_the_database_the_suite_was_given(client: TestClient) -> None:
    dialect = client.app.state.database.engine.dialect.name  # type: ignore[attr-defined]
    assert dialect == ("sqlite" if template_url() is None else "postgresql")


@pytest.mark.postgres
def test_upgrade_from_empty_creates_every_table(postgres: Database) -> None:
    migrate.upgrade(postgres.engine)
    assert table_names(postgres) == set(Base.metadata.tables) | {"alembic_version"}
    with postgres.read_session() as session:
        version = session.execute(text("SELECT version_num FROM alembic_version")).scalar()
    config = migrate.alembic_config(postgres.engine)
    assert version == ScriptDirectory.from_config(config).get_current_head()


@pytest.mark.postgres
def test_downgrade_to_base_and_upgrade_again(postgres: Database) -> None:
    migrate.upgrade(postgres.engine)
    migrate.downgrade(postgres.engine, "base")
    assert table_names(postgres) == {"alembic_version"}
    migrate.upgrade(postgres.engine)
    assert table_names(postgres) == set(Base.metadata.tables) | {"alembic_version"}


@pytest.mark.postgres
def test_models_and_migrations_agree(postgres: Database) -> None:
    migrate.upgrade(postgres.engine)
    with postgres.engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert diff == []


@pytest.mark.postgres
def test_timestamps_come_back_in_utc_whatever_the_servers_time_zone(postgres_url: str) -> None:
    url = make_url(postgres_url)
    # +13:45: any timestamp that escaped the UTC setting would show it.
    options = f"{url.query['options']} -ctimezone=Pacific/Chatham"
    database = Database(
        url.update_query_dict({"options": options}).render_as_string(hide_password=False)
    )
    migrate.upgrade(database.engine)
    created = datetime(2026, 3, 2, 23, 30, 15, 123456, tzinfo=UTC)
    with database.write_session() as session:
        session.add(User(username="ada", display_name="Ada", created_at=created))
    with database.read_session() as session:
        stored = session.scalars(select(User.created_at).where(User.username == "ada")).one()
    database.dispose()
    assert stored == created and stored.utcoffset() == timedelta(0)
    assert stored.isoformat() == "2026-03-02T23:30:15.123456+00:00"


@pytest.mark.postgres
def test_writers_do_not_queue_on_a_process_lock(postgres: Database) -> None:
    # SQLite allows one writer at a time; PostgreSQL's writers lock rows, not the database.
    migrate.upgrade(postgres.engine)
    with postgres.write_session() as first:
        first.add(User(username="first", display_name="First"))
        with postgres.write_session() as second:  # would wait forever behind `first` on SQLite
            second.add(User(username="second", display_name="Second"))
    with postgres.read_session() as session:
        assert set(session.scalars(select(User.username))) == {"first", "second"}


def history(database: Database) -> tuple[int, ReviewSettings]:
    """Forty days of grades: cards in review (strong and weak), relearning and learning."""
    migrate.upgrade(database.engine)
    with database.write_session() as session:
        user_id = ensure_local_user(session).id
    grades = [
        ("beta-derive", 4, NOON - timedelta(days=40)),
        ("beta-derive", 4, NOON - timedelta(days=25)),
        ("alpha-busbw", 4, NOON - timedelta(days=10)),
        ("alpha-ring-bytes", 3, NOON - timedelta(days=9)),
        ("alpha-ring-bytes", 3, NOON - timedelta(days=9, minutes=-11)),
        ("alpha-ring-bytes", 1, NOON - timedelta(days=1)),
        ("beta-order", 1, NOON - timedelta(minutes=30)),
        ("beta-order", 3, NOON - timedelta(minutes=15)),
    ]
    for card_id, rating, when in grades:
        with database.write_session() as session:
            review.grade(session, user_id, card_id, rating, when, desired_retention=0.9, fuzz=False)
    return user_id, ReviewSettings(new_per_day=3)


@pytest.mark.postgres
def test_queue_and_statistics_are_the_same_as_on_sqlite(postgres: Database, tmp_path: Path) -> None:
    sqlite = Database(f"sqlite:///{tmp_path}/same.db")
    answers = []
    for database in (sqlite, postgres):
        user_id, settings = history(database)
        with database.read_session() as session:
            answers.append(
                (
                    queue.build(session, user_id, CATALOG, settings, NOON),
                    stats.compute(session, user_id, CATALOG, settings, NOON),
                )
            )
    sqlite.dispose()
    on_sqlite, on_postgres = answers
    assert on_postgres == on_sqlite
    built = on_postgres[0]
    assert {item.kind for item in built.items} and built.due_count >= 2  # not a vacuous match
    assert all(item.due is None or item.due.utcoffset() == timedelta(0) for item in built.items)


def test_learning_cards_due_together_come_in_the_order_first_seen(
    make_client: ClientFactory,
) -> None:
    clock = FakeClock(NOON)
    client = make_client(clock=clock, srs_fuzz=False)

    def grade(card_id: str, key: str) -> None:
        body = {"rating": 1, "idempotency_key": key}
        assert client.post(f"/api/review/{card_id}", json=body).status_code == 200

    grade("beta-order", "a")  # first seen; due again in a minute
    clock.advance(minutes=1)
    grade("alpha-busbw", "b")  # due a minute from now ...
    grade("beta-order", "c")  # ... and so is this one, whose row was just rewritten
    clock.advance(minutes=5)
    cards = client.get("/api/review/queue").json()["cards"]
    assert [c["card_id"] for c in cards[:2]] == ["beta-order", "alpha-busbw"]


def test_schemas_keep_tests_apart(new_database: DatabaseFactory) -> None:
    first, second = Database(new_database()), Database(new_database())
    for database in (first, second):
        migrate.upgrade(database.engine)
    with first.write_session() as session:
        session.add(User(username="only-here", display_name="x"))
    with second.read_session() as session:
        assert session.scalars(select(User.username)).all() == []
    first.dispose()
    second.dispose()


@pytest.mark.postgres
def test_sweep_drops_only_what_killed_runs_left_long_ago(postgres_url: str) -> None:
    schemas = Schemas(template_url() or "")
    left = f"{PREFIX}{int(time.time()) - STALE_AFTER_S - 60}_{uuid.uuid4().hex[:12]}"
    with schemas.engine.begin() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{left}"')
    assert left in schemas.sweep()
    with schemas.engine.connect() as connection:
        names = set(connection.execute(text("SELECT nspname FROM pg_namespace")).scalars())
    schemas.dispose()
    assert left not in names and schema_of(postgres_url) in names  # a running test's stays

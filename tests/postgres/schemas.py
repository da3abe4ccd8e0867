"""A fresh PostgreSQL schema per test, on the database RINGSIDE_TEST_DATABASE_URL names.

A schema is created in a few milliseconds where CREATE DATABASE takes a second, and the URL
handed to the app carries `options=-csearch_path=<schema>`, so the app, Alembic and any second
app built from the same URL all see only that schema, exactly as they would see a database.
"""

import os
import time
import uuid
import weakref
from typing import Any

import psycopg
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool, Pool

ENV = "RINGSIDE_TEST_DATABASE_URL"
SKIP_REASON = (
    f"PostgreSQL tests skipped: {ENV} is not set "
    f"(e.g. {ENV}=postgresql+psycopg://postgres@127.0.0.1:5432/test)"
)
PREFIX = "ringside_test_"
STALE_AFTER_S = 6 * 3600  # no run lasts this long: a schema this old was left by a killed run


def template_url() -> str | None:
    """The PostgreSQL URL the tests run on, or None to run on SQLite only."""
    url = os.environ.get(ENV, "").strip()
    if not url:
        return None
    if make_url(url).get_backend_name() != "postgresql":
        raise ValueError(f"{ENV} must be a postgresql+psycopg:// URL, got {url!r}")
    return url


def schema_of(url: str) -> str:
    """The schema a URL made by Schemas.create points at."""
    name = make_url(url).query.get("application_name")
    if not isinstance(name, str) or not name.startswith(PREFIX):
        raise ValueError(f"not a per-test schema URL: {url}")
    return name


class Schemas:
    """Creates schemas on one PostgreSQL database and drops each one with everything in it."""

    def __init__(self, url: str) -> None:
        self.url = make_url(url)
        # No pool: the admin connection is used twice per test and must never hold locks.
        self.engine: Engine = create_engine(self.url, poolclass=NullPool)
        # Every connection any app opens, so that those of an app a test never shut down are
        # closed with its schema rather than warning when garbage-collected in a later test.
        self._opened: weakref.WeakSet[psycopg.Connection[Any]] = weakref.WeakSet()
        event.listen(Pool, "connect", self._remember)

    def _remember(self, dbapi_connection: Any, _record: Any) -> None:
        if isinstance(dbapi_connection, psycopg.Connection):
            self._opened.add(dbapi_connection)

    def check(self) -> None:
        """Fail at once, with the URL, when the server cannot be reached."""
        with self.engine.connect() as connection:
            connection.execute(text("SELECT 1"))

    def create(self) -> str:
        """A new empty schema; returns the URL whose connections live in it."""
        name = f"{PREFIX}{int(time.time())}_{uuid.uuid4().hex[:12]}"
        with self.engine.begin() as connection:
            connection.exec_driver_sql(f'CREATE SCHEMA "{name}"')
        url = self.url.update_query_dict(
            # application_name marks this schema's connections, so drop() can find them.
            {"options": f"-csearch_path={name}", "application_name": name}
        )
        return url.render_as_string(hide_password=False)

    def drop(self, url: str) -> None:
        """Drop the schema `url` points at, first ending connections a test left open."""
        name = schema_of(url)
        for connection in list(self._opened):
            if (
                not connection.closed
                and connection.info.get_parameters().get("application_name") == name
            ):
                connection.close()
        with self.engine.begin() as connection:
            # Connections held by other processes (a server the test started) end here.
            connection.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE application_name = :name AND pid <> pg_backend_pid()"
                ),
                {"name": name},
            )
            connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')

    def sweep(self) -> list[str]:
        """Drop the schemas that runs killed before their teardown left behind; returns them."""
        with self.engine.begin() as connection:
            names = connection.execute(
                text("SELECT nspname FROM pg_namespace WHERE starts_with(nspname, :prefix)"),
                {"prefix": PREFIX},
            ).scalars()
            stale = [
                name
                for name in names
                if (stamp := name[len(PREFIX) :].partition("_")[0]).isdigit()
                and time.time() - int(stamp) > STALE_AFTER_S
            ]
            for name in stale:
                connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
        return stale

    def dispose(self) -> None:
        event.remove(Pool, "connect", self._remember)
        self.engine.dispose()

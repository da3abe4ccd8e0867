"""Alembic environment: the URL comes from the caller (app.migrate) or from Settings."""

from alembic import context
from sqlalchemy import Connection

from app.config import Settings
from app.db import create_db_engine
from app.models import Base

config = context.config
target_metadata = Base.metadata


def run_with(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        run_with(connection)
        return
    url = config.get_main_option("sqlalchemy.url") or Settings().database_url
    engine = create_db_engine(url)
    with engine.connect() as conn:
        run_with(conn)
    engine.dispose()


if context.is_offline_mode():
    raise SystemExit("Offline (--sql) migrations are not supported; run `ringside db upgrade`.")
run_migrations_online()

"""Apply the Alembic migrations in migrations/ to a database."""

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine

from app import PROJECT_ROOT
from app.db import for_writes

MIGRATIONS_DIR = PROJECT_ROOT / "migrations"


def alembic_config(engine: Engine) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    url = engine.url.render_as_string(hide_password=False)
    # Alembic's config interpolates %: a URL-encoded password or option (%3D) must be escaped.
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to `revision` (the newest by default)."""
    with for_writes(engine).begin() as connection:
        config = alembic_config(engine)
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def downgrade(engine: Engine, revision: str = "base") -> None:
    with for_writes(engine).begin() as connection:
        config = alembic_config(engine)
        config.attributes["connection"] = connection
        command.downgrade(config, revision)

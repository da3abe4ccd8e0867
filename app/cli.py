"""The `ringside` command: serve, content check, db upgrade."""

from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from sqlalchemy.exc import SQLAlchemyError

from app.config import Settings

cli = typer.Typer(
    help="Ringside: prepare for distributed-training interviews.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
content_cli = typer.Typer(help="Check the topic files.", no_args_is_help=True)
db_cli = typer.Typer(help="Manage the database.", no_args_is_help=True)
cli.add_typer(content_cli, name="content")
cli.add_typer(db_cli, name="db")


def fail(message: str) -> None:
    typer.echo(f"ringside: {message}", err=True)
    raise typer.Exit(code=1)


def load_settings(**overrides: Any) -> Settings:
    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as error:
        first = error.errors()[0]
        name = "RINGSIDE_" + "_".join(str(p) for p in first["loc"]).upper()
        fail(f"bad setting {name}: {first['msg']}")
        raise  # unreachable: fail() exits


@cli.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Address to listen on.")] = None,
    port: Annotated[int | None, typer.Option(help="Port to listen on.")] = None,
) -> None:
    """Start the web app (content is checked and the database migrated first)."""
    import uvicorn

    from app.content.loader import ContentError
    from app.main import create_app

    settings = load_settings(host=host, port=port)
    try:
        app = create_app(settings)
    except ContentError as error:
        fail(str(error))
    except SQLAlchemyError as error:
        fail(f"cannot open the database {settings.database_url}: {error.__class__.__name__}")
    typer.echo(f"Ringside on http://{settings.host}:{settings.port}", err=True)
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="info")


@content_cli.command("check")
def content_check(
    content_dir: Annotated[
        Path | None, typer.Option(help="Content folder (default RINGSIDE_CONTENT_DIR).")
    ] = None,
) -> None:
    """Validate every topic file and the glossary; print the first problem as FILE:LINE: PROBLEM."""
    from app.content.glossary import load_glossary
    from app.content.loader import ContentError, load_catalog
    from app.web.lab_specs import LABS

    settings = load_settings(content_dir=content_dir)
    try:
        catalog = load_catalog(settings.content_dir)
        lab_titles = {name: spec.title for name, spec in LABS.items()}
        glossary = load_glossary(settings.content_dir, catalog, lab_titles)
    except ContentError as error:
        fail(str(error))
    cards = sum(len(t.cards) for t in catalog.topics)
    terms = f", {len(glossary.terms)} glossary terms" if glossary.terms else ""
    typer.echo(f"ok: {len(catalog.topics)} topics, {cards} cards{terms}")


@db_cli.command("upgrade")
def db_upgrade() -> None:
    """Apply every pending migration to RINGSIDE_DATABASE_URL."""
    from app import migrate
    from app.db import Database

    settings = load_settings()
    database = Database(settings.database_url)
    try:
        migrate.upgrade(database.engine)
    except SQLAlchemyError as error:
        fail(f"cannot migrate {settings.database_url}: {error.__class__.__name__}")
    finally:
        database.dispose()
    typer.echo("database is up to date")


def main() -> None:
    cli(prog_name="ringside")


if __name__ == "__main__":
    main()

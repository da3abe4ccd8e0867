"""The `ringside` command: serve, content check, db upgrade|backup, export, import, bench."""

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from pydantic import ValidationError
from sqlalchemy.exc import SQLAlchemyError

from app.config import Settings
from app.db import masked

if TYPE_CHECKING:
    from app.db import Database

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


def content_cache(settings: Settings) -> Path:
    """Beside a SQLite database, as its backups are; else data/content-cache here."""
    from app.datasafety.backup import sqlite_path

    database = sqlite_path(settings.database_url)
    return (database.parent if database else Path("data")) / "content-cache"


@cli.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Address to listen on.")] = None,
    port: Annotated[int | None, typer.Option(help="Port to listen on.")] = None,
) -> None:
    """Start the web app (content is checked and the database migrated first)."""
    import uvicorn

    from app.content.loader import ContentError
    from app.datasafety.startup import UnusableDatabaseError
    from app.main import ConfigError, create_app, freeze_startup_heap
    from app.web import streams
    from app.web.observability import uvicorn_options

    settings = load_settings(host=host, port=port)
    if settings.content_cache_dir is None:  # a restart reads the rendered topics back
        settings = settings.model_copy(update={"content_cache_dir": content_cache(settings)})
    if settings.auth_mode == "local" and not is_loopback(settings.host):
        fail(
            f"local mode has one profile and no sign-in, so it only listens on this machine "
            f"(127.0.0.1), not {settings.host}. To serve others, enable accounts: "
            "RINGSIDE_AUTH_MODE=accounts RINGSIDE_SECRET_KEY=<50+ random characters>"
        )
    try:
        app = create_app(settings, load_processes=os.cpu_count() or 1)
    except (ContentError, ConfigError, UnusableDatabaseError) as error:
        fail(str(error))
    except SQLAlchemyError as error:
        fail(
            f"cannot open the database {masked(settings.database_url)}: {error.__class__.__name__}"
        )
    typer.echo(f"Ringside on http://{settings.host}:{settings.port}", err=True)
    freeze_startup_heap()
    # One worker per process: scale out with more processes behind a proxy (docker-compose.yml).
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        # Forwarded headers (the client's address, https) only from a configured proxy.
        proxy_headers=settings.trust_forwarded,
        forwarded_allow_ips=settings.forwarded_allow_ips,
        **uvicorn_options(settings),
    )
    # uvicorn's server, but one that ends the live pages' streams when it stops.
    server = streams.Server(config, app.state.events)
    server.run()
    if not server.started:
        raise typer.Exit(3)  # as uvicorn.run exits when the server could not start


def is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@content_cli.command("check")
def content_check(
    content_dir: Annotated[
        Path | None, typer.Option(help="Content folder (default RINGSIDE_CONTENT_DIR).")
    ] = None,
) -> None:
    """Validate every topic file and the glossary, and that no card states one of its own common
    mistakes; print the first problem as FILE:LINE: PROBLEM."""
    from app.content.errata import load_errata
    from app.content.glossary import load_glossary
    from app.content.loader import ContentError, load_catalog
    from app.drills.check import check_content
    from app.grading.own_answers import check_own_answers
    from app.labs import catalog as lab_catalog

    settings = load_settings(content_dir=content_dir)
    try:
        catalog = load_catalog(
            settings.content_dir, processes=os.cpu_count() or 1, check=check_content
        )
        check_own_answers(catalog)
        lab_titles = lab_catalog.titles()
        glossary = load_glossary(settings.content_dir, catalog, lab_titles)
        errata = load_errata(settings.content_dir)
    except ContentError as error:
        fail(str(error))
    cards = sum(len(t.cards) for t in catalog.topics)
    terms = f", {len(glossary.terms)} glossary terms" if glossary.terms else ""
    corrections = f", {errata.entries} errata" if errata else ""
    typer.echo(f"ok: {len(catalog.topics)} topics, {cards} cards{terms}{corrections}")


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
        fail(f"cannot migrate {masked(settings.database_url)}: {error.__class__.__name__}")
    finally:
        database.dispose()
    typer.echo("database is up to date")


@db_cli.command("backup")
def db_backup(
    to: Annotated[
        Path | None, typer.Option(help="Folder for the copy (default RINGSIDE_BACKUP_DIR).")
    ] = None,
) -> None:
    """Copy the SQLite database while it is in use, then check the copy with integrity_check."""
    from sqlalchemy.engine import make_url

    from app.clock import utc_now
    from app.datasafety import backup, startup

    settings = load_settings()
    database = backup.sqlite_path(settings.database_url)
    if make_url(settings.database_url).get_backend_name() == "postgresql":
        typer.echo(
            "ringside: the database is PostgreSQL: back it up with pg_dump, e.g. "
            "pg_dump --format=custom --file=ringside.dump DBNAME (restore with pg_restore)",
            err=True,
        )
        raise typer.Exit(code=2)
    if database is None:
        fail(f"{masked(settings.database_url)} is not a database file; there is nothing to back up")
        return
    folder = to or startup.backup_dir(settings, database)
    try:
        taken = backup.take(database, folder, utc_now())
    except (backup.BackupError, OSError) as error:
        fail(str(error))
        return
    # The backup folder is rotated as the automatic backups are; a folder given with --to is yours.
    removed = (
        backup.rotate(folder, settings.backup_keep, settings.backup_keep_weekly)
        if to is None
        else []
    )
    pruned = f"; removed {len(removed)} older" if removed else ""
    typer.echo(f"backup written to {taken.path} ({taken.size:,} bytes), integrity_check ok{pruned}")


def open_user_data(settings: Settings) -> "Database":
    """The checked, migrated database for export and import; fails with one line if it cannot."""
    from app.clock import utc_now
    from app.datasafety.startup import UnusableDatabaseError, open_database

    try:
        return open_database(settings, utc_now())
    except UnusableDatabaseError as error:
        fail(str(error))
        raise  # unreachable: fail() exits
    except SQLAlchemyError as error:
        fail(
            f"cannot open the database {masked(settings.database_url)}: {error.__class__.__name__}"
        )
        raise  # unreachable: fail() exits


@cli.command("export")
def export_data(
    user: Annotated[str, typer.Option(help="Whose data.")] = "local",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="File to write (default: stdout).")
    ] = None,
) -> None:
    """Write a user's learning data (no passwords or tokens) as one JSON document."""
    from app.datasafety import document
    from app.datasafety.export import UnknownUser, export_user, find_user

    settings = load_settings()
    database = open_user_data(settings)
    try:
        with database.write_session() as session:  # the local profile is made on first use
            user_id = find_user(session, user)
        with database.read_session() as session:
            text = document.dumps(export_user(session, user_id))
    except (UnknownUser, document.DocumentError) as error:
        fail(str(error))
    finally:
        database.dispose()
    if output is None:
        typer.echo(text, nl=False)
        return
    partial = output.with_name(f".{output.name}.partial")
    try:
        # 0600 from the first byte: an export is a person's whole learning history.
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(partial, 0o600)  # a partial file left by an older run keeps its mode otherwise
        partial.replace(output)  # never a half-written export under the real name
    except OSError as error:
        partial.unlink(missing_ok=True)
        fail(f"cannot write {output}: {error.strerror or error}")
    typer.echo(f"exported {user}'s data to {output}", err=True)


@cli.command("import")
def import_data(
    file: Annotated[Path, typer.Argument(help="A file written by `ringside export`.")],
    user: Annotated[str, typer.Option(help="Whose data to merge it into.")] = "local",
) -> None:
    """Merge an export into a user's data in one transaction; a bad file changes nothing."""
    from app.datasafety import document
    from app.datasafety.export import UnknownUser, find_user
    from app.datasafety.importing import import_document

    settings = load_settings()
    try:
        parsed = document.parse(file.read_bytes())
    except OSError as error:
        fail(f"cannot read {file}: {error.strerror or error}")
        return
    except document.DocumentError as error:
        fail(f"{file}: {error}; nothing was imported")
        return
    database = open_user_data(settings)
    try:
        with database.write_session() as session:
            summary = import_document(session, find_user(session, user), parsed)
    except UnknownUser as error:
        fail(f"{error}; nothing was imported")
    finally:
        database.dispose()
    typer.echo(summary.describe())


user_cli = typer.Typer(help="Manage accounts (accounts mode).", no_args_is_help=True)
cli.add_typer(user_cli, name="user")


@user_cli.command("add")
def user_add(
    username: str,
    admin: Annotated[bool, typer.Option(help="Make this user an administrator.")] = False,
) -> None:
    """Create an account (asks for its password), whatever the registration setting."""
    from app.auth import accounts
    from app.auth.passwords import PasswordRejected
    from app.clock import utc_now
    from app.db import Database
    from app.main import ConfigError, policy_of

    settings = load_settings()
    password = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    try:
        rules = policy_of(settings)
    except ConfigError as error:
        fail(str(error))
    database = Database(settings.database_url)
    try:
        from app import migrate

        migrate.upgrade(database.engine)
        open_rules = accounts.Policy("open", rules.idle, rules.absolute, rules.key)
        with database.write_session() as session:
            user = accounts.register(session, username, password, utc_now(), policy=open_rules)
            user.is_admin = admin
    except (accounts.AccountError, PasswordRejected) as error:
        fail(str(error))
    except SQLAlchemyError as error:
        fail(f"cannot open the database {masked(settings.database_url)}: {type(error).__name__}")
    finally:
        database.dispose()
    typer.echo(f"created {user.username}")


@user_cli.command("invite")
def user_invite() -> None:
    """Print a one-use invitation code (for RINGSIDE_REGISTRATION=invite)."""
    from app import migrate
    from app.auth import accounts
    from app.clock import utc_now
    from app.db import Database
    from app.main import ConfigError, policy_of

    settings = load_settings()
    try:
        rules = policy_of(settings)
    except ConfigError as error:
        fail(str(error))
    database = Database(settings.database_url)
    try:
        migrate.upgrade(database.engine)
        with database.write_session() as session:
            code = accounts.create_invite(session, utc_now(), rules)
    except SQLAlchemyError as error:
        fail(f"cannot open the database {masked(settings.database_url)}: {type(error).__name__}")
    finally:
        database.dispose()
    typer.echo(code)


srs_cli = typer.Typer(help="Spaced repetition: FSRS's model of your memory.", no_args_is_help=True)
cli.add_typer(srs_cli, name="srs")


@srs_cli.command("optimize")
def srs_optimize(user: Annotated[str, typer.Option(help="Whose reviews.")] = "local") -> None:
    """Fit FSRS's parameters to a user's reviews; keep them if they predict recall better."""
    from app.clock import utc_now
    from app.datasafety.export import UnknownUser, find_user
    from app.srs import optimizer

    settings = load_settings()
    database = open_user_data(settings)
    try:
        with database.write_session() as session:
            user_id = find_user(session, user)
        typer.echo(f"fitting {user}'s parameters…", err=True)
        with database.write_session() as session:
            fit = optimizer.fit(session, user_id, utc_now())
    except (UnknownUser, optimizer.NotEnoughHistory) as error:
        fail(str(error))
        raise  # unreachable: fail() exits
    finally:
        database.dispose()
    verdict = "kept the fitted parameters" if fit.improved else "kept the current parameters"
    typer.echo(
        f"{fit.reviews_used} reviews; log loss {fit.log_loss_before:.4f} -> "
        f"{fit.log_loss_after:.4f}, RMSE {fit.rmse_before:.4f} -> {fit.rmse_after:.4f}: {verdict}"
    )


@cli.command()
def bench(
    duration: Annotated[float, typer.Option(min=1, help="Seconds per load run.")] = 10,
    connections: Annotated[int, typer.Option(min=2, help="Concurrent connections.")] = 64,
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Also write the figures to this file.")
    ] = None,
) -> None:
    """Load-test over loopback: pages, review, queue and labs against hello; memory; start-up."""
    import subprocess
    import sys

    from app import PROJECT_ROOT

    suite = PROJECT_ROOT / "bench" / "suite.py"
    if not suite.is_file():
        fail("the benchmark needs a source checkout (bench/ beside app/); this install has none")
    command = [sys.executable, str(suite), f"--duration={duration}", f"--connections={connections}"]
    if json_file is not None:
        command.append(f"--json={json_file}")
    raise typer.Exit(subprocess.call(command))


def main() -> None:
    cli(prog_name="ringside")


if __name__ == "__main__":
    main()

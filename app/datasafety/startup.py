"""Before the app opens its database: refuse a damaged file, take the daily backup.

A damaged SQLite file can go on answering some queries and fail others, losing writes in
between; finding out at start-up, with the way back spelled out, is cheaper than finding out
in the middle of a review.
"""

import logging
import os
import sqlite3
from collections.abc import Callable
from contextlib import closing
from datetime import datetime
from pathlib import Path

import anyio

from app import migrate
from app.config import Settings
from app.datasafety import backup
from app.db import Database

logger = logging.getLogger("ringside")
BACKUP_CHECK_S = 3600.0  # how often a running server asks whether the daily backup is due


class UnusableDatabaseError(Exception):
    """The database cannot be opened as it is; the message says why and what to do."""


class CorruptDatabaseError(UnusableDatabaseError):
    """The database file failed quick_check; the message says where the newest backup is."""


class ReadOnlyDatabaseError(UnusableDatabaseError):
    """The database file, or its folder, cannot be written: not damage, and no backup helps."""


def read_only(database: Path, why: str) -> ReadOnlyDatabaseError:
    return ReadOnlyDatabaseError(
        f"cannot write to the database {database} ({why}); the file is not damaged: give "
        f"the user Ringside runs as write access to it and to its folder {database.parent} "
        f"(SQLite keeps {database.name}-wal and {database.name}-shm beside it), then start again"
    )


def check_writable(database: Path) -> None:
    """Raise ReadOnlyDatabaseError when the file or its folder is read-only to this process."""
    if not os.access(database, os.W_OK):
        raise read_only(database, "read-only file")
    if not os.access(database.parent, os.W_OK | os.X_OK):
        raise read_only(database, "read-only folder")


def quick_check(database: Path) -> str | None:
    """The first problem PRAGMA quick_check finds, or None when the file is sound.

    Raises ReadOnlyDatabaseError when SQLite cannot open it for writing: that is no damage.
    """
    try:
        with closing(sqlite3.connect(database)) as connection:
            rows = [str(row[0]) for row in connection.execute("PRAGMA quick_check")]
    except sqlite3.DatabaseError as error:  # "file is not a database", "malformed", …
        if "readonly" in str(error) or "read-only" in str(error):
            raise read_only(database, str(error)) from None
        return str(error)
    if rows == ["ok"]:
        return None
    return " ".join(rows[0].split())  # one line, whatever SQLite put in it


def backup_dir(settings: Settings, database: Path) -> Path:
    return settings.backup_dir or backup.default_dir(database)


def refusal(database: Path, problem: str, directory: Path) -> str:
    """The one line a damaged database is refused with: what is wrong and how to restore."""
    found = backup.list_backups(directory)
    if not found:
        return (
            f"the database {database} is damaged ({problem}) and there is no backup in "
            f"{directory}; to salvage what is left: "
            f"sqlite3 {database} .recover | sqlite3 recovered.db"
        )
    newest = found[0]
    return (
        f"the database {database} is damaged ({problem}); the newest backup is {newest.path} "
        f"({newest.taken_at:%Y-%m-%d %H:%M} UTC): to restore it, stop Ringside, move "
        f"{database} and any {database.name}-wal and {database.name}-shm beside it out of the "
        f"way, and copy the backup to {database}"
    )


def prepare(settings: Settings, now: datetime) -> None:
    """Check the SQLite file and take the daily backup; PostgreSQL has its own tools.

    Raises CorruptDatabaseError, before anything touches the file, when quick_check fails,
    and ReadOnlyDatabaseError when the file or its folder cannot be written.
    """
    database = backup.sqlite_path(settings.database_url)
    if database is None or not database.is_file():
        return  # PostgreSQL, or a first start: nothing to check or keep yet
    directory = backup_dir(settings, database)
    check_writable(database)
    problem = quick_check(database)
    if problem is not None:
        raise CorruptDatabaseError(refusal(database, problem, directory))
    take_due_backup(settings, now)


def take_due_backup(settings: Settings, now: datetime) -> backup.Backup | None:
    """The daily backup of a SQLite database, if a day has passed since the newest; never
    raises (a failure is logged)."""
    database = backup.sqlite_path(settings.database_url)
    if database is None or not database.is_file():
        return None
    directory = backup_dir(settings, database)
    keep, weekly = settings.backup_keep, settings.backup_keep_weekly
    return backup.take_if_due(database, directory, keep, now, weekly)


async def keep_backing_up(
    settings: Settings,
    clock: Callable[[], datetime],
    every_s: float = BACKUP_CHECK_S,
    *,
    tidy: Callable[[datetime], object] | None = None,
) -> None:
    """While the server runs: every `every_s`, the daily backup if one is due, then `tidy`
    (the hourly housekeeping: ended sessions, expired tokens, old sign-in attempts).

    A server that runs for weeks would otherwise have only the backup of its start-up, and
    tables that only grow. Both run in a worker thread: the copy reads the whole file.
    Nothing they meet stops the server: a failure is logged and tried again at the next check.
    """
    backups = backup.sqlite_path(settings.database_url) is not None and settings.backup_keep > 0
    while True:
        await anyio.sleep(every_s)
        if backups:
            try:
                await anyio.to_thread.run_sync(take_due_backup, settings, clock())
            except Exception:
                logger.exception("automatic backup failed; trying again in %.0f s", every_s)
        if tidy is not None:
            try:
                await anyio.to_thread.run_sync(tidy, clock())
            except Exception:
                logger.exception("housekeeping failed; trying again in %.0f s", every_s)


def open_database(settings: Settings, now: datetime) -> Database:
    """The database for a command that reads or writes user data: checked, backed up, migrated."""
    prepare(settings, now)
    database = Database(settings.database_url)
    try:
        migrate.upgrade(database.engine)
    except BaseException:
        database.dispose()
        raise
    return database

"""Backups of the SQLite database: online, integrity-checked, rotated.

SQLite's online backup API copies a consistent snapshot while the app keeps serving (in WAL
mode readers never block writers); copying the file with `cp` could catch a half-written page.
Each copy is written under a temporary name, checked with integrity_check, switched to a
rollback journal so it is one self-contained file, and only then given its final name: the
newest name in the folder is always a good backup.
"""

import logging
import os
import re
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy.engine import make_url

logger = logging.getLogger("ringside")

NAME = re.compile(r"^ringside-(\d{8}-\d{6})\.db$")
STAMP = "%Y%m%d-%H%M%S"
DAY = timedelta(days=1)


class BackupError(Exception):
    """A backup could not be taken, or the copy failed its integrity check."""


@dataclass(frozen=True)
class Backup:
    path: Path
    taken_at: datetime  # UTC, from the file name
    size: int


def sqlite_path(database_url: str) -> Path | None:
    """The database file of a SQLite URL; None for PostgreSQL or an in-memory database."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    return Path(url.database)


def default_dir(database: Path) -> Path:
    """Backups live next to the database unless RINGSIDE_BACKUP_DIR says otherwise."""
    return database.parent / "backups"


def backup_name(moment: datetime) -> str:
    return f"ringside-{moment.astimezone(UTC).strftime(STAMP)}.db"


def list_backups(directory: Path) -> list[Backup]:
    """The backups in `directory`, newest first; other files are ignored."""
    if not directory.is_dir():
        return []
    found = []
    for path in directory.iterdir():
        match = NAME.match(path.name)
        if match and path.is_file():
            taken = datetime.strptime(match.group(1), STAMP).replace(tzinfo=UTC)
            found.append(Backup(path, taken, path.stat().st_size))
    return sorted(found, key=lambda b: b.taken_at, reverse=True)


def integrity_problems(path: Path) -> list[str]:
    """What PRAGMA integrity_check finds wrong with the file at `path`; empty when it is sound."""
    try:
        uri = path.resolve().as_uri() + "?mode=ro"
        with closing(sqlite3.connect(uri, uri=True)) as connection:
            rows = [str(row[0]) for row in connection.execute("PRAGMA integrity_check")]
    except sqlite3.DatabaseError as error:
        return [str(error)]
    return [] if rows == ["ok"] else rows


def take(database: Path, directory: Path, now: datetime) -> Backup:
    """Copy `database` into `directory` with the online backup API and check the copy."""
    if not database.is_file():
        raise BackupError(f"there is no database at {database}")
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    final = directory / backup_name(now)
    partial = directory / f".{final.name}.{os.getpid()}.partial"
    try:
        # 0600 before SQLite writes a byte: the copy holds what the database holds.
        os.close(os.open(partial, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600))
        with (
            closing(sqlite3.connect(database)) as source,
            closing(sqlite3.connect(partial)) as target,
        ):
            source.backup(target)
            # One self-contained file: no -wal beside it to lose when it is copied back.
            target.execute("PRAGMA journal_mode=DELETE")
        problems = integrity_problems(partial)
        if problems:
            raise BackupError(f"the copy of {database} failed integrity_check: {problems[0]}")
        os.replace(partial, final)
    except sqlite3.Error as error:
        raise BackupError(f"cannot back up {database}: {error}") from None
    finally:
        partial.unlink(missing_ok=True)
    return Backup(final, now.astimezone(UTC).replace(microsecond=0), final.stat().st_size)


def rotate(directory: Path, keep: int, keep_weekly: int = 0) -> list[Path]:
    """Delete all but the newest `keep` backups and the newest of each of the last
    `keep_weekly` ISO weeks that have one (0 for `keep` keeps them all); returns what went.

    Two tiers, as Anki and restic keep them: the days just past in detail, and a few weeks
    further back for a mistake found late.
    """
    if keep <= 0:
        return []
    found = list_backups(directory)  # newest first
    kept = {b.path for b in found[:keep]}
    weeks: set[tuple[int, int]] = set()
    for candidate in found:
        week = candidate.taken_at.isocalendar()[:2]
        if week not in weeks and len(weeks) < keep_weekly:
            weeks.add(week)
            kept.add(candidate.path)  # the newest backup of its week
    old = [b.path for b in found if b.path not in kept]
    for path in old:
        path.unlink(missing_ok=True)  # another process may have rotated it already
    return old


def take_if_due(
    database: Path, directory: Path, keep: int, now: datetime, keep_weekly: int = 0
) -> Backup | None:
    """The daily automatic backup: taken when the newest is a day old, then rotated.

    Never raises: a backup that cannot be taken is logged and the app starts anyway.
    """
    if keep <= 0 or not database.is_file():
        return None
    newest = next(iter(list_backups(directory)), None)
    if newest is not None and now - newest.taken_at < DAY:
        return None
    try:
        taken = take(database, directory, now)
    except (BackupError, OSError) as error:
        logger.warning("automatic backup skipped: %s", error)
        return None
    rotate(directory, keep, keep_weekly)
    return taken

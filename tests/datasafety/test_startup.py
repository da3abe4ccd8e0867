"""A damaged database refuses to start, in one line that names the newest backup."""

import random
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from app.config import Settings
from app.datasafety import backup
from app.datasafety.startup import CorruptDatabaseError, quick_check
from app.main import create_app
from tests.conftest import FIXTURE_CONTENT, FakeClock, loopback_client
from tests.datasafety.helpers import START, populate
from tests.test_cli import ringside


def healthy_database(tmp_path: Path) -> Path:
    database = tmp_path / "ringside.db"
    clock = FakeClock(START)
    settings = Settings(database_url=f"sqlite:///{database}", content_dir=FIXTURE_CONTENT)
    with loopback_client(create_app(settings, clock=clock)) as client:
        populate(client, clock)
    with closing(sqlite3.connect(database)) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in the main file
    return database


def damage(database: Path, start: int) -> None:
    """Overwrite whole pages from byte `start` with noise, as a failing disk would."""
    page = 4096
    size = database.stat().st_size
    noise = random.Random(7).randbytes(min(3 * page, size - start))
    with database.open("r+b") as file:
        file.seek(start)
        file.write(noise)


def start(database: Path, tmp_path: Path) -> None:
    settings = Settings(
        database_url=f"sqlite:///{database}",
        content_dir=FIXTURE_CONTENT,
        backup_dir=tmp_path / "backups",
    )
    create_app(settings, clock=FakeClock(START))


def test_a_sound_database_passes(tmp_path: Path) -> None:
    assert quick_check(healthy_database(tmp_path)) is None


def test_damage_in_the_middle_is_refused_naming_the_newest_backup(tmp_path: Path) -> None:
    database = healthy_database(tmp_path)
    older = backup.take(database, tmp_path / "backups", START)
    newest = backup.take(database, tmp_path / "backups", START.replace(hour=18))
    size = database.stat().st_size
    damage(database, (size // 4096 // 2) * 4096)
    with pytest.raises(CorruptDatabaseError) as refused:
        start(database, tmp_path)
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(f"the database {database} is damaged (")
    assert f"the newest backup is {newest.path} (2026-04-01 18:00 UTC)" in message
    assert str(older.path) not in message
    assert f"copy the backup to {database}" in message and "ringside.db-wal" in message
    assert database.read_bytes()[:16] == b"SQLite format 3\x00"  # left as it was found


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    database = healthy_database(tmp_path)
    damage(database, 0)
    with pytest.raises(CorruptDatabaseError) as refused:
        start(database, tmp_path)
    assert "is damaged (file is not a database) and there is no backup in" in str(refused.value)
    assert ".recover | sqlite3 recovered.db" in str(refused.value)


@pytest.mark.slow
def test_serve_refuses_a_damaged_database_in_one_line(tmp_path: Path) -> None:
    database = healthy_database(tmp_path)
    taken = backup.take(database, tmp_path / "backups", START)
    damage(database, 0)
    env = {
        "RINGSIDE_DATABASE_URL": f"sqlite:///{database}",
        "RINGSIDE_CONTENT_DIR": str(FIXTURE_CONTENT),
    }
    served = ringside("serve", "--port", "8798", env=env)
    assert served.returncode == 1
    lines = served.stderr.strip().splitlines()
    assert len(lines) == 1, served.stderr
    assert lines[0].startswith(f"ringside: the database {database} is damaged")
    assert str(taken.path) in lines[0]
    assert "Traceback" not in served.stderr


def unprivileged(command: list[str]) -> list[str]:
    """`command` without the capabilities that let root write any file (as the audit ran it)."""
    import os
    import shutil

    if os.geteuid() != 0:
        return command
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: file modes cannot be made to bind")
    caps = "-dac_override,-dac_read_search,-fowner"
    return ["setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}", "--", *command]


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_read_only_database_is_called_read_only_not_damaged(tmp_path: Path, what: str) -> None:
    import os
    import subprocess
    import sys

    folder = tmp_path / "data"
    folder.mkdir()
    database = healthy_database(folder)
    backup.take(database, folder / "backups", START)
    env = {**os.environ, "RINGSIDE_DATABASE_URL": f"sqlite:///{database}",
           "RINGSIDE_CONTENT_DIR": str(FIXTURE_CONTENT)}  # fmt: skip
    database.chmod(0o444 if what == "file" else 0o644)
    folder.chmod(0o555 if what == "folder" else 0o755)
    try:
        result = subprocess.run(
            unprivileged([sys.executable, "-m", "app.cli", "serve", "--port", "1"]),
            capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
    finally:
        folder.chmod(0o755)
        database.chmod(0o644)
    assert result.returncode == 1, result.stderr
    assert f"cannot write to the database {database} (read-only {what})" in result.stderr
    assert result.stderr.count("damaged") == result.stderr.count("not damaged") == 1
    assert "newest backup" not in result.stderr and "Traceback" not in result.stderr
    assert quick_check(database) is None

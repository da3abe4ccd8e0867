"""`ringside export`, `ringside import` and `ringside db backup`, with their own output.

They run in-process (Typer's runner): the start-up path a subprocess would add is covered by
tests/test_cli.py and the damaged-database test.
"""

import json
from pathlib import Path

from click.testing import Result
from typer.testing import CliRunner

from app.cli import cli
from app.config import Settings
from app.datasafety import backup
from app.main import create_app
from tests.conftest import FIXTURE_CONTENT, FakeClock, loopback_client
from tests.datasafety.helpers import START, export_text, populate


class Ran:
    """What a command printed and returned, as a user would see it."""

    def __init__(self, result: Result) -> None:
        self.returncode = result.exit_code
        self.stdout = result.stdout
        self.stderr = result.stderr


def ringside(*args: str, env: dict[str, str]) -> Ran:
    return Ran(CliRunner().invoke(cli, list(args), env=env))


def env_for(database: Path) -> dict[str, str]:
    return {
        "RINGSIDE_DATABASE_URL": f"sqlite:///{database}",
        "RINGSIDE_CONTENT_DIR": str(FIXTURE_CONTENT),
    }


def used(database: Path) -> str:
    clock = FakeClock(START)
    settings = Settings(database_url=f"sqlite:///{database}", content_dir=FIXTURE_CONTENT)
    with loopback_client(create_app(settings, clock=clock)) as client:
        populate(client, clock)
        return export_text(client)


def test_export_then_import_into_a_new_database_round_trips(tmp_path: Path) -> None:
    original = tmp_path / "one.db"
    downloaded = used(original)
    file = tmp_path / "mine.json"
    exported = ringside("export", "-o", str(file), env=env_for(original))
    assert exported.returncode == 0, exported.stderr
    assert file.read_text() == downloaded  # the same document as the web download
    assert file.stat().st_mode & 0o777 == 0o600  # the owner's alone
    assert "exported local's data to" in exported.stderr

    other = env_for(tmp_path / "two.db")
    imported = ringside("import", str(file), env=other)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.startswith("Imported review settings, 2 card states, 5 reviews")
    again = ringside("export", env=other)
    assert again.returncode == 0, again.stderr
    assert again.stdout == downloaded


def test_a_bad_file_is_one_line_and_imports_nothing(tmp_path: Path) -> None:
    database = tmp_path / "one.db"
    env = env_for(database)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"app": "ringside", "format": 1, "user": {}}))
    result = ringside("import", str(bad), env=env)
    assert result.returncode == 1
    assert result.stderr == (
        f"ringside: {bad}: user.username: Field required (and 6 more); nothing was imported\n"
    )
    assert "Traceback" not in result.stderr
    missing = ringside("import", str(tmp_path / "nope.json"), "--user", "bob", env=env)
    assert missing.returncode == 1 and "cannot read" in missing.stderr
    good = tmp_path / "good.json"
    good.write_text(used(tmp_path / "other.db"))
    nobody = ringside("import", str(good), "--user", "bob", env=env)
    assert nobody.returncode == 1
    assert nobody.stderr == "ringside: no user named 'bob'; nothing was imported\n"


def test_db_backup_writes_a_checked_copy(tmp_path: Path) -> None:
    database = tmp_path / "one.db"
    used(database)
    result = ringside("db", "backup", env=env_for(database))
    assert result.returncode == 0, result.stderr
    taken = backup.list_backups(tmp_path / "backups")
    assert len(taken) == 1
    assert result.stdout.startswith(f"backup written to {taken[0].path} (")
    assert result.stdout.strip().endswith("integrity_check ok")
    elsewhere = ringside("db", "backup", "--to", str(tmp_path / "usb"), env=env_for(database))
    assert elsewhere.returncode == 0, elsewhere.stderr
    assert backup.integrity_problems(backup.list_backups(tmp_path / "usb")[0].path) == []


def test_db_backup_on_postgresql_points_to_pg_dump(tmp_path: Path) -> None:
    env = {"RINGSIDE_DATABASE_URL": "postgresql+psycopg://ringside@localhost/ringside"}
    result = ringside("db", "backup", env=env)
    assert result.returncode == 2
    assert "pg_dump" in result.stderr and "Traceback" not in result.stderr


def test_db_backup_without_a_database_says_so(tmp_path: Path) -> None:
    result = ringside("db", "backup", env=env_for(tmp_path / "none.db"))
    assert result.returncode == 1
    assert result.stderr == f"ringside: there is no database at {tmp_path / 'none.db'}\n"


def test_db_backup_rotates_the_backup_folder_only(tmp_path: Path) -> None:
    database = tmp_path / "one.db"
    used(database)
    folder = tmp_path / "backups"
    for day in (1, 2, 3):
        backup.take(database, folder, START.replace(day=day))
    keep_all = ringside("db", "backup", env={**env_for(database), "RINGSIDE_BACKUP_KEEP": "0"})
    assert keep_all.returncode == 0 and "removed" not in keep_all.stdout
    assert len(backup.list_backups(folder)) == 4
    result = ringside("db", "backup", env={**env_for(database), "RINGSIDE_BACKUP_KEEP": "2"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("integrity_check ok; removed 2 older")
    kept = backup.list_backups(folder)
    # Day 3 and today's are kept, today's first. The two commands may take today's in one
    # second (one file) or in two (two files, both kept as the newest), so count none of them.
    taken = [b.taken_at for b in kept]
    assert taken[-1] == START.replace(day=3)
    assert taken[:-1] and all(at > START.replace(day=3) for at in taken[:-1])

"""Backups: online copies that pass integrity_check, restore, and a daily rotation."""

import shutil
import sqlite3
import threading
from contextlib import closing
from datetime import timedelta
from pathlib import Path

import pytest

from app.config import Settings
from app.datasafety import backup
from app.main import create_app
from tests.conftest import FIXTURE_CONTENT, FakeClock, loopback_client
from tests.datasafety.helpers import START, export_text, populate


def settings_for(tmp_path: Path, **overrides: object) -> Settings:
    return Settings(
        database_url=f"sqlite:///{tmp_path}/ringside.db",
        content_dir=FIXTURE_CONTENT,
        srs_fuzz=False,
        **overrides,  # type: ignore[arg-type]
    )


def used_database(tmp_path: Path, clock: FakeClock) -> str:
    """A database file with a week of use in it; returns that use as an export."""
    with loopback_client(create_app(settings_for(tmp_path), clock=clock)) as client:
        populate(client, clock)
        return export_text(client)


def count(path: Path, table: str) -> int:
    with closing(sqlite3.connect(path)) as connection:
        return int(connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def test_a_backup_is_a_checked_self_contained_copy(tmp_path: Path) -> None:
    used_database(tmp_path, FakeClock(START))
    database, folder = tmp_path / "ringside.db", tmp_path / "copies"
    taken = backup.take(database, folder, START)
    assert taken.path == folder / "ringside-20260401-090000.db"
    assert backup.integrity_problems(taken.path) == []
    assert count(taken.path, "review_logs") == count(database, "review_logs") == 5
    assert count(taken.path, "mock_questions") == 2
    with closing(sqlite3.connect(taken.path)) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    assert [p.name for p in folder.iterdir()] == [taken.path.name]  # no partial file, no -wal


def test_a_backup_under_write_load_is_consistent(tmp_path: Path) -> None:
    database = tmp_path / "busy.db"
    with closing(sqlite3.connect(database)) as setup:
        setup.execute("PRAGMA journal_mode=WAL")
        setup.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
    writing, stop = threading.Event(), threading.Event()

    def write() -> None:
        with closing(sqlite3.connect(database, timeout=5)) as writer:
            while not stop.is_set():
                with writer:  # one committed transaction per row
                    writer.execute("INSERT INTO events (body) VALUES (?)", ("x" * 500,))
                writing.set()

    thread = threading.Thread(target=write)
    thread.start()
    try:
        assert writing.wait(timeout=10)
        copies = [
            backup.take(database, tmp_path / "copies", START + timedelta(seconds=i))
            for i in range(3)
        ]
    finally:
        stop.set()
        thread.join()
    counts = [count(c.path, "events") for c in copies]
    assert all(backup.integrity_problems(c.path) == [] for c in copies)
    assert 0 < counts[0] <= counts[1] <= counts[2] <= count(database, "events")


def test_restoring_a_backup_brings_the_data_back(tmp_path: Path) -> None:
    clock = FakeClock(START)
    exported = used_database(tmp_path, clock)
    database = tmp_path / "ringside.db"
    taken = backup.take(database, tmp_path / "copies", clock.now)
    database.unlink()
    shutil.copy(taken.path, database)
    with loopback_client(create_app(settings_for(tmp_path), clock=clock)) as client:
        assert export_text(client) == exported


def test_start_up_takes_one_backup_a_day(tmp_path: Path) -> None:
    clock = FakeClock(START)
    used_database(tmp_path, clock)  # the first start found no file: nothing to back up yet
    folder = tmp_path / "backups"
    assert backup.list_backups(folder) == []
    for hours in (0, 5):
        clock.now = START + timedelta(hours=hours)
        create_app(settings_for(tmp_path), clock=clock).state.database.dispose()
    assert [b.taken_at for b in backup.list_backups(folder)] == [START]
    clock.now = START + timedelta(days=1)
    create_app(settings_for(tmp_path), clock=clock).state.database.dispose()
    assert [b.taken_at for b in backup.list_backups(folder)] == [clock.now, START]


def test_rotation_keeps_the_newest(tmp_path: Path) -> None:
    used_database(tmp_path, FakeClock(START))
    database, folder = tmp_path / "ringside.db", tmp_path / "backups"
    folder.mkdir()
    (folder / "notes.txt").write_text("not a backup: never rotated away")
    days = [START + timedelta(days=d, minutes=d) for d in range(6)]
    for day in days:
        backup.take_if_due(database, folder, 3, day)
        backup.take_if_due(database, folder, 3, day + timedelta(hours=1))  # not due again
    assert [b.taken_at for b in backup.list_backups(folder)] == days[:-4:-1]
    assert (folder / "notes.txt").exists()


def test_keep_zero_turns_automatic_backups_off(tmp_path: Path) -> None:
    clock = FakeClock(START)
    used_database(tmp_path, clock)
    create_app(settings_for(tmp_path, backup_keep=0), clock=clock).state.database.dispose()
    assert backup.list_backups(tmp_path / "backups") == []


def test_a_backup_that_cannot_be_written_does_not_stop_the_app(tmp_path: Path) -> None:
    clock = FakeClock(START)
    used_database(tmp_path, clock)
    blocked = tmp_path / "a-file"
    blocked.write_text("a file where the backup folder should be")
    app = create_app(settings_for(tmp_path, backup_dir=blocked), clock=clock)
    with loopback_client(app) as client:
        assert client.get("/api/review/queue").status_code == 200


def test_rotation_keeps_recent_days_and_one_backup_a_week_before_them(tmp_path: Path) -> None:
    used_database(tmp_path, FakeClock(START))
    database, folder = tmp_path / "ringside.db", tmp_path / "backups"
    days = [START + timedelta(days=d) for d in range(40)]  # a daily backup for 40 days
    for day in days:
        backup.take_if_due(database, folder, 5, day, keep_weekly=4)
    kept = [b.taken_at for b in backup.list_backups(folder)]
    newest_of_week: dict[tuple[int, int], object] = {}
    for day in days:  # oldest first: the last one seen of a week is its newest
        newest_of_week[day.isocalendar()[:2]] = day
    last_four_weeks = sorted(newest_of_week.items())[-4:]
    expected = set(days[-5:]) | {day for _week, day in last_four_weeks}
    assert set(kept) == expected
    assert len(kept) < len(days)
    assert min(kept) < days[-7]  # the weekly tier reaches back beyond the daily one


def test_a_running_server_takes_the_daily_backup_without_a_restart(tmp_path: Path) -> None:
    """keep_backing_up: each check takes the daily backup if one is due, and only then."""
    import anyio

    from app.datasafety import startup

    clock = FakeClock(START)
    used_database(tmp_path, clock)
    settings, folder = settings_for(tmp_path), tmp_path / "backups"
    first = clock.now
    startup.take_due_backup(settings, first)  # as at start-up
    assert len(backup.list_backups(folder)) == 1

    async def run_for_a_while() -> None:
        with anyio.move_on_after(0.5):
            await startup.keep_backing_up(settings, clock, every_s=0.01)

    def checks_at(moment: object) -> None:
        clock.now = moment  # type: ignore[assignment]
        runner = threading.Thread(target=anyio.run, args=(run_for_a_while,))
        runner.start()
        runner.join()

    checks_at(first + timedelta(hours=23))  # not a day since the last: nothing new
    assert len(backup.list_backups(folder)) == 1
    checks_at(first + timedelta(days=1, minutes=1))
    taken = [b.taken_at for b in backup.list_backups(folder)]
    second = first + timedelta(days=1, minutes=1)
    assert taken == [second.replace(microsecond=0), first.replace(microsecond=0)]


def test_a_failing_backup_check_never_stops_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import anyio

    from app.datasafety import startup

    calls: list[object] = []

    def broken(_settings: Settings, now: object) -> None:
        calls.append(now)
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(startup, "take_due_backup", broken)

    async def run_for_a_while() -> None:
        with anyio.move_on_after(0.3):
            await startup.keep_backing_up(settings_for(tmp_path), FakeClock(START), every_s=0.01)

    runner = threading.Thread(target=anyio.run, args=(run_for_a_while,))
    runner.start()
    runner.join()
    assert len(calls) >= 2  # it went on checking after the first failure
    assert "automatic backup failed" in caplog.text

"""The `ringside` command, run as a user runs it: in a subprocess, reading its output."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_CONTENT

pytestmark = pytest.mark.slow  # each test starts the command in a process of its own


def ringside(
    *args: str, env: dict[str, str], timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=timeout,
    )


def broken_content(tmp_path: Path) -> Path:
    root = tmp_path / "content"
    shutil.copytree(FIXTURE_CONTENT, root)
    path = root / "topics" / "02-beta.md"
    path.write_text(path.read_text().replace("kind: order", "kind: ordering"))
    return root


def env_for(tmp_path: Path, content: Path) -> dict[str, str]:
    return {
        "RINGSIDE_CONTENT_DIR": str(content),
        "RINGSIDE_DATABASE_URL": f"sqlite:///{tmp_path}/cli.db",
    }


def test_content_check_passes_on_good_content(tmp_path: Path) -> None:
    result = ringside("content", "check", env=env_for(tmp_path, FIXTURE_CONTENT))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok: 2 topics, 5 cards, 3 errata"


def test_content_check_fails_with_one_line(tmp_path: Path) -> None:
    result = ringside("content", "check", env=env_for(tmp_path, broken_content(tmp_path)))
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "02-beta.md:" in lines[0] and "unknown kind 'ordering'" in lines[0]
    assert "Traceback" not in result.stderr


def test_serve_refuses_to_start_with_the_same_message(tmp_path: Path) -> None:
    env = env_for(tmp_path, broken_content(tmp_path))
    check = ringside("content", "check", env=env)
    serve = ringside("serve", "--port", "8799", env=env)
    assert serve.returncode == 1
    assert serve.stderr.strip().splitlines() == check.stderr.strip().splitlines()


def test_db_upgrade(tmp_path: Path) -> None:
    result = ringside("db", "upgrade", env=env_for(tmp_path, FIXTURE_CONTENT))
    assert result.returncode == 0, result.stderr
    assert "up to date" in result.stdout
    assert (tmp_path / "cli.db").exists()


def test_bad_setting_is_a_clear_error(tmp_path: Path) -> None:
    env = {**env_for(tmp_path, FIXTURE_CONTENT), "RINGSIDE_PORT": "eighty"}
    result = ringside("db", "upgrade", env=env)
    assert result.returncode == 1
    assert result.stderr.startswith("ringside: bad setting RINGSIDE_PORT")
    assert "Traceback" not in result.stderr


def test_srs_optimize_says_how_many_reviews_are_needed(tmp_path: Path) -> None:
    result = ringside("srs", "optimize", env=env_for(tmp_path, FIXTURE_CONTENT))
    assert result.returncode == 1
    assert "512 reviews are needed to fit your parameters; you have 0" in result.stderr
    unknown = ringside(
        "srs", "optimize", "--user", "nobody", env=env_for(tmp_path, FIXTURE_CONTENT)
    )
    assert unknown.returncode == 1 and "nobody" in unknown.stderr


def test_content_check_requires_every_mistake_to_have_evidence(tmp_path: Path) -> None:
    content = tmp_path / "content"
    shutil.copytree(FIXTURE_CONTENT, content)
    beta = content / "topics" / "02-beta.md"
    beta.write_text(
        beta.read_text().replace('    evidence: ["reboot first", "rebooting first"]\n', "")
    )
    result = ringside("content", "check", env=env_for(tmp_path, content))
    assert result.returncode == 1
    line = next(
        n for n, text in enumerate(beta.read_text().splitlines(), 1) if "Rebooting first" in text
    )
    assert f"02-beta.md:{line}: card " in result.stderr
    assert "mistakes.0: no evidence" in result.stderr

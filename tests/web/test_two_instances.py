"""Two app processes on one PostgreSQL behave as one: reviews, sessions and sign-in limits.

Nothing that matters lives in a process: this starts two real servers on different ports
against the same database and crosses every request from one to the other.
"""

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import FIXTURE_CONTENT
from tests.postgres.schemas import SKIP_REASON, Schemas, template_url
from tests.servers import free_port, wait_until_up

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

PASSWORD = "a long enough passphrase"


def start(url: str, tmp_path: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {
        **os.environ,
        "RINGSIDE_DATABASE_URL": url,
        "RINGSIDE_CONTENT_DIR": str(FIXTURE_CONTENT),
        "RINGSIDE_AUTH_MODE": "accounts",
        "RINGSIDE_SECRET_KEY": "s3cret-for-tests-" + "abcdefghij" * 5,
        "RINGSIDE_BACKUP_DIR": str(tmp_path / "backups"),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    wait_until_up(base, process, timeout=60)
    return process, base


@pytest.fixture
def two_servers(tmp_path: Path) -> Iterator[tuple[str, str]]:
    url = template_url()
    if url is None:
        pytest.skip(SKIP_REASON)
    schemas = Schemas(url)
    database = schemas.create()
    first, a = start(database, tmp_path)  # one at a time: the first applies the migrations
    second, b = start(database, tmp_path)
    yield a, b
    for process in (first, second):
        process.terminate()
        process.wait(timeout=20)
    schemas.drop(database)
    schemas.dispose()


def csrf(client: httpx.Client, base: str) -> str:
    page = client.get(f"{base}/settings").text
    match = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert match
    return match.group(1)


def test_two_instances_behave_as_one(two_servers: tuple[str, str]) -> None:
    a, b = two_servers
    with httpx.Client(timeout=10) as ada:
        registered = ada.post(f"{a}/register", data={"username": "ada", "password": PASSWORD})
        assert registered.status_code == 303
        # The session made on A is valid on B.
        assert ada.get(f"{b}/api/review/queue").status_code == 200
        token = csrf(ada, b)
        graded = ada.post(
            f"{a}/api/review/alpha-busbw",
            json={"rating": 3, "idempotency_key": "one"},
            headers={"X-CSRF-Token": token},
        )
        assert graded.status_code == 200
        # The review graded on A is seen on B; the same key on B records nothing new.
        assert ada.get(f"{b}/api/stats").json()["total_reviews"] == 1
        again = ada.post(
            f"{b}/api/review/alpha-busbw",
            json={"rating": 1, "idempotency_key": "one"},
            headers={"X-CSRF-Token": token},
        )
        assert again.json() == graded.json()
        # Signing out on B ends the session for A too.
        ada.post(f"{b}/logout", data={"csrf_token": token})
        assert ada.get(f"{a}/api/review/queue").status_code == 401

    # Failed sign-ins are counted in the database: 5 across both instances lock the account.
    with httpx.Client(timeout=10) as attacker:
        for base in (a, b, a, b, a):
            wrong = attacker.post(f"{base}/login", data={"username": "ada", "password": "nope"})
            assert wrong.status_code == 401
        blocked = attacker.post(f"{b}/login", data={"username": "ada", "password": PASSWORD})
        assert blocked.status_code == 429 and "retry-after" in blocked.headers

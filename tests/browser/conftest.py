"""Browser tests: Playwright for Python driving Debian's chromium, against a real server.

They skip, saying why, where no browser is installed (`apt-get install chromium`), or where
Playwright is missing. Screenshots go to artifacts/screenshots/.
"""

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from app.config import Settings
from app.main import create_app
from tests.conftest import FIXTURE_CONTENT

CHROMIUM = os.environ.get("RINGSIDE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[str]:
    """A real server on the fixture content, with a fresh database."""
    settings = Settings(database_url=f"sqlite:///{tmp_path}/b.db", content_dir=FIXTURE_CONTENT)
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(settings), host="127.0.0.1", port=_free_port(), log_level="warning"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{server.config.port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    playwright_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright is not installed: pip install playwright"
    )
    if not Path(CHROMIUM).exists():
        pytest.skip(
            f"no chromium at {CHROMIUM}: apt-get install chromium (or set RINGSIDE_CHROMIUM)"
        )
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield launched
        launched.close()


def screenshot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

"""Browser tests: Playwright for Python driving Debian's chromium, against a real server.

They skip, saying why, where no browser is installed (`apt-get install chromium`), or where
Playwright is missing. Screenshots go to artifacts/screenshots/.
"""

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from app.config import Settings
from app.main import create_app
from tests.conftest import FIXTURE_CONTENT, REAL_CONTENT
from tests.servers import serving

CHROMIUM = os.environ.get("RINGSIDE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


@contextmanager
def serve(database: Path, **overrides: Any) -> Iterator[str]:
    """Run the app on the fixture content and the given database file; yield its base URL."""
    options = {"database_url": f"sqlite:///{database}", "content_dir": FIXTURE_CONTENT}
    settings = Settings(**{**options, **overrides})
    with serving(create_app(settings)) as url:
        yield url


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[str]:
    """A real server on the fixture content, with a fresh database: for flows that write."""
    with serve(tmp_path / "b.db") as url:
        yield url


@pytest.fixture(scope="module")
def module_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One real server for a whole module, for pages whose tests only read."""
    with serve(tmp_path_factory.mktemp("browser") / "b.db") as url:
        yield url


@pytest.fixture(scope="module")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One real server for a whole module on the real content (every topic and card)."""
    folder = tmp_path_factory.mktemp("real")
    with serve(folder / "r.db", content_dir=REAL_CONTENT) as url:
        yield url


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


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page (own cookies and storage) at desktop width, under the app's real CSP."""
    with watched_page(browser) as opened:
        yield opened


@contextmanager
def watched_page(browser: Any, **options: Any) -> Iterator[Any]:
    """A fresh page of `browser` (desktop width and the light theme unless `options` say
    otherwise) that fails the test on a script error or on anything the
    Content-Security-Policy blocked (an inline script or style attribute), since users would
    lose that silently."""
    options = {"viewport": {"width": 1280, "height": 900}, "color_scheme": "light", **options}
    context = browser.new_context(**options)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on(
        "console",
        lambda message: (
            errors.append(message.text)
            if message.type == "error" and "Content Security Policy" in message.text
            else None
        ),
    )
    try:
        yield opened
    finally:
        context.close()
    assert errors == [], f"errors on the page: {errors}"


def screenshot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

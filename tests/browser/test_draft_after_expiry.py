"""A draft typed after the session expired is kept in the browser and saved after signing in."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from app.config import Settings
from app.main import create_app
from tests.conftest import FIXTURE_CONTENT
from tests.servers import serving

pytestmark = pytest.mark.browser

PASSWORD = "a long enough passphrase"


@pytest.fixture
def accounts_server(tmp_path: Path) -> Iterator[tuple[str, Any]]:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path}/a.db",
        content_dir=FIXTURE_CONTENT,
        auth_mode="accounts",
        secret_key="s3cret-for-tests-" + "abcdefghij" * 5,
        backup_dir=tmp_path / "backups",
    )
    app = create_app(settings)
    with serving(app) as base:
        yield base, app.state.database


def test_draft_survives_an_expired_session(browser: Any, accounts_server: tuple[str, Any]) -> None:
    base, database = accounts_server
    page = browser.new_page()
    page.goto(f"{base}/register")
    page.fill("#username", "ada")
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.goto(f"{base}/mock")
    page.fill("#questions", "1")
    page.click("form.settings-form button[type=submit]")
    page.click("text=Start the clock")
    mock_url = page.url
    page.fill("textarea", "first words")
    page.locator(".save-state", has_text="Saved").wait_for()

    with database.write_session() as session:  # the session ends on the server: expired
        session.execute(text("DELETE FROM auth_sessions"))
    page.type("textarea", " and more after expiry")
    page.locator(".save-state", has_text="signed out").wait_for()

    page.goto(f"{base}/login?next=/")
    page.fill("#username", "ada")
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.goto(mock_url)
    page.locator(".save-state", has_text="Saved").wait_for()
    assert page.input_value("textarea") == "first words and more after expiry"
    with database.read_session() as session:
        stored = session.execute(text("SELECT answer FROM mock_questions")).scalar_one()
    assert stored == "first words and more after expiry"
    page.close()

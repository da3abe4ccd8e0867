"""In accounts mode: create an account, sign out and back in, with the keyboard alone; the
sign-in pages and the account settings pass the same checks as every other page."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.audit import audit, keyboard_reaches, tab_to
from tests.browser.conftest import serve

pytestmark = pytest.mark.browser

PASSWORD = "a long phrase for the ring"


@pytest.fixture
def accounts_server(tmp_path: Path) -> Iterator[str]:
    with serve(
        tmp_path / "a.db", auth_mode="accounts", secret_key="k3y-for-tests-" + "abcdefghij" * 5
    ) as url:
        yield url


def has_focus(page: Any, selector: str) -> bool:
    """True once `selector` has focus; autofocus can land a moment after the load event."""
    from playwright.sync_api import expect

    try:
        expect(page.locator(selector)).to_be_focused(timeout=5000)
    except AssertionError:
        return False
    return True


def test_register_sign_out_and_sign_in_by_keyboard(page: Any, accounts_server: str) -> None:
    page.goto(f"{accounts_server}/review")
    page.wait_for_url("**/login**")
    audit(page, "login")
    assert has_focus(page, "#username"), "the username box has focus on arrival"
    tab_to(page, "#password")
    tab_to(page, "main a[href='/register']")
    page.keyboard.press("Enter")

    page.wait_for_url("**/register")
    assert has_focus(page, "#username"), "the username box has focus on arrival"
    audit(page, "register")
    page.keyboard.type("ada")
    page.keyboard.press("Tab")
    page.keyboard.type("password")  # too common: refused with a message
    page.keyboard.press("Enter")
    page.locator("[role=alert]").wait_for()
    assert "common" in page.locator("[role=alert]").inner_text().lower()
    audit(page, "register-error")
    page.fill("#password", PASSWORD)
    page.focus("#password")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{accounts_server}/")

    page.goto(f"{accounts_server}/settings")
    assert "Signed in as ada" in page.locator(".account").inner_text()
    audit(page, "settings-account")
    keyboard_reaches(page, [".account button.link-button"])
    page.keyboard.press("Enter")

    page.wait_for_url("**/login")
    assert has_focus(page, "#username")
    page.keyboard.type("ada")
    page.keyboard.press("Tab")
    page.keyboard.type("not the password")
    page.keyboard.press("Enter")
    page.locator("[role=alert]").wait_for()
    assert page.locator("[role=alert]").inner_text() == "Wrong username or password."
    audit(page, "login-error")
    tab_to(page, "#password")
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{accounts_server}/")
    assert page.locator(".topic-list").is_visible()

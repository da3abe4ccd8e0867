"""In a real browser: typed text never runs as script; headers and cookie flags as promised."""

from typing import Any

import pytest

pytestmark = pytest.mark.browser

ATTACK = '<script>window.pwned = 1; alert(1)</script><img src=x onerror="window.pwned = 2">'


def test_an_answer_with_a_script_shows_as_text_and_never_runs(
    browser: Any, live_server: str
) -> None:
    page = browser.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"{live_server}/mock")
    page.fill("#questions", "1")
    page.fill("#minutes", "2")
    page.uncheck("input[name=followups]")
    page.click("form.settings-form button[type=submit]")
    page.click("text=Start the clock")
    page.fill("textarea", ATTACK)
    page.click("text=Submit answer")
    page.locator(".user-text").first.wait_for()
    assert ATTACK in page.locator(".user-text").first.inner_text()  # shown as text
    assert page.evaluate("window.pwned") is None
    page.locator("button.grade-3").click()
    page.wait_for_url("**/report")
    page.click("summary:has-text('Question 1')")
    assert ATTACK in page.locator(".user-text").first.inner_text()
    assert page.evaluate("window.pwned") is None and dialogs == []
    page.close()


def test_headers_and_cookie_flags(browser: Any, live_server: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    response = page.goto(f"{live_server}/review")
    headers = response.headers
    assert "default-src 'self'" in headers["content-security-policy"]
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["cache-control"] == "no-store"
    (cookie,) = [c for c in context.cookies() if c["name"] == "ringside_session"]
    assert cookie["httpOnly"] is True and cookie["sameSite"] == "Lax" and cookie["path"] == "/"
    assert page.evaluate("document.cookie") == ""  # HttpOnly: scripts cannot read it
    context.close()

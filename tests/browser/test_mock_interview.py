"""A one-question, one-minute mock interview run to its report with the keyboard alone: the
answer autosaves and survives a reload, the follow-up is answered, the answer graded."""

import re
from typing import Any

import pytest

from tests.browser.audit import audit, keyboard_reaches, tab_to

pytestmark = pytest.mark.browser

ANSWER = "Reduce-scatter then all-gather; each phase moves N-1 of N chunks."
FOLLOWUP = "Latency grows with 2(N-1) steps, so small messages prefer a tree."


def has_focus(page: Any, selector: str) -> bool:
    """True once `selector` has focus; autofocus can land a moment after the load event."""
    from playwright.sync_api import expect

    try:
        expect(page.locator(selector)).to_be_focused(timeout=5000)
    except AssertionError:
        return False
    return True


def type_into(page: Any, selector: str, text: str) -> None:
    """Replace the text of the focused field by typing, as a user would."""
    tab_to(page, selector)
    page.keyboard.press("Control+A")
    page.keyboard.type(text)


def test_a_short_mock_interview_from_start_to_report(page: Any, live_server: str) -> None:
    page.goto(f"{live_server}/mock")
    keyboard_reaches(page, [".preset button"])
    type_into(page, "#questions", "1")
    type_into(page, "#minutes", "1")
    tab_to(page, "form.settings-form > button")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/mock/\d+$"))
    mock_url = page.url
    api = mock_url.replace("/mock/", "/api/mock/")

    # The start button has focus on arrival: Enter starts the clock.
    assert "1 minute" in page.locator(".mock-start").inner_text()
    assert has_focus(page, ".mock-start button"), "Start the clock should have focus"
    audit(page, "mock-start")
    page.keyboard.press("Enter")
    page.locator("textarea#answer").wait_for()
    assert has_focus(page, "textarea#answer"), "the answer box should have focus"
    assert page.get_by_role("timer").inner_text().startswith(("1:00", "0:5"))

    page.keyboard.type(ANSWER)
    page.wait_for_function(
        "() => document.querySelector('.save-state').textContent.startsWith('Saved')"
    )
    assert page.request.get(api).json()["questions"][0]["answer"] == ANSWER

    page.reload()
    assert page.locator("textarea#answer").input_value() == ANSWER
    assert page.locator(".save-state").inner_text() == "Saved"
    assert page.locator(".char-count").inner_text() == str(len(ANSWER))
    audit(page, "mock-answer")
    assert has_focus(page, "textarea#answer"), "the answer box should have focus after a reload"
    tab_to(page, ".mock-answer button[type=submit]")
    page.keyboard.press("Enter")

    page.locator(".followup-question").wait_for()
    assert has_focus(page, "textarea#answer"), "the follow-up's answer box should have focus"
    page.keyboard.type(FOLLOWUP)
    audit(page, "mock-followup")
    tab_to(page, ".mock-answer button[type=submit]")
    page.keyboard.press("Enter")

    page.locator(".mock-grade").wait_for()
    assert page.locator(".user-text").first.inner_text() == ANSWER
    assert page.locator(".user-text").nth(1).inner_text() == FOLLOWUP
    audit(page, "mock-grade")
    keyboard_reaches(page, [".rubric-check input"])
    first_point = page.locator(".rubric-check input").first
    was_checked = first_point.is_checked()
    page.keyboard.press("Space")
    assert first_point.is_checked() != was_checked, "Space toggles a rubric point"
    tab_to(page, ".mock-grade .grade-3")
    page.keyboard.press("Enter")

    page.wait_for_url(f"{mock_url}/report")
    tiles = page.locator(".tile").all_inner_texts()
    assert any(re.fullmatch(r"1 / 1\s+questions graded", t.strip()) for t in tiles), tiles
    assert page.locator("tbody tr td").nth(4).inner_text() == "Good"
    audit(page, "mock-report")
    keyboard_reaches(page, ["tbody a[href^='/cards/']", "details.card > summary"])
    page.keyboard.press("Enter")
    assert page.locator("details.card .user-text").first.inner_text() == ANSWER

    page.goto(f"{live_server}/mock/history")
    assert page.locator("tbody tr").count() == 1
    audit(page, "mock-history-after")
    keyboard_reaches(page, [f"tbody a[href='{mock_url.removeprefix(live_server)}/report']"])

"""Review three cards with the keyboard alone in a real browser, and undo one."""

from typing import Any

import pytest

from tests.browser.conftest import screenshot

pytestmark = pytest.mark.browser


def test_review_three_cards_with_the_keyboard_and_undo(page: Any, live_server: str) -> None:
    page.goto(f"{live_server}/review")
    session = page.locator("#review-session")
    assert session.get_attribute("data-card") == "alpha-ring-bytes"

    # Grading is refused until the answer is shown: no accidental grades.
    page.keyboard.press("3")
    assert session.get_attribute("data-card") == "alpha-ring-bytes"

    seen = []
    for _ in range(3):
        card = page.locator("#review-session").get_attribute("data-card")
        seen.append(card)
        if page.locator("#review-session .drill-form").count():
            # A numeric card: the answer box has focus; type, check with Enter.
            page.keyboard.type("12")  # a bare number is read in the card's unit
            page.keyboard.press("Enter")
            page.locator("#review-session .drill-result:not(:empty)").wait_for()
        else:
            page.keyboard.press("Space")
        assert page.locator("#review-session .card-answer").get_attribute("open") is not None, seen
        page.keyboard.press("4")  # Easy: each card leaves today's queue
        page.wait_for_function(
            "card => document.querySelector('#review-session')?.dataset.card !== card", arg=card
        )
    assert seen == ["alpha-ring-bytes", "alpha-busbw", "alpha-drill-bytes"]
    assert "3 done" in page.locator(".review-progress").inner_text()

    page.keyboard.press("u")
    page.wait_for_function(
        "() => document.querySelector('#review-session')?.dataset.card === 'alpha-drill-bytes'"
    )
    assert "2 done" in page.locator(".review-progress").inner_text()

    page.keyboard.press("Escape")  # the undone card is numeric: leave its answer box first
    page.keyboard.press("?")
    assert page.locator("#review-keys").is_visible()
    screenshot(page, "review-keyboard")

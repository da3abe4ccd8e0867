"""Read a topic, open an embedded card's answer and grade it, all from the keyboard; the grade
is recorded and shows on the statistics page."""

import re
from typing import Any

import pytest

from tests.browser.audit import audit, keyboard_reaches, tab_to

pytestmark = pytest.mark.browser

CARD = "#card-alpha-ring-bytes"


def test_grade_an_embedded_card_with_the_keyboard(page: Any, live_server: str) -> None:
    page.goto(f"{live_server}/topics/alpha")
    keyboard_reaches(page, [f"{CARD} .card-answer > summary"])
    page.keyboard.press("Enter")
    assert page.locator(f"{CARD} .card-answer").get_attribute("open") is not None
    assert page.locator(f"{CARD} .rubric").is_visible()

    tab_to(page, f"{CARD} .embedded-grade .grade-3")
    page.keyboard.press("Enter")
    result = page.locator(f"{CARD} .embedded-result")
    result.locator("xpath=self::*[normalize-space()]").wait_for()
    assert re.fullmatch(r"Saved\. This card comes back in \d+ min\.", result.inner_text())
    assert page.url.endswith("/topics/alpha"), "grading in place, without leaving the page"
    audit(page, "topic-graded")

    stats = page.request.get(f"{live_server}/api/stats").json()
    assert stats["total_reviews"] == 1
    assert stats["counts"]["learning"] == 1
    queue = page.request.get(f"{live_server}/api/review/queue").json()
    assert "alpha-ring-bytes" not in [card["card_id"] for card in queue["cards"]]

    # The same key again (a double press) records nothing more.
    with page.expect_response(lambda r: "/api/review/alpha-ring-bytes" in r.url) as again:
        page.keyboard.press("Enter")
    assert again.value.ok
    assert page.request.get(f"{live_server}/api/stats").json()["total_reviews"] == 1

    page.reload()
    assert "mastered" in page.locator(".topic-meta").inner_text()

    page.goto(f"{live_server}/stats")
    tiles = page.locator(".tile").all_inner_texts()
    assert any(re.fullmatch(r"1\s+reviews in all", t.strip()) for t in tiles), tiles
    assert page.locator(".heatmap rect.heat-4").count() == 1, "today's square is filled"
    audit(page, "stats-after-review")
    keyboard_reaches(page, [".chart-scroll", ".mastery-list a[href='/topics/alpha']"])

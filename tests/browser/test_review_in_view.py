"""The answer in view on the review page: revealing it shows its first line, not the grade
buttons below it; on a phone the four grades share one row at the bottom of the screen while
the answer is read. On the real content, whose answers are longer than a screen."""

from typing import Any

import pytest

from tests.browser.conftest import screenshot, watched_page

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
# A short phone screen (or one with the keyboard up): the numeric card's answer with its grades
# is then taller than the screen whatever folds under it, so scrolling to its start is tested.
SHORT_PHONE = {"width": 390, "height": 560}
LONG_RECALL = "par-tp-overlap"  # with the grades below it, taller than the screen at 1280 × 800
LONG_NUMERIC = "par-bubble-drill"  # taller than a short phone screen


def in_view(page: Any, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    height = page.viewport_size["height"]
    return bool(box) and box["y"] >= 0 and box["y"] + box["height"] <= height


def answer_start(page: Any) -> str:
    """The answer's first line: its summary and the first block of its body."""
    first = "#review-session .card-answer-body > :first-child"
    assert in_view(page, "#review-session .card-answer > summary"), page.evaluate("scrollY")
    assert in_view(page, first) or page.locator(first).bounding_box()["y"] < PHONE["height"] / 2
    return first


def too_long_for_one_screen(page: Any) -> None:
    """The answer and the grades below it do not fit on one screen (else nothing is tested)."""
    answer = page.locator("#review-session .card-answer").bounding_box()
    # The undo link follows the grades, which may be held at the bottom of the screen.
    end = page.locator("#review-session .undo-form").bounding_box()
    assert end["y"] - answer["y"] > page.viewport_size["height"]


def test_space_shows_the_answer_from_its_first_line(browser: Any, real_server: str) -> None:
    with watched_page(browser, viewport=DESKTOP) as page:
        page.goto(f"{real_server}/review?card={LONG_RECALL}")
        assert page.locator("#review-session").get_attribute("data-card") == LONG_RECALL
        page.keyboard.press("Space")
        too_long_for_one_screen(page)
        answer_start(page)
        # The keys grade from here; Good has focus for Enter, without scrolling to it.
        assert page.evaluate("document.activeElement.classList.contains('grade-3')")
        screenshot(page, "review-answer-desktop")
        page.keyboard.press("3")
        page.wait_for_function(
            "card => document.querySelector('#review-session').dataset.card !== card",
            arg=LONG_RECALL,
        )
        assert in_view(page, "#review-session .card-question")


def test_a_checked_number_shows_the_answer_from_its_first_line(
    browser: Any, real_server: str
) -> None:
    with watched_page(browser, viewport=SHORT_PHONE) as page:
        page.goto(f"{real_server}/review?card={LONG_NUMERIC}")
        assert page.locator("#review-session").get_attribute("data-card") == LONG_NUMERIC
        typed = page.locator("#review-session .drill-form input[name=answer]")
        typed.fill("1")
        typed.press("Enter")
        result = page.locator("#review-session .drill-result:not(:empty)")
        result.wait_for()
        assert page.locator("#review-session .grade.is-suggested").count() == 1, result.inner_text()
        too_long_for_one_screen(page)
        answer_start(page)
        assert in_view(page, "#review-session .drill-result")


def test_on_a_phone_the_grades_stay_in_reach(browser: Any, real_server: str) -> None:
    with watched_page(browser, viewport=PHONE) as page:
        page.goto(f"{real_server}/review?card={LONG_RECALL}")
        page.keyboard.press("Space")
        answer_start(page)
        grades = page.locator("#review-session .grade-bar .grade")
        assert grades.count() == 4
        tops = {round(grades.nth(i).bounding_box()["y"]) for i in range(4)}
        assert len(tops) == 1, f"the four grades wrap onto more than one row: {tops}"
        assert in_view(page, "#review-session .grade-bar")
        screenshot(page, "review-answer-phone")
        # Reading on, the bar stays at the bottom of the screen.
        page.mouse.wheel(0, 600)
        page.wait_for_function("scrollY > 0")
        assert in_view(page, "#review-session .grade-bar")
        grades.nth(2).click()
        page.wait_for_function(
            "card => document.querySelector('#review-session').dataset.card !== card",
            arg=LONG_RECALL,
        )
        # Folded under the answer: follow-ups, mistakes and sources.
        page.locator("#review-session .card-answer > summary").click()
        folded = page.locator("#review-session .card-more")
        assert folded.count() == 3
        assert all(folded.nth(i).get_attribute("open") is None for i in range(3))

"""Every page in a real browser: no serious accessibility faults at phone and desktop widths
in both themes, and its main controls reachable with Tab from the top."""

import re
from typing import Any

import pytest

from tests.browser.audit import audit, focused, keyboard_reaches, tab_to

pytestmark = pytest.mark.browser

# name, path, the controls Tab must reach (in page order) from the skip link.
PAGES = [
    (
        "home",
        "/",
        ["nav[aria-label=Main] a[href='/review']", ".topic-list a[href='/topics/alpha']"],
    ),
    (
        "topic",
        "/topics/alpha",
        ["#card-alpha-ring-bytes .card-answer > summary", "#answer-alpha-busbw", ".pager-next"],
    ),
    (
        "topic-procedures",
        "/topics/beta",
        [
            "#card-beta-derive .steps-box summary",
            "#card-beta-order .order-shuffled li",
            ".order-check",
        ],
    ),
    ("card", "/cards/alpha-ring-bytes", [".card-answer > summary"]),
    ("review", "/review", [".topic-filter summary", ".card-answer > summary"]),
    ("stats", "/stats", [".mastery-list a[href='/topics/alpha']"]),
    ("settings", "/settings", ["#desired_retention", "#timezone", ".settings-form button"]),
    (
        "mock-new",
        "/mock",
        [".preset button", "#questions", "#minutes", "form.settings-form > button"],
    ),
    ("mock-history", "/mock/history", ["main a[href='/mock']"]),
    ("glossary", "/glossary", ["footer a[href='/glossary']"]),
    ("not-found", "/topics/no-such-topic", ["#error-q"]),
]


@pytest.mark.parametrize(("name", "path", "controls"), PAGES, ids=[p[0] for p in PAGES])
def test_page_is_accessible_and_reachable_by_keyboard(
    page: Any, module_server: str, name: str, path: str, controls: list[str]
) -> None:
    page.goto(module_server + path)
    audit(page, name)  # first, so that the screenshots show no focus ring
    keyboard_reaches(page, controls)


def test_review_answer_opens_and_grades_are_reachable(page: Any, module_server: str) -> None:
    page.goto(f"{module_server}/review")
    keyboard_reaches(page, [".card-answer > summary"])
    page.keyboard.press("Enter")
    assert page.locator("#review-session .card-answer").get_attribute("open") is not None
    # The grade buttons stay out of the way until the answer shows, then Tab reaches them.
    tab_to(page, ".grade-bar .grade-3")
    audit(page, "review-answer")


def test_skip_link_moves_focus_to_the_content(page: Any, module_server: str) -> None:
    page.goto(f"{module_server}/topics/alpha")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "main", focused(page)
    page.keyboard.press("Tab")  # the next Tab continues inside the content, past the header
    assert page.evaluate("() => document.querySelector('main').contains(document.activeElement)")


def test_slash_jumps_to_search_and_results_are_reachable(page: Any, module_server: str) -> None:
    page.goto(module_server + "/")
    page.keyboard.press("/")
    assert page.evaluate("() => document.activeElement.id") == "site-search-q"
    page.keyboard.type("busbw")
    page.keyboard.press("Enter")
    page.wait_for_url("**/search?q=busbw")
    assert "result" in page.locator(".search-count").inner_text()
    # The search box has focus on arrival, so the user can refine; Tab goes on to the hits.
    assert page.evaluate("() => document.activeElement.id") == "search-q"
    tab_to(page, ".search-results a")
    audit(page, "search")


def test_numeric_card_checks_an_answer_from_the_keyboard(page: Any, module_server: str) -> None:
    page.goto(f"{module_server}/cards/alpha-busbw")
    keyboard_reaches(page, ["#answer-alpha-busbw"])
    page.keyboard.type("1 GB/s")
    page.keyboard.press("Enter")
    result = page.locator("#result-alpha-busbw")
    result.locator("xpath=self::*[normalize-space()]").wait_for()
    assert "is-wrong" in (result.get_attribute("class") or ""), result.inner_text()
    audit(page, "card-numeric-checked")


def test_order_card_is_sorted_and_checked_by_keyboard(page: Any, module_server: str) -> None:
    page.goto(f"{module_server}/cards/beta-order")
    steps = page.locator(".order-shuffled li")
    keyboard_reaches(page, [".order-shuffled li"])
    # Alt+↓ moves the focused step down one place.
    first = steps.nth(0).get_attribute("data-index")
    page.keyboard.press("Alt+ArrowDown")
    assert steps.nth(1).get_attribute("data-index") == first
    tab_to(page, ".order-check")
    page.keyboard.press("Enter")
    verdict = page.locator(".order-check + .drill-result").inner_text()
    assert re.fullmatch(r"\d of 4 steps in place\.|Correct: every step is in place\.", verdict)
    assert page.locator(".card-answer").get_attribute("open") is not None
    audit(page, "card-order-checked")


def test_forms_with_errors_are_accessible(page: Any, module_server: str) -> None:
    page.goto(f"{module_server}/settings")
    page.fill("#desired_retention", "2")
    page.keyboard.press("Enter")
    page.locator(".field-error").first.wait_for()
    assert page.locator("#desired_retention").get_attribute("aria-describedby") == (
        "desired_retention-help desired_retention-error"
    )
    audit(page, "settings-error")

    page.goto(f"{module_server}/mock")
    page.fill("#questions", "0")
    page.keyboard.press("Enter")
    page.locator("#questions-error").wait_for()
    audit(page, "mock-new-error")


def test_no_page_is_wider_than_a_phone(page: Any, module_server: str) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    for name, path, _controls in PAGES:
        page.goto(module_server + path)
        # Real topic titles are longer than the fixture's: a select of them must not widen
        # the page (the Anki deck's topic list on the settings page once did).
        page.evaluate(
            "for (const option of document.querySelectorAll('select option'))"
            " option.textContent = option.textContent + ' and a much longer title'.repeat(3)"
        )
        wider = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert wider <= 0, f"{name} is {wider}px wider than the phone"

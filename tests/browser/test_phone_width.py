"""Nothing wider than a phone's screen, on the real content: every topic, every card with its
answer, steps, rubric, follow-ups and sources open and its answer checked, and the app's own
pages, at 390 × 844. Long code and paths wrap, tables and formulas scroll in their own box, and
each figure scales through its viewBox to fit, with labels still large enough to read."""

import re
from typing import Any

import httpx
import pytest

from app.labs.catalog import LABS
from tests.browser.conftest import ARTIFACTS, watched_page
from tests.conftest import REAL_CONTENT

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
# A figure's smallest label as drawn on the phone: the bold ones on filled bars, 13 units at
# 390/640, are 7.9 px (the others 8.5 px); before figures took the screen's width, 6.7 px.
SMALLEST_LABEL_PX = 7.5
PAGES = ["/", "/review", "/mock", "/mock/history", "/stats", "/labs", "/settings", "/glossary"]
PAGES += ["/errata", "/search?q=ring"] + [f"/labs/{name}" for name in LABS]

# What sticks out: the outermost elements past the viewport's right edge that no scrolling box
# holds, each with its first words; and the page's own width.
WIDTH = """() => {
  const width = document.documentElement.clientWidth;
  const scrolls = (e) => ["auto", "scroll", "hidden"].includes(getComputedStyle(e).overflowX);
  const culprits = [];
  for (const element of document.querySelectorAll("body *")) {
    if (element.getBoundingClientRect().right <= width + 0.5) continue;
    let held = false;
    for (let up = element.parentElement; up && up !== document.body; up = up.parentElement) {
      if (scrolls(up) || up.getBoundingClientRect().right > width + 0.5) { held = true; break; }
    }
    if (!held) {
      const text = (element.textContent || "").trim().slice(0, 40);
      culprits.push(`<${element.tagName.toLowerCase()} class="${element.className}"> ${text}`);
    }
  }
  return { scrollWidth: document.scrollingElement.scrollWidth, culprits: culprits.slice(0, 3) };
}"""

# Each figure: its box on the screen, whether its scrolling region hides any of it, and the
# smallest label as drawn (font size times the viewBox's scale).
FIGURES = """() => Array.from(document.querySelectorAll("svg.figure-svg"), (svg) => {
  const box = svg.getBoundingClientRect();
  const region = svg.closest(".figure-scroll");
  const scale = box.width / svg.viewBox.baseVal.width;
  const size = (text) => parseFloat(getComputedStyle(text).fontSize);
  const sizes = Array.from(svg.querySelectorAll("text"), size);
  return {
    id: svg.closest("figure").id, left: box.left, right: box.right,
    hidden: region ? region.scrollWidth - region.clientWidth : 0,
    smallest: Math.min(...sizes) * scale,
  };
})"""


def topic_slugs() -> list[str]:
    return sorted(path.stem.split("-", 1)[1] for path in (REAL_CONTENT / "topics").glob("*.md"))


def too_wide(page: Any) -> list[str]:
    """What on the page as it is now is wider than the screen: the page itself and figures."""
    problems = []
    measured = page.evaluate(WIDTH)
    if measured["scrollWidth"] > PHONE["width"]:
        problems.append(f"{page.url}: {measured['scrollWidth']} px wide: {measured['culprits']}")
    for figure in page.evaluate(FIGURES):
        where = f"{page.url} {figure['id']}"
        if figure["left"] < -0.5 or figure["right"] > PHONE["width"] + 0.5 or figure["hidden"]:
            problems.append(f"{where}: not all on screen {figure}")
        if figure["smallest"] < SMALLEST_LABEL_PX:
            problems.append(f"{where}: a label drawn at {figure['smallest']:.1f} px")
    return problems


def open_everything(page: Any) -> None:
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")


def check_answer(page: Any) -> None:
    """Answer the card: a numeric one with a wrong number, one with a rubric with every
    keyword of its rubric, so the drill's verdict and the grader's chips are on the page."""
    drill = page.locator(".drill-form input[name=answer]")
    if drill.count():
        drill.fill("1")
        drill.press("Enter")
        page.wait_for_function("() => document.querySelector('.drill-result').textContent !== ''")
    typed = page.locator(".answer-check textarea")
    if typed.count():
        words = page.locator(".rubric .keywords code").all_text_contents()
        typed.fill(", ".join(words) or "an answer")
        page.locator("button.check-answer").click()
        page.locator(".check-points li").first.wait_for()


@pytest.mark.parametrize("slug", topic_slugs())
def test_a_topic_and_its_cards_fit_a_phone(browser: Any, real_server: str, slug: str) -> None:
    cards = httpx.get(f"{real_server}/api/topics/{slug}").json()["cards"]
    assert cards
    problems: list[str] = []
    with watched_page(browser, viewport=PHONE, service_workers="block") as page:
        page.goto(f"{real_server}/topics/{slug}")
        open_everything(page)
        problems += too_wide(page)
        for card in cards:
            page.goto(f"{real_server}/cards/{card['id']}")
            check_answer(page)
            open_everything(page)
            problems += too_wide(page)
    assert not problems, "\n".join(problems)


def test_the_ring_figure_shows_the_whole_ring_on_a_phone(browser: Any, real_server: str) -> None:
    with watched_page(browser, viewport=PHONE, service_workers="block") as page:
        page.goto(f"{real_server}/topics/ring-allreduce")
        figure = page.locator("#fig-ring-allreduce-steps")
        figure.scroll_into_view_if_needed()
        for _ in range(3):  # into the reduce-scatter, where every rank's boxes are filled
            figure.get_by_role("button", name="Next ▶").click()
        ranks = figure.locator("text", has_text=re.compile(r"^rank \d$"))
        assert ranks.count() == 4
        for index in range(4):
            box = ranks.nth(index).bounding_box()
            assert 0 <= box["x"] and box["x"] + box["width"] <= PHONE["width"], box
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        figure.screenshot(path=str(ARTIFACTS / "ring-figure-phone.png"))
        assert too_wide(page) == []


def test_the_app_pages_fit_a_phone(browser: Any, real_server: str) -> None:
    problems: list[str] = []
    with watched_page(browser, viewport=PHONE, service_workers="block") as page:
        for path in PAGES:
            page.goto(real_server + path)
            open_everything(page)
            problems += too_wide(page)
    assert not problems, "\n".join(problems)

"""Check my answer: type an answer to a card, see the points made and missed, before the
model answer is revealed; on a topic page and on the review page, keyboard only."""

from typing import Any

from tests.browser.conftest import screenshot

ANSWER = "it's a reduce scatter then an all gather, each GPU sends 2(N-1)/N of it"


def test_check_my_answer_on_a_topic_page_with_the_keyboard(page: Any, live_server: str) -> None:
    page.goto(f"{live_server}/topics/alpha")
    card = page.locator("#card-alpha-ring-bytes")
    box = card.locator("textarea")
    box.focus()
    page.keyboard.type(ANSWER)
    page.keyboard.press("Control+Enter")
    card.locator(".check-points li").first.wait_for()
    made = card.locator(".check-points li.is-made")
    missed = card.locator(".check-points li.is-missed")
    assert made.count() == 2 and missed.count() == 1
    # The reason quotes what was typed ("reduce scatter"), not the keyword ("reduce-scatter").
    assert "matched “reduce scatter”, “all gather”" in made.first.inner_text()
    assert "Tends to 2K" in missed.first.inner_text()
    assert "2 of 3 points made" in card.locator(".check-status").inner_text()
    # The model answer stays hidden until asked for; its rubric then shows what was made.
    assert card.locator(".card-answer").get_attribute("open") is None
    card.locator(".card-answer > summary").click()
    assert card.locator("ul.rubric li.is-made").count() == 2
    # A numeric card keeps its own check, and gets no answer box.
    assert page.locator("#card-alpha-busbw textarea").count() == 0


def test_check_my_answer_on_the_review_page_leaves_the_keys_working(
    page: Any, live_server: str
) -> None:
    page.goto(f"{live_server}/review")
    session = page.locator("#review-session")
    session.locator("textarea").fill("not a reduce-scatter, never")
    session.locator("button.check-answer").focus()
    page.keyboard.press("Space")  # presses the button; does not reveal the answer
    session.locator(".check-points li").first.wait_for()
    assert session.locator(".check-points li.is-made").count() == 0
    assert session.locator(".card-answer").get_attribute("open") is None
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("Space")  # off the button, Space reveals the answer as before
    assert session.locator(".card-answer").get_attribute("open") is not None


def test_an_empty_answer_is_asked_for(page: Any, live_server: str) -> None:
    page.goto(f"{live_server}/cards/alpha-ring-bytes")
    page.locator("button.check-answer").click()
    assert "Type an answer first" in page.locator(".check-status").inner_text()


def test_without_javascript_the_card_is_as_before(browser: Any, live_server: str) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server}/topics/alpha")
    assert page.locator("textarea").count() == 0
    assert page.locator("button.check-answer").count() == 0
    context.close()


def test_check_my_answer_looks_right(browser: Any, live_server: str) -> None:
    """Screenshots at phone and desktop widths, light and dark."""
    for width, scheme in ((390, "light"), (390, "dark"), (1280, "light"), (1280, "dark")):
        context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
        page = context.new_page()
        page.goto(f"{live_server}/cards/alpha-ring-bytes")
        page.locator("textarea").fill(ANSWER)
        page.locator("button.check-answer").click()
        page.locator(".check-points li").first.wait_for()
        screenshot(page, f"check-answer-{width}-{scheme}")
        overflow = page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
        assert not overflow, f"horizontal scroll at {width} px"
        context.close()


def test_a_point_left_undecided_by_a_stated_mistake_says_why(page: Any, live_server: str) -> None:
    page.goto(f"{live_server}/cards/alpha-ring-bytes")
    page.locator("textarea").fill("RS then AG.\nEach GPU sends K(N−1) bytes, so it tends to 2K.")
    page.locator("button.check-answer").click()
    page.locator(".check-mistakes li").first.wait_for()
    status = page.locator(".check-status").inner_text()
    assert "It states a common mistake, below." in status
    assert "cannot decide on point 1" in status and "states a common mistake has to say" in status
    assert "You said “Each GPU sends K(N−1) bytes" in page.locator(".check-mistakes").inner_text()
    first = page.locator(".check-points li").first
    assert "is-undecided" in (first.get_attribute("class") or "")
    assert first.locator(".check-mark").inner_text().lower() == "undecided"
    screenshot(page, "check-undecided-after-mistake")

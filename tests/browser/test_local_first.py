"""One review path, local first, in a real browser: the next card shows before the server has
the grade, online as offline; grades given offline reach the server within seconds of the
network's return while the page says they are being sent; a card the server schedules
otherwise than the device is fetched again; and the topics read online are there to read
offline, with their figures and styles, beside the review."""

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from tests.browser.conftest import screenshot
from tests.browser.test_offline_review import (
    logs,
    make_app,
    phone,
    ready_offline,
    says,
    stored,
    until,
    waiting,
)
from tests.conftest import REAL_CONTENT
from tests.servers import serving


def server_has(database: Path, count: int, within: float = 10.0) -> None:
    """Wait until the server's review log holds `count` grades. A grade sent in the background
    is not shown in the sync bar (its count stays 0 throughout), so the bar cannot say when
    the server has it; the log can."""
    deadline = time.monotonic() + within
    while len(logs(database)) < count and time.monotonic() < deadline:
        time.sleep(0.05)


pytestmark = pytest.mark.browser


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return tmp_path / "local-first.db"


@pytest.fixture
def server(database: Path) -> Iterator[str]:
    with serving(make_app(database)) as url:
        yield url


def reveal(page: Any) -> str:
    """Show the answer of the card on screen; returns its id."""
    card = str(page.locator("#review-session").get_attribute("data-card"))
    assert card, "no card to grade"
    page.locator("#review-session .card-answer > summary").click()
    return card


def next_card(page: Any, card: str) -> None:
    page.wait_for_function(
        "card => document.querySelector('#review-session')?.dataset.card !== card", arg=card
    )


class Held:
    """Requests to the sync endpoint, held until released: what the server has not yet seen."""

    def __init__(self, page: Any) -> None:
        self.routes: list[Any] = []
        self.holding = True
        page.route("**/api/review/sync", self.hold)

    def hold(self, route: Any) -> None:
        if self.holding:
            self.routes.append(route)
        else:
            route.continue_()

    def release(self) -> None:
        self.holding = False
        for route in self.routes:
            route.continue_()


def test_an_online_grade_shows_the_next_card_before_the_server_has_it(
    browser: Any, server: str, database: Path
) -> None:
    with phone(browser, service_workers="block") as (_context, page):
        grades_sent_alone = []
        page.on(
            "request",
            lambda r: grades_sent_alone.append(r.url) if r.method == "POST" else None,
        )
        page.goto(f"{server}/review")
        stored(page)
        held = Held(page)
        first = reveal(page)
        page.keyboard.press("3")
        next_card(page, first)  # on screen while the server has not seen the grade
        assert logs(database) == []
        assert "Offline" not in page.locator("#sync-status").inner_text()
        labels = page.locator("#review-session .grade small").all_text_contents()
        assert len(labels) == 4 and all(labels), labels
        given = waiting(page)
        assert [(g["card_id"], g["rating"]) for g in given] == [(first, 3)]

        held.release()
        server_has(database, 1)
        assert [(key, rating, card) for key, rating, card, _at in logs(database)] == [
            (given[0]["idempotency_key"], 3, first)
        ]
        # Through the sync queue, not a request of its own.
        assert [url for url in grades_sent_alone if "/api/review/sync" not in url] == []


def test_grades_given_offline_reach_the_server_within_seconds(
    browser: Any, server: str, database: Path
) -> None:
    with phone(browser, service_workers="block") as (context, page):
        page.goto(f"{server}/review")
        stored(page)
        context.set_offline(True)
        for key in ("3", "4", "3"):
            card = reveal(page)
            page.keyboard.press(key)
            next_card(page, card)
        says(page, "3 grades waiting")
        assert "Offline" in page.locator("#sync-status").inner_text()
        given = waiting(page)

        held = Held(page)
        context.set_offline(False)
        back = time.monotonic()
        # The `online` event sends at once (not at the next retry), and the bar says so.
        while not held.routes:
            assert time.monotonic() - back < 1, "no sync within 1 s of the network's return"
            page.wait_for_timeout(20)
        says(page, "Sending 3 grades")
        status = page.locator("#sync-status").inner_text()
        assert "Offline" not in status, status
        held.release()
        while len(logs(database)) < 3:
            assert time.monotonic() - back < 3, "the server's count did not move within 3 s"
            page.wait_for_timeout(20)
        says(page, "3 grades sent")
        page.wait_for_selector("#review-session:not([data-offline])")
    assert [key for key, *_ in logs(database)] == [g["idempotency_key"] for g in given]


def test_a_card_the_server_schedules_otherwise_is_fetched_again(
    browser: Any, server: str, database: Path
) -> None:
    snapshot_taken = "RingsideOffline.loadSnapshot().then((s) => s.requested_at)"
    with phone(browser, service_workers="block") as (_context, page):
        page.goto(f"{server}/review")
        stored(page)
        page.wait_for_function("() => document.documentElement.dataset.reviewReady === '1'")
        taken = page.evaluate(snapshot_taken)
        order = page.evaluate("RingsideOffline.loadSnapshot().then((s) => s.queue)")
        first, second = order[0], order[1]

        # The device and the server agree on the first card: no need to ask the server again.
        assert reveal(page) == first
        page.keyboard.press("3")
        next_card(page, first)
        server_has(database, 1)
        assert len(logs(database)) == 1
        assert page.evaluate(snapshot_taken) == taken

        # Elsewhere (a script, another device), the second card is graded Easy: the server
        # now has it in review, the device still thinks it new.
        with httpx.Client(base_url=server) as api:
            answer = api.post(
                f"/api/review/{second}", json={"rating": 4, "idempotency_key": "elsewhere"}
            )
            assert answer.status_code == 200, answer.text
        assert reveal(page) == second
        page.keyboard.press("3")  # on the device: a learning step; on the server: days away
        next_card(page, second)
        until(page, f"{snapshot_taken}.then((at) => at > {taken})", 5)
        fresh = page.evaluate("RingsideOffline.loadSnapshot()")
        assert second not in fresh["queue"]
    assert [card for _key, _rating, card, _at in logs(database)] == [first, second, second]


def test_topics_read_online_are_there_to_read_offline(browser: Any, tmp_path: Path) -> None:
    # The real content: its topics have figures.
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'real.db'}", content_dir=REAL_CONTENT)
    with serving(create_app(settings)) as url, phone(browser) as (context, page):
        # The very first page opened: no worker controls it yet.
        page.goto(f"{url}/topics/ring-allreduce")
        title = page.locator("h1").inner_text()
        figures = page.locator("figure.figure svg").count()
        assert figures > 0
        styled = (
            "[document.body, document.querySelector('.site-header'),"
            " document.querySelector('figure.figure')].map((e) => { const s = getComputedStyle(e);"
            " return [s.fontFamily, s.display, s.borderBottomWidth, s.maxWidth].join('|') })"
        )
        looks = page.evaluate(styled)
        kept = (
            "caches.keys().then((names) => Promise.all(names.filter((n) =>"
            " n.startsWith('ringside-pages-')).map((n) => caches.open(n).then((c) =>"
            " c.match(location.origin + '/topics/ring-allreduce')))))"
            ".then((found) => found.some(Boolean))"
        )
        # Left at once for the review (for the same plane ride), before any worker ran: the
        # next page the worker controls has it kept.
        ready_offline(page, url)
        until(page, kept, 30)

        context.set_offline(True)
        page.goto(f"{url}/topics/ring-allreduce")
        assert page.locator("h1").inner_text() == title
        assert page.locator("figure.figure svg").count() == figures
        # Styled as online: the app's style sheets are there, not only the browser's defaults.
        assert page.evaluate(styled) == looks
        assert page.evaluate(
            "[...document.styleSheets].every((s) => { try { return s.cssRules.length > 0 }"
            " catch (e) { return false } })"
        ), "a style sheet is missing offline"
        page.set_viewport_size({"width": 390, "height": 844})
        screenshot(page, "topic-offline-phone")

        # A topic never opened says so, and lists the ones that can be read.
        page.goto(f"{url}/topics/zero-memory")
        assert page.locator("h1").inner_text() == "You are offline"
        assert "never opened on this device" in page.locator(".offline-why").inner_text()
        saved = page.locator("#saved-topics a")
        saved.first.wait_for()
        assert saved.all_inner_texts() == [title]
        screenshot(page, "topic-never-opened-offline")

        # And the review works in the same offline session.
        page.goto(f"{url}/review")
        page.wait_for_selector("#review-session[data-offline='1'][data-card]")


def test_the_last_card_online_ends_on_the_servers_page_and_undo_brings_it_back(
    browser: Any, server: str, database: Path
) -> None:
    with phone(browser, service_workers="block") as (_context, page):
        page.goto(f"{server}/review")
        stored(page)
        order = page.evaluate("RingsideOffline.loadSnapshot().then((s) => s.queue)")
        seen = []
        while page.locator("#review-session").get_attribute("data-card"):
            page.keyboard.press("Escape")  # out of a numeric card's answer box
            seen.append(reveal(page))
            page.keyboard.press("4")  # Easy: each card leaves today's queue
            next_card(page, seen[-1])
        assert seen == order
        # Once the server has every grade, its own page says what is next.
        done = page.locator("#review-session .review-done")
        done.get_by_text("Done for today").wait_for()
        assert f"{len(order)} cards reviewed today" in done.inner_text()
        assert len(logs(database)) == len(order)
        screenshot(page, "review-done-online-phone")

        page.keyboard.press("u")
        page.wait_for_function(
            "card => document.querySelector('#review-session')?.dataset.card === card",
            arg=order[-1],
        )
        assert f"{len(order) - 1} done" in page.locator(".review-progress").inner_text()
    assert len(logs(database)) == len(order) - 1


def test_a_topic_filter_keeps_its_own_queue_on_the_device(
    browser: Any, server: str, database: Path
) -> None:
    with phone(browser, service_workers="block") as (_context, page):
        page.goto(f"{server}/review?topic=beta")
        mine = "RingsideOffline.loadSnapshot('topic=beta')"
        until(page, f"{mine}.then((s) => Boolean(s))")
        assert page.evaluate(f"{mine}.then((s) => s.queue)") == ["beta-derive", "beta-order"]
        first = reveal(page)
        assert first == "beta-derive"
        page.keyboard.press("3")
        next_card(page, first)
        assert page.locator("#review-session").get_attribute("data-card") == "beta-order"
        server_has(database, 1)
    assert [card for _key, _rating, card, _at in logs(database)] == ["beta-derive"]


def test_offline_a_card_graded_again_comes_back_when_its_step_ends(
    browser: Any, server: str
) -> None:
    with phone(browser, service_workers="block") as (context, page):
        page.clock.install()  # the page's clock, moved by the test below
        page.goto(f"{server}/review")
        stored(page)
        context.set_offline(True)
        again = reveal(page)
        page.keyboard.press("1")  # Again: a one-minute learning step
        next_card(page, again)
        while card := page.locator("#review-session").get_attribute("data-card"):
            page.keyboard.press("Escape")
            reveal(page)
            page.keyboard.press("4")
            next_card(page, card)
        done = page.locator("#review-session .review-done")
        assert "Done for now" in done.inner_text()
        assert "The next card comes due at" in done.inner_text()
        page.clock.fast_forward("01:05")
        page.wait_for_function(
            "card => document.querySelector('#review-session')?.dataset.card === card", arg=again
        )
        # One grade for each card of the day, all still on the device.
        order = page.evaluate("RingsideOffline.loadSnapshot().then((s) => s.queue)")
        assert [g["card_id"] for g in waiting(page)] == order

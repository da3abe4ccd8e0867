"""Review anywhere, in a real browser on a phone-sized screen: grade offline, reload offline,
come back online and find exactly those grades on the server with the times they were given;
the network dropping during the sync; 100 grades over a phone-class connection; an upgrade of
the service worker that leaves no old cache behind."""

import asyncio
import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request, Response

from app.config import Settings
from app.main import create_app
from tests.browser.conftest import screenshot, watched_page
from tests.conftest import FIXTURE_CONTENT
from tests.servers import free_port, serving

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def make_app(database: Path, version: str | None = None) -> FastAPI:
    settings = Settings(database_url=f"sqlite:///{database}", content_dir=FIXTURE_CONTENT)
    application = create_app(settings)
    if version is not None:  # as if Ringside had been upgraded
        application.version = version
        application.state.templates.env.globals["version"] = version
    return application


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return tmp_path / "offline.db"


@pytest.fixture
def server(database: Path) -> Iterator[str]:
    with serving(make_app(database)) as url:
        yield url


@contextmanager
def phone(browser: Any, scheme: str = "light", **options: Any) -> Iterator[tuple[Any, Any]]:
    """A phone-sized context and page that fail the test on a script error or a CSP refusal."""
    with watched_page(browser, viewport=PHONE, color_scheme=scheme, **options) as page:
        yield page.context, page


def logs(database: Path) -> list[tuple[str, int, str, str]]:
    """The server's review log: (idempotency key, rating, card, reviewed_at), in write order."""
    with sqlite3.connect(database) as connection:
        rows = connection.execute(
            "SELECT idempotency_key, rating, card_id, reviewed_at FROM review_logs ORDER BY id"
        ).fetchall()
    return [(key, rating, card, at) for key, rating, card, at in rows]


def moment(text: str) -> datetime:
    """A time from the browser (ISO with Z) or from SQLite (naive UTC), as aware UTC."""
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def ready_offline(page: Any, url: str) -> None:
    """Open the review page online until the service worker controls it and the cards for
    offline review are stored."""
    page.goto(f"{url}/review")
    page.evaluate("navigator.serviceWorker.ready")
    page.reload()  # now controlled by the worker
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    stored(page)


def stored(page: Any) -> None:
    """Wait until the cards for offline review are stored on the device."""
    deadline = time.monotonic() + 10
    while not page.evaluate("RingsideOffline.loadSnapshot().then((s) => Boolean(s))"):
        assert time.monotonic() < deadline, "the cards for offline review were not stored"
        time.sleep(0.05)


def waiting(page: Any) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = page.evaluate(
        "RingsideOffline.waiting().then((g) => g.sort((a, b) => a.seq - b.seq))"
    )
    return result


def grade_current(page: Any, key: str) -> str:
    """Show the answer of the card on screen and grade it with a key; returns its id."""
    session = page.locator("#review-session")
    card = str(session.get_attribute("data-card"))
    assert card, "no card to grade"
    page.locator("#review-session .card-answer > summary").click()
    page.keyboard.press(key)
    page.wait_for_function(
        "card => document.querySelector('#review-session')?.dataset.card !== card", arg=card
    )
    return card


def says(page: Any, text: str) -> None:
    """Wait until the sync bar says `text`: it is redrawn after the grade is stored."""
    page.wait_for_function(
        "text => document.querySelector('#sync-status')?.textContent.includes(text)", arg=text
    )


def test_review_offline_reload_and_sync(browser: Any, server: str, database: Path) -> None:
    with phone(browser) as (context, page):
        ready_offline(page, server)
        # Chromium finds nothing missing to install it as an app (manifest, icons, worker).
        # (A Playwright context is like a private window, which Chromium never installs from.)
        cdp = context.new_cdp_session(page)
        installable = cdp.send("Page.getInstallabilityErrors")
        cdp.detach()
        problems = [
            e for e in installable["installabilityErrors"] if e["errorId"] != "in-incognito"
        ]
        assert problems == []
        first = page.locator("#review-session").get_attribute("data-card")
        context.set_offline(True)

        graded = [grade_current(page, "3"), grade_current(page, "4")]
        bar = page.locator("#sync-status")
        says(page, "2 grades waiting")  # the bar is redrawn once the grade is stored
        assert "Offline" in bar.inner_text() and "2 grades waiting" in bar.inner_text()
        assert graded[0] == first

        # A reload with no network: the service worker's copy of the page, this device's cards.
        page.reload()
        page.wait_for_selector("#review-session[data-offline='1'][data-card]")
        says(page, "2 grades waiting")
        assert "2 grades waiting" in bar.inner_text()
        assert page.locator("#review-session").get_attribute("data-card") not in graded
        labels = page.locator("#review-session .grade small").all_text_contents()
        assert len(labels) == 4 and all(labels), labels
        # A numeric card cannot be checked offline: it says so and the page stays.
        page.locator("#review-session .drill-form input[name=answer]").fill("12")
        page.keyboard.press("Enter")
        result = page.locator("#review-session .drill-result")
        page.wait_for_function(
            "() => document.querySelector('#review-session .drill-result').textContent !== ''"
        )
        assert "Offline" in result.inner_text()
        page.keyboard.press("Escape")

        graded.append(grade_current(page, "2"))
        # Undo takes back the grade not yet sent; the card comes back.
        page.keyboard.press("u")
        page.wait_for_function(
            "card => document.querySelector('#review-session')?.dataset.card === card",
            arg=graded[-1],
        )
        says(page, "2 grades waiting")
        assert "2 grades waiting" in bar.inner_text()
        graded[-1] = grade_current(page, "1")
        given = waiting(page)
        assert [g["card_id"] for g in given] == graded
        assert [g["rating"] for g in given] == [3, 4, 1]
        screenshot(page, "review-offline-phone")
        assert logs(database) == []

        context.set_offline(False)
        page.wait_for_function("() => document.querySelector('#sync-bar').dataset.waiting === '0'")
        page.wait_for_selector("#review-session:not([data-offline])")  # the server's session again

    landed = logs(database)
    assert [(key, rating, card) for key, rating, card, _at in landed] == [
        (g["idempotency_key"], g["rating"], g["card_id"]) for g in given
    ]
    for (_key, _rating, _card, at), grade in zip(landed, given, strict=True):
        assert abs(moment(at) - moment(grade["reviewed_at"])) < timedelta(milliseconds=1)


def test_the_network_drops_during_the_sync(browser: Any, server: str, database: Path) -> None:
    with phone(browser, "dark", service_workers="block") as (context, page):
        page.goto(f"{server}/review")
        stored(page)
        context.set_offline(True)
        graded = [grade_current(page, key) for key in ("3", "3", "4")]
        given = waiting(page)
        assert [g["card_id"] for g in given] == graded
        page.locator("#review-session .card-answer > summary").click()
        page.locator("#review-session .grade-bar").wait_for(state="visible")
        screenshot(page, "review-offline-phone-dark")

        # The server applies the batch but its answer never arrives, twice.
        lost = []

        def drop_answer(route: Any) -> None:
            if len(lost) < 2:
                route.fetch()  # reaches the server, which records the grades
                lost.append(route.request.url)
                route.abort("connectionreset")
            else:
                route.continue_()

        page.route("**/api/review/sync", drop_answer)
        context.set_offline(False)
        page.wait_for_function("() => document.querySelector('#sync-bar').dataset.waiting === '3'")
        deadline = time.monotonic() + 20
        while len(lost) < 2:
            assert time.monotonic() < deadline, lost
            page.evaluate("window.dispatchEvent(new Event('online'))")  # try again now
            page.wait_for_timeout(100)
        page.evaluate("window.dispatchEvent(new Event('online'))")
        page.wait_for_function("() => document.querySelector('#sync-bar').dataset.waiting === '0'")

    landed = logs(database)
    assert len(lost) == 2
    assert [(key, card) for key, _r, card, _at in landed] == [
        (g["idempotency_key"], g["card_id"]) for g in given
    ]


def test_a_hundred_grades_land_quickly_on_a_phone_connection(
    browser: Any, server: str, database: Path
) -> None:
    with phone(browser, service_workers="block") as (context, page):
        page.goto(f"{server}/review")
        stored(page)
        cards = page.evaluate(
            "RingsideOffline.loadSnapshot().then((s) => s.cards.map((c) => c.card_id))"
        )
        start = datetime.now(UTC) - timedelta(hours=3)
        queued = [
            {
                "idempotency_key": f"bench-{n:03d}",
                "card_id": cards[n % len(cards)],
                "rating": 3,
                "duration_ms": 4000,
                "reviewed_at": (start + timedelta(minutes=n)).isoformat().replace("+00:00", "Z"),
            }
            for n in range(100)
        ]
        # Queued as the page queues offline grades; no event starts a sync but the one timed.
        page.evaluate(
            "async (grades) => { for (const g of grades) await RingsideOffline.add(g); }", queued
        )
        # A phone on a mediocre mobile network (Lighthouse's "slow 4G"): 150 ms round trips,
        # 1.6 Mbit/s down, 750 kbit/s up.
        cdp = context.new_cdp_session(page)
        cdp.send(
            "Network.emulateNetworkConditions",
            {
                "offline": False,
                "latency": 150,
                "downloadThroughput": 1_600_000 / 8,
                "uploadThroughput": 750_000 / 8,
            },
        )
        elapsed = page.evaluate(
            """async () => {
                const start = performance.now();
                const result = await RingsideOffline.sync();
                return { ms: performance.now() - start, ...result };
            }"""
        )
    print(f"100 grades synced in {elapsed['ms']:.0f} ms")
    assert elapsed["sent"] == 100 and elapsed["rejected"] == 0
    assert elapsed["ms"] < 5000
    assert elapsed["ms"] > 2 * 150  # two batches, each a throttled round trip
    landed = logs(database)
    assert [key for key, *_ in landed] == [g["idempotency_key"] for g in queued]


def test_an_upgrade_leaves_no_old_cache_and_no_grade_behind(browser: Any, database: Path) -> None:
    port = free_port()  # one origin for both versions, as for a server that is upgraded
    names = "caches.keys().then((names) => names.sort())"

    def caches_become(page: Any, wanted: list[str]) -> list[str]:
        """Wait for the caches to be these, named by kind and version (before the digest)."""
        deadline = time.monotonic() + 15
        while True:
            found: list[str] = page.evaluate(names)
            if [name.rsplit("-", 1)[0] for name in found] == wanted:
                return found
            assert time.monotonic() < deadline, found
            time.sleep(0.1)

    with phone(browser) as (context, page):
        with serving(make_app(database, "1.0.0"), port) as url:
            ready_offline(page, url)
            page.goto(f"{url}/")  # a page kept for reading offline
            page.goto(f"{url}/review")
            caches_become(page, ["ringside-pages-1.0.0", "ringside-shell-1.0.0"])
            context.set_offline(True)
            grade_current(page, "3")
            given = waiting(page)
        context.set_offline(False)

        with serving(make_app(database, "1.1.0"), port) as url:
            page.goto(f"{url}/review")
            page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
            # The new worker installs (it fetches every static file: seconds on a busy machine),
            # then takes over and deletes both caches of the old version.
            until(page, SETTLED, 60)
            (shell,) = caches_become(page, ["ringside-shell-1.1.0"])
            kept = f"caches.open('{shell}').then((c) => c.keys())"
            paths = {
                key["url"].removeprefix(url)
                for key in page.evaluate(
                    f"{kept}.then((keys) => keys.map((k) => ({{ url: k.url }})))"
                )
            }
            assert {"/static/js/review.js", "/static/css/app.css", "/review/shell"} <= paths
            # The grade given under the old version is sent by the new one.
            page.wait_for_function(
                "() => document.querySelector('#sync-bar').dataset.waiting === '0'"
            )
            assert [key for key, *_ in logs(database)] == [g["idempotency_key"] for g in given]
            # And the review page still works offline after the upgrade.
            stored(page)
            page.goto(f"{url}/")  # kept for reading offline, by the new version
            page.goto(f"{url}/review")
            stored(page)
            context.set_offline(True)
            page.reload()
            page.wait_for_selector("#review-session[data-offline='1']")
            assert "1.1.0" in page.locator(".site-footer").inner_text()
            # A page opened online is there offline; one never opened says what works.
            page.goto(f"{url}/")
            assert page.locator(".topic-item").count() > 0
            page.goto(f"{url}/stats")
            assert page.locator("h1").inner_text() == "You are offline"
            screenshot(page, "offline-page")


# The registration has an active worker and none installing or waiting.
SETTLED = (
    "navigator.serviceWorker.getRegistration()"
    ".then((r) => Boolean(r?.active && !r.installing && !r.waiting))"
)


# The registration's workers and their states, for a failure message.
WORKERS = """navigator.serviceWorker.getRegistration().then((r) => r && {
  installing: r.installing?.state, waiting: r.waiting?.state, active: r.active?.state,
  controlled: navigator.serviceWorker.controller !== null })"""


def until(page: Any, expression: str, timeout_s: float = 15) -> None:
    """Wait until `expression` is true in the page, evaluated from the test."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            workers, caches = page.evaluate(f"Promise.all([{WORKERS}, caches.keys()])")
            raise AssertionError(f"never true: {expression}; workers {workers}, caches {caches}")
        time.sleep(0.05)


def test_a_page_loaded_while_the_worker_activates_is_claimed(browser: Any, database: Path) -> None:
    """clients.claim() on activation skips a page whose response has not arrived yet; that
    page asks the worker to claim it, rather than staying without one (and without its
    offline copy) until its next navigation. Found as a mock page that was never controlled."""
    application = make_app(database)
    install = threading.Event()  # let the worker finish installing
    arrived = threading.Event()  # the page's request reached the server
    answer = threading.Event()  # let the server answer it

    async def until_set(event: threading.Event) -> None:
        while not event.is_set():
            await asyncio.sleep(0.02)

    @application.middleware("http")
    async def hold(request: Request, call_next: Any) -> Response:
        if request.url.path == "/offline":  # the last page the worker fetches as it installs
            await until_set(install)
        elif request.url.path == "/glossary":
            arrived.set()
            await until_set(answer)
        response: Response = await call_next(request)
        return response

    with serving(application) as url, phone(browser) as (context, page):
        page.goto(f"{url}/")
        until(page, "navigator.serviceWorker.getRegistration().then((r) => Boolean(r?.installing))")
        page.evaluate("location.href = '/glossary'")
        assert arrived.wait(15), "the page's request never reached the server"
        install.set()  # the worker activates and claims the pages open now: not this one
        other = context.new_page()
        other.goto(f"{url}/offline")
        activated = "navigator.serviceWorker.getRegistration().then((r) => r?.active?.state)"
        until(other, f"{activated}.then((state) => state === 'activated')")
        answer.set()
        page.wait_for_url(f"{url}/glossary")
        until(page, "navigator.serviceWorker.controller !== null", 10)


def test_the_mock_page_says_it_is_offline_and_keeps_every_word(browser: Any, server: str) -> None:
    text = "Reduce-scatter, then all-gather: each moves (N-1)/N of the buffer."
    with phone(browser) as (context, page):
        page.goto(f"{server}/mock")
        page.fill("#questions", "1")
        page.fill("#minutes", "5")
        page.click("form.settings-form > button")
        page.wait_for_url(re.compile(r"/mock/\d+$"))
        api = page.url.replace("/mock/", "/api/mock/")
        page.click(".mock-start button")
        box = page.locator("textarea#answer")
        box.wait_for()
        # Polled from here, not with wait_for_function: the mock page's CSP refuses the eval
        # that a page-side predicate needs. First the worker's install (it fetches every
        # static file, which takes seconds on a busy machine), then this page's claim.
        until(page, SETTLED, 60)
        until(page, "navigator.serviceWorker.controller !== null")
        banner = page.locator(".connection-status")
        assert banner.is_hidden()

        context.set_offline(True)
        box.click()
        page.keyboard.type(text)
        assert "Offline: keep writing" in banner.inner_text()
        until(page, "document.querySelector('.save-state').textContent.includes('offline')")
        # Submitting offline stays on the page and says when it will be sent.
        page.click(".mock-answer button[type=submit]")
        assert "submitted as soon as the network returns" in banner.inner_text()
        assert box.input_value() == text
        screenshot(page, "mock-offline-phone")

        context.set_offline(False)
        page.locator(".followup-question").wait_for()  # submitted once the network returned
        assert banner.count() == 0 or banner.is_hidden()
        assert page.request.get(api).json()["questions"][0]["answer"] == text


def test_a_refused_grade_is_shown_until_dismissed(
    browser: Any, server: str, database: Path
) -> None:
    with phone(browser, service_workers="block") as (context, page):
        page.goto(f"{server}/review")
        stored(page)
        old = (datetime.now(UTC) - timedelta(days=8)).isoformat().replace("+00:00", "Z")
        recent = (datetime.now(UTC) - timedelta(hours=1)).isoformat().replace("+00:00", "Z")
        grades = [
            {
                "idempotency_key": "too-old",
                "card_id": "alpha-busbw",
                "rating": 3,
                "duration_ms": 1000,
                "reviewed_at": old,
            },
            {
                "idempotency_key": "fine",
                "card_id": "beta-order",
                "rating": 4,
                "duration_ms": 1000,
                "reviewed_at": recent,
            },
        ]
        page.evaluate(
            "async (grades) => { for (const g of grades) await RingsideOffline.add(g); }", grades
        )
        page.reload()
        refused = page.locator("#sync-rejected li")
        refused.wait_for()
        assert refused.count() == 1
        assert (
            "alpha-busbw" in refused.inner_text()
            and "reviewed_at is more than 7 days ago" in refused.inner_text()
        )
        page.wait_for_function("() => document.querySelector('#sync-bar').dataset.waiting === '0'")
        screenshot(page, "review-refused-grade")
        refused.get_by_role("button", name="Dismiss").click()
        page.wait_for_function("() => document.querySelector('#sync-rejected').hidden")
        page.reload()
        assert page.locator("#sync-rejected li").count() == 0
    assert [key for key, *_ in logs(database)] == ["fine"]

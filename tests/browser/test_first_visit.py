"""A first visit in a real browser, on a phone at 01:22 in Los Angeles: the browser's time zone
is taken (the page loads again in it and says the study day is still yesterday's, which in
UTC, 09:22, it is not), the first steps point to reading, and hiding them lasts. A second
browser in another zone is offered its zone, never switched unasked."""

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from app.config import Settings
from app.main import create_app
from tests.browser.conftest import screenshot, watched_page
from tests.conftest import FIXTURE_CONTENT, FakeClock
from tests.servers import serving

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
LA_0122 = datetime(2026, 12, 2, 9, 22, tzinfo=UTC)  # 01:22 on Wednesday 2 December there
STILL_YESTERDAY = "Your study day runs until 4:00; it still counts as Tuesday 1 December."


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'b.db'}", content_dir=FIXTURE_CONTENT)
    with serving(create_app(settings, clock=FakeClock(LA_0122))) as url:
        yield url


def stored_zone(page: Any, server: str) -> str:
    zone: str = page.request.get(f"{server}/api/settings/review").json()["timezone"]
    return zone


def fits(page: Any) -> bool:
    width: int = page.evaluate("document.documentElement.scrollWidth")
    return width <= page.viewport_size["width"]


def test_a_first_visit_takes_the_zone_and_shows_where_to_start(browser: Any, server: str) -> None:
    with watched_page(browser, viewport=PHONE, timezone_id="America/Los_Angeles") as page:
        page.goto(f"{server}/")
        # The script sends the zone and loads the page again in it.
        page.locator('form.zone-offer[data-zone="America/Los_Angeles"]').wait_for(state="attached")
        assert page.get_by_text(STILL_YESTERDAY).is_visible()
        assert stored_zone(page, server) == "America/Los_Angeles"
        assert page.locator("form.zone-offer").is_hidden()  # same zone: nothing to offer
        path = page.locator("section.first-week")
        assert path.is_visible()
        read = path.get_by_role("link", name="Read Alpha topic")
        assert read.is_visible() and read.get_attribute("href") == "/topics/alpha"
        assert page.get_by_role("link", name="Review now").count() == 0
        assert fits(page), "the home page is wider than the phone"
        screenshot(page, "first-visit-phone")

        path.get_by_role("button", name="Hide this").click()
        page.wait_for_url(f"{server}/")
        assert page.locator("section.first-week").count() == 0
        assert page.get_by_role("link", name="Review now").is_visible()
        page.reload()
        assert page.locator("section.first-week").count() == 0  # it stays hidden

        # With a loop date: the countdown in calendar days, the first row the study day.
        token = page.locator('meta[name="csrf-token"]').get_attribute("content")
        plan = {"loop_date": "2026-12-23", "daily_minutes": 45}
        saved = page.request.put(f"{server}/api/plan", data=plan, headers={"X-CSRF-Token": token})
        assert saved.ok, saved.text()
        page.reload()
        assert page.get_by_role("heading", name="Loop in 21 days").is_visible()
        page.locator("details.plan-days summary").click()
        first_row = page.locator("details.plan-days tbody tr").first.inner_text()
        assert first_row.startswith("Tue 1 Dec today"), first_row
        assert fits(page), "the home page with its plan is wider than the phone"
        screenshot(page, "first-visit-plan-phone")


def test_another_zone_later_is_offered_not_taken(browser: Any, server: str) -> None:
    with watched_page(browser, viewport=PHONE, timezone_id="America/Los_Angeles") as page:
        page.goto(f"{server}/")
        page.locator('form.zone-offer[data-zone="America/Los_Angeles"]').wait_for(state="attached")
    with watched_page(browser, viewport=DESKTOP, timezone_id="Europe/Berlin") as page:
        page.goto(f"{server}/")
        offer = page.locator("form.zone-offer")
        offer.wait_for(state="visible")
        assert "Your browser is on Europe/Berlin time" in offer.inner_text()
        assert stored_zone(page, server) == "America/Los_Angeles"  # offered, not taken
        assert page.locator("section.first-week").is_visible()  # not hidden in this browser
        screenshot(page, "first-visit-zone-offer-desktop")
        page.set_viewport_size(PHONE)
        assert fits(page), "the offer is wider than the phone"
        screenshot(page, "first-visit-zone-offer-phone")

        assert page.get_by_text(STILL_YESTERDAY).is_visible()  # still counted in LA time
        offer.get_by_role("button", name="Keep America/Los_Angeles").click()
        assert offer.is_hidden()
        page.reload()
        page.wait_for_load_state("load")
        assert page.locator("form.zone-offer").is_hidden()  # "Keep" is remembered
        assert stored_zone(page, server) == "America/Los_Angeles"

        page.evaluate("localStorage.clear()")
        page.reload()
        offer.wait_for(state="visible")
        offer.get_by_role("button", name="Use Europe/Berlin").click()
        page.wait_for_url(f"{server}/")
        assert stored_zone(page, server) == "Europe/Berlin"
        # 10:22 on 2 December in Berlin: the study day and the calendar agree.
        assert page.get_by_text("Your study day runs until").count() == 0
        assert page.locator("form.zone-offer").is_hidden()

"""Interview with a friend, live, in a real browser (issue 28): the candidate's page and the
interviewer's (opened by the invite link, in a browser of its own) follow each other through
their event streams; the rubric stays off the candidate's page until grading; revoking the
link shuts the interviewer's page."""

import re
import time
from typing import Any

from tests.browser.conftest import screenshot, watched_page

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}


def shots(page: Any, name: str) -> None:
    size = page.viewport_size
    for label, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        page.evaluate("() => window.scrollTo(0, 0)")  # the sticky clock bar at the top
        screenshot(page, f"{name}-{label}")
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= viewport["width"], f"{name} is {width} px wide at {viewport['width']}"
    page.set_viewport_size(size)


def test_both_screens_follow_each_other(page: Any, browser: Any, live_server: str) -> None:
    page.goto(f"{live_server}/mock")
    page.locator("#questions").fill("1")
    page.locator("#minutes").fill("5")
    page.locator("input[name=topic][value=alpha]").check()  # its one open card, with a follow-up
    page.locator("form.settings-form > button").click()
    page.wait_for_url(re.compile(r"/mock/\d+$"))
    api = page.url.replace("/mock/", "/api/mock/")
    page.locator(".mock-start button").click()
    page.locator("textarea#answer").wait_for()

    page.locator(".pair-create").click()
    page.locator(".pair-link:not([hidden])").wait_for()
    invite = page.locator(".pair-url").input_value()
    assert re.search(r"/pair/[A-Za-z0-9_-]{43}$", invite), invite

    with watched_page(browser) as friend:
        friend.goto(invite)
        rubric = [t.strip() for t in friend.locator(".pair-points label").all_inner_texts()]
        assert len(rubric) == 3
        # The candidate's page, as it is while answering, holds none of the rubric.
        shown = page.content()
        assert not any(point in shown for point in rubric)

        # While the stream is up the candidate's page asks for nothing: news comes to it.
        fetched: list[float] = []
        page.on("request", lambda r: fetched.append(time.monotonic()) if r.url == api else None)
        time.sleep(2.5)
        assert fetched == [], "the candidate's page polled while its stream was up"

        # The candidate types: the interviewer sees the notes as they autosave.
        page.locator("textarea#answer").fill("Reduce-scatter, then all-gather.")
        notes = friend.locator(".pair-notes")
        notes.filter(has_text="Reduce-scatter, then all-gather.").wait_for(timeout=5000)

        # The interviewer marks a point and chooses the follow-up: the candidate's page says so
        # (that they are at work, not what they marked).
        friend.locator(".pair-points input[value='0']").check()
        activity = page.locator(".interviewer-live")
        activity.filter(has_text="taking notes").wait_for(timeout=5000)
        friend.locator(".pair-followups input[value='0']").check()
        activity.filter(has_text="chosen a follow-up").wait_for(timeout=5000)
        assert len(fetched) == 2  # one fetch for each piece of news, no more
        shown = page.content()
        assert not any(point in shown for point in rubric)
        shots(page, "pair-live-candidate-answering")
        shots(friend, "pair-live-interviewer-answering")

        # The candidate submits: the follow-up the interviewer chose is asked, and their page
        # moves on to it by itself.
        page.locator(".mock-answer button[type=submit]").click()
        page.locator(".followup-question").wait_for()
        friend.locator(".pair-asked:not([hidden])").wait_for(timeout=5000)
        page.locator("textarea#answer").fill("Each of the 2(N-1) steps pays it.")
        page.locator(".mock-answer button[type=submit]").click()
        page.locator(".mock-grade").wait_for()

        # Grading: the interviewer's marks are beside the rubric and follow their changes.
        marks = page.locator(".interviewer-mark:not([hidden])")
        assert marks.count() == 1
        friend.wait_for_function(
            "() => document.querySelector('.pair-page').dataset.step === 'grade'"
        )
        friend.locator(".pair-points input[value='2']").check()
        page.locator(".interviewer-mark[data-point='2']:not([hidden])").wait_for(timeout=5000)
        friend.locator(".pair-rating button[value='3']").click()
        summary = page.locator(".interviewer-marks")
        summary.filter(has_text="marked 2 of 3 points made and proposed Good").wait_for(
            timeout=5000
        )
        shots(page, "pair-live-candidate-grading")
        shots(friend, "pair-live-interviewer-grading")

        # Revoking the link shuts the interviewer's page at once.
        page.locator(".pair-revoke").click()
        error = friend.locator(".pair-error:not([hidden])")
        error.filter(has_text="does not open anything").wait_for(timeout=5000)
        assert friend.locator(".pair-points input").first.is_disabled()  # its fieldset is
        assert friend.request.get(invite).status == 404
        shots(friend, "pair-live-interviewer-revoked")


def test_without_event_source_the_pages_poll(page: Any, browser: Any, live_server: str) -> None:
    """A browser without EventSource (or a proxy that cannot stream) still sees the other side,
    by asking every 2 seconds."""
    no_streams = "delete window.EventSource"
    page.add_init_script(no_streams)
    made = page.request.post(
        f"{live_server}/api/mock", data={"preset": "custom", "questions": 1, "minutes": 5}
    )
    mock_id = made.json()["id"]
    page.request.post(f"{live_server}/api/mock/{mock_id}/start", data={"position": 1})
    invite = page.request.post(f"{live_server}/api/mock/{mock_id}/pair").json()["invite_url"]
    page.goto(f"{live_server}/mock/{mock_id}")
    assert page.evaluate("() => typeof window.EventSource") == "undefined"
    with watched_page(browser) as friend:
        friend.add_init_script(no_streams)
        friend.goto(f"{live_server}{invite}")
        page.locator("textarea#answer").fill("Typed without a stream.")
        friend.locator(".pair-notes").filter(has_text="Typed without a stream.").wait_for()
        friend.locator(".pair-points input[value='1']").check()
        page.locator(".interviewer-live").filter(has_text="taking notes").wait_for()

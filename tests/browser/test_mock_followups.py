"""A mock interview in a real browser asks the follow-up aimed at the point the answer missed,
preselects the suggested rubric points with the words behind each, and the report says why
that follow-up was asked."""

import re
from typing import Any

from tests.browser.audit import audit

# Makes point 1 (reduce-scatter then all-gather) of the fixture's ring card, misses the rest;
# its only follow-up probes point 2 (the (N−1)/N per phase).
ANSWER = "It is a reduce-scatter and then an all-gather around the ring."


def test_the_follow_up_is_aimed_and_explained(page: Any, live_server: str) -> None:
    page.goto(f"{live_server}/mock")
    page.locator("#questions").fill("1")
    page.locator("#minutes").fill("2")
    page.locator("input[name=topic][value=alpha]").check()  # its one open card
    page.locator("form.settings-form > button").click()
    page.wait_for_url(re.compile(r"/mock/\d+$"))
    mock_url = page.url
    api = mock_url.replace("/mock/", "/api/mock/")
    page.locator(".mock-start button").click()

    page.locator("textarea#answer").fill(ANSWER)
    page.locator(".mock-answer button[type=submit]").click()
    page.locator(".followup-question").wait_for()
    assert page.locator(".followup-question").inner_text() == "And the latency term?"
    asked = page.request.get(api).json()["questions"][0]
    assert asked["followup_probes"] == [1]
    assert asked["followup_reason"] == "it probes point 2, which your answer did not make"

    page.locator("textarea#answer").fill("Each of the 2(N-1) steps pays it.")
    page.locator(".mock-answer button[type=submit]").click()
    page.locator(".mock-grade").wait_for()
    points = page.locator(".rubric-check")
    assert points.nth(0).locator("input").is_checked()
    assert "reduce-scatter" in points.nth(0).locator(".suggested-reason").inner_text().lower()
    grading = page.request.get(api).json()["questions"][0]
    checked = [i for i in range(points.count()) if points.nth(i).locator("input").is_checked()]
    assert checked == grading["suggested_points"]
    assert sorted(int(k) for k in grading["suggested_reasons"]) == checked
    audit(page, "mock-grade-reasons")
    page.locator(".mock-grade .grade-3").click()

    page.wait_for_url(f"{mock_url}/report")
    page.locator("details.card > summary").click()
    why = page.locator("details.card .followup-why")
    assert why.inner_text() == "Asked because it probes point 2, which your answer did not make."
    audit(page, "mock-report-followup")

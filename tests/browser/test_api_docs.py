"""In a real browser: /docs shows the API from the app's own files, under its own CSP."""

from typing import Any
from urllib.parse import urlsplit


def test_the_api_docs_work_offline_under_the_apps_csp(browser: Any, module_server: str) -> None:
    page = browser.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    hosts: set[str] = set()
    page.on("request", lambda request: hosts.add(urlsplit(request.url).netloc))
    response = page.goto(f"{module_server}/docs")
    assert response.status == 200
    assert "script-src" not in response.headers["content-security-policy"]  # default-src 'self'
    page.locator(".swagger-ui .info .title").wait_for(timeout=30_000)
    assert "Ringside" in page.locator(".swagger-ui .info .title").inner_text()
    page.locator(".opblock").first.wait_for()
    assert page.locator(".opblock").count() > 10  # the operations are listed
    page.locator(".opblock-summary").first.click()  # and open
    page.locator(".opblock-body").first.wait_for()
    assert hosts == {urlsplit(module_server).netloc}  # nothing from another site
    assert problems == [], problems
    page.close()

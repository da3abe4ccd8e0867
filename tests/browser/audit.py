"""What every page owes its users in a real browser: no serious accessibility faults (axe-core),
a layout that holds at phone and desktop widths in both themes, and reach by keyboard alone."""

from pathlib import Path
from typing import Any

from tests.browser.conftest import screenshot

AXE_SOURCE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text(encoding="utf-8")
WIDTHS = {"phone": 390, "desktop": 1280}
SCHEMES = ("light", "dark")
BLOCKING = ("serious", "critical")


def _target(node: dict[str, Any]) -> str:
    # A target is a list of selectors, nested one level per frame or shadow root crossed.
    return " >> ".join(t if isinstance(t, str) else " ".join(t) for t in node["target"])


def axe_violations(page: Any) -> list[str]:
    """Run axe-core on the page as it is now; one line per serious or critical violation."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        # Evaluated rather than added as a <script>: the app's CSP refuses inline scripts,
        # and the tests keep that CSP on so they see the page as users do.
        page.evaluate(AXE_SOURCE)
    results = page.evaluate("() => axe.run(document, { resultTypes: ['violations'] })")
    return [
        f"{rule['id']} ({rule['impact']}): {rule['help']} — "
        + ", ".join(_target(node) for node in rule["nodes"])
        for rule in results["violations"]
        if rule["impact"] in BLOCKING
    ]


def audit(page: Any, name: str) -> None:
    """Screenshot the page at each width in each theme and fail on any blocking axe violation.

    Both widths and both themes are checked because contrast differs by theme and layout
    (overflow, hidden controls) by width.
    """
    size = page.viewport_size
    problems: list[str] = []
    try:
        for width_name, width in WIDTHS.items():
            page.set_viewport_size({"width": width, "height": 900})
            for scheme in SCHEMES:
                page.emulate_media(color_scheme=scheme)
                screenshot(page, f"{name}-{width_name}-{scheme}")
                problems += [f"  {width_name}, {scheme}: {v}" for v in axe_violations(page)]
    finally:
        page.set_viewport_size(size)
        page.emulate_media(color_scheme="light")
    assert not problems, f"axe-core found on {name} ({page.url}):\n" + "\n".join(problems)


def focused(page: Any) -> str:
    """A short description of the element with focus, for failure messages."""
    return str(
        page.evaluate(
            """() => {
              const e = document.activeElement;
              if (!e || e === document.body) return "(body)";
              const text = (e.innerText || e.value || e.getAttribute("aria-label") || "").trim();
              return `${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""} "${text.slice(0, 40)}"`;
            }"""
        )
    )


def tab_to(page: Any, selector: str, limit: int = 120, key: str = "Tab") -> None:
    """Press Tab until the element matching `selector` has focus; fail if it never gets it."""
    seen: list[str] = []
    for _ in range(limit):
        page.keyboard.press(key)
        if page.evaluate("s => document.activeElement?.matches(s) ?? false", selector):
            return
        seen.append(focused(page))
    raise AssertionError(
        f"{key} never reached {selector} in {limit} presses on {page.url}; focus went: "
        + " → ".join(seen[:40])
    )


def keyboard_reaches(page: Any, selectors: list[str]) -> None:
    """From a freshly loaded page, Tab reaches the skip link first, then each control in order."""
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement?.matches('a.skip-link')"), (
        f"the first Tab on {page.url} should reach the skip link, not {focused(page)}"
    )
    for selector in selectors:
        tab_to(page, selector)

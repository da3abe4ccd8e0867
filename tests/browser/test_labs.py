"""Each lab renders its result, its presets are links that work from the keyboard, and a
mistyped value is reported where a keyboard or screen-reader user finds it."""

from typing import Any

import pytest

from app.web.labs import LABS
from tests.browser.audit import audit, focused, keyboard_reaches

pytestmark = pytest.mark.browser


def test_labs_index_lists_every_lab(page: Any, module_server: str) -> None:
    page.goto(f"{module_server}/labs")
    titles = page.locator(".lab-list h2 a").all_inner_texts()
    assert titles == [spec.title for spec in LABS.values()]
    audit(page, "labs")
    keyboard_reaches(page, [f".lab-list a[href='/labs/{name}']" for name in LABS])


@pytest.mark.parametrize("name", list(LABS))
def test_lab_renders_and_a_preset_link_works(page: Any, module_server: str, name: str) -> None:
    spec = LABS[name]
    response = page.goto(f"{module_server}/labs/{name}")
    assert response is not None and response.status == 200
    assert page.locator("h1").inner_text() == spec.title
    assert page.locator(".lab-result table").count() >= 1, "the defaults show a result"
    default = next(p.label for p in spec.presets if not p.values)
    assert page.locator(".presets a[aria-current=true]").all_inner_texts() == [default]
    audit(page, f"lab-{name}")
    first_field = spec.fields[0].name
    keyboard_reaches(page, [".presets a", f"#f-{first_field}", ".form-actions button"])

    # The last preset, followed from the keyboard, fills the form and shows its result.
    preset = spec.presets[-1]
    assert preset.values, "the last preset should differ from the defaults"
    page.goto(f"{module_server}/labs/{name}")
    link = f".presets li:nth-child({len(spec.presets)}) a"
    keyboard_reaches(page, [link])
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.locator(link).get_attribute("aria-current") == "true", page.url
    assert page.locator(".lab-result table").count() >= 1
    for field, value in preset.values.items():
        box = page.locator(f"#f-{field}")
        if box.get_attribute("type") == "checkbox":
            assert box.is_checked() == (value == "1"), field
        else:
            assert box.input_value() == value, field
    audit(page, f"lab-{name}-preset")


def test_a_mistyped_value_is_reported_and_reachable(page: Any, module_server: str) -> None:
    page.goto(f"{module_server}/labs/memory")
    keyboard_reaches(page, ["#f-params"])
    page.keyboard.press("Control+A")
    page.keyboard.type("seven")
    with page.expect_navigation() as navigation:
        page.keyboard.press("Enter")
    assert navigation.value.status == 422
    summary = page.locator("#error-summary")
    assert "Parameters" in summary.inner_text()
    assert page.locator("#f-params").get_attribute("aria-invalid") == "true"
    audit(page, "lab-error")
    # The summary links to the field: following it puts the cursor there, ready to retype.
    keyboard_reaches(page, ["#error-summary a[href='#f-params']"])
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "f-params", focused(page)
    page.keyboard.press("Control+A")
    page.keyboard.type("7e9")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.locator("#error-summary").count() == 0
    assert page.locator(".lab-result .verdict").is_visible()

"""Figures: SVG files under content/figures, checked once and inlined into the page.

Inline (not <img>) so that a figure takes the page's colours in both themes: every colour comes
from a class in static/css/figures.css. The page's Content-Security-Policy refuses inline styles
and scripts, so a figure may carry neither; `check` enforces that, and that each figure has the
<title> and <desc> a screen reader reads in its place.
"""

import re
import xml.etree.ElementTree as ET
from html import escape
from pathlib import Path

SVG_NS = "http://www.w3.org/2000/svg"
MAX_WIDTH = 640  # viewBox units: wider figures are unreadable once scaled to a phone
NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

#: The classes static/css/figures.css defines (tests/content/test_figures.py keeps them in step).
CLASSES = frozenset(
    {
        "f-line",
        "f-thin",
        "f-dash",
        "f-box",
        "f-panel",
        "f-fill-1",
        "f-fill-2",
        "f-fill-3",
        "f-fill-4",
        "f-stroke-1",
        "f-stroke-2",
        "f-stroke-3",
        "f-stroke-4",
        "f-hi",
        "f-text",
        "f-small",
        "f-bold",
        "f-on-fill",
        "f-arrow",
        "f-arrowhead",
        "f-step-current",
    }
)
_FORBIDDEN_TAGS = {"script", "style", "foreignObject", "image", "a", "iframe", "audio", "video"}
_COLOUR_ATTRIBUTES = {"fill", "stroke", "color", "stop-color", "flood-color", "lighting-color"}
_COLOUR_VALUES = re.compile(r"^(none|currentColor|url\(#[A-Za-z0-9_-]+\))$")

ET.register_namespace("", SVG_NS)


class FigureProblem(Exception):
    """Why a figure file cannot be shown; the loader adds the topic file and line."""


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def load(figures_dir: Path, name: str) -> str:
    """The figure's SVG, checked, with its accessible name and description wired up.

    Wrapped in a region that scrolls sideways on a narrow phone (the keyboard reaches it, as
    for wide tables). A figure drawn in steps (`data-step` on its parts) shows step 0 until
    static/js/figure-steps.js adds the buttons that walk through the rest.
    """
    if not NAME.match(name):
        raise FigureProblem(f"figure name {name!r}: use lowercase words joined by '-'")
    path = figures_dir / f"{name}.svg"
    try:
        root = ET.fromstring(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FigureProblem(f"figure {name!r}: no file content/figures/{name}.svg") from None
    except ET.ParseError as error:
        raise FigureProblem(f"figure {name!r}: not well-formed SVG ({error})") from None
    _check(root, name)
    title, desc = root[0], root[1]
    title.set("id", f"{name}-title")
    desc.set("id", f"{name}-desc")
    root.set("role", "img")
    root.set("aria-labelledby", f"{name}-title")
    root.set("aria-describedby", f"{name}-desc")
    root.set("class", "figure-svg")
    steps = [el for el in root.iter() if el.get("data-step") is not None]
    if steps:
        root.set("data-steps", str(len({el.get("data-step") for el in steps})))
        for element in steps:
            if element.get("data-step") != "0":
                element.set("display", "none")
    label = escape(f"Figure: {(title.text or '').strip()}", quote=True)
    svg = ET.tostring(root, encoding="unicode")
    return f'<div class="figure-scroll" tabindex="0" role="region" aria-label="{label}">{svg}</div>'


def _check(root: ET.Element, name: str) -> None:
    where = f"figure {name!r}"
    if root.tag != f"{{{SVG_NS}}}svg":
        raise FigureProblem(f'{where}: the root must be <svg xmlns="{SVG_NS}">')
    if "width" in root.attrib or "height" in root.attrib:
        raise FigureProblem(f"{where}: no width or height on <svg>: the viewBox sizes it")
    box = (root.get("viewBox") or "").replace(",", " ").split()
    if len(box) != 4:
        raise FigureProblem(f'{where}: <svg> needs viewBox="0 0 W H"')
    if float(box[2]) > MAX_WIDTH:
        raise FigureProblem(f"{where}: viewBox width {box[2]} is over {MAX_WIDTH}")
    children = list(root)
    if (
        len(children) < 2
        or _local(children[0].tag) != "title"
        or _local(children[1].tag) != "desc"
        or not (children[0].text or "").strip()
        or len((children[1].text or "").split()) < 8
    ):
        raise FigureProblem(
            f"{where}: the first children must be <title> and <desc>, the desc a full text "
            "alternative (at least a sentence)"
        )
    steps: set[str] = set()
    for element in root.iter():
        tag = _local(element.tag)
        if tag in _FORBIDDEN_TAGS:
            raise FigureProblem(f"{where}: <{tag}> is not allowed in a figure")
        for attribute, value in element.attrib.items():
            _check_attribute(where, name, _local(attribute), value)
        if (step := element.get("data-step")) is not None:
            steps.add(step)
    if steps and steps != {str(i) for i in range(len(steps))}:
        raise FigureProblem(f"{where}: data-step values must be 0, 1, 2, … without gaps")


def _check_attribute(where: str, name: str, attribute: str, value: str) -> None:
    if attribute == "style" or attribute.startswith("on"):
        raise FigureProblem(f"{where}: the {attribute!r} attribute is not allowed (the CSP)")
    if attribute == "href" and not value.startswith("#"):
        raise FigureProblem(f"{where}: links outside the figure are not allowed ({value!r})")
    if attribute in _COLOUR_ATTRIBUTES and not _COLOUR_VALUES.match(value.strip()):
        raise FigureProblem(
            f"{where}: {attribute}={value!r}: colours come from the f-* classes "
            "(only none, currentColor or url(#id) here)"
        )
    if attribute == "id" and not value.startswith(name):
        raise FigureProblem(f"{where}: id {value!r} must start with the figure's name")
    if attribute == "class":
        unknown = set(value.split()) - CLASSES
        if unknown:
            raise FigureProblem(
                f"{where}: unknown class {sorted(unknown)[0]!r} (see static/css/figures.css)"
            )
    if attribute == "data-step" and not value.isdigit():
        raise FigureProblem(f"{where}: data-step={value!r} must be a step number")

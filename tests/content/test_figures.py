"""Figures: an SVG file shown inline where the essay places it, or a one-line error naming why."""

import re
from pathlib import Path

import pytest

from app import PROJECT_ROOT
from app.content import figures
from app.content.loader import ContentError, load_catalog
from tests.content.helpers import card, write_topic

GOOD = """\
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 120">
<title>Two boxes</title>
<desc>Two boxes side by side, the left one blue and the right one amber.</desc>
<defs><marker id="{name}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6"
 markerHeight="6" orient="auto"><path d="M0 0 L10 5 L0 10 z" class="f-arrowhead"/></marker></defs>
<rect x="10" y="10" width="100" height="60" class="f-fill-1"/>
<rect x="200" y="10" width="100" height="60" class="f-fill-2"/>
<line x1="110" y1="40" x2="200" y2="40" class="f-arrow" marker-end="url(#{name}-arrow)"/>
<text x="20" y="100" class="f-text">left</text>
</svg>
"""

ESSAY = """
## A section

::: figure {name}
The caption says what to notice, with $K/N$ in it.
:::
"""


def write_figure(root: Path, name: str, svg: str) -> None:
    folder = root / "figures"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.svg").write_text(svg.replace("{name}", name), encoding="utf-8")


def error_for(root: Path) -> ContentError:
    with pytest.raises(ContentError) as caught:
        load_catalog(root)
    return caught.value


def test_a_figure_is_inlined_with_its_caption_and_text_alternative(tmp_path: Path) -> None:
    write_figure(tmp_path, "topic-boxes", GOOD)
    write_topic(tmp_path, ESSAY.format(name="topic-boxes") + card())
    topic = load_catalog(tmp_path).topics[0]
    html = "".join(s.html for s in topic.segments)
    figure = re.search(r'<figure class="figure" id="fig-topic-boxes">(.*?)</figure>', html, re.S)
    assert figure is not None
    body = figure.group(1)
    assert 'role="img"' in body
    assert 'aria-labelledby="topic-boxes-title"' in body
    assert 'aria-describedby="topic-boxes-desc"' in body
    assert '<desc id="topic-boxes-desc">Two boxes side by side' in body
    assert "<figcaption>" in body and "<math" in body.split("<figcaption>")[1]
    assert 'aria-label="Figure: Two boxes"' in body  # the scrolling region on a phone
    assert "ns0:" not in body  # serialised in the default SVG namespace


def test_the_figure_caption_is_searchable_text(tmp_path: Path) -> None:
    write_figure(tmp_path, "topic-boxes", GOOD)
    write_topic(tmp_path, ESSAY.format(name="topic-boxes") + card())
    assert "caption says what to notice" in load_catalog(tmp_path).topics[0].plain_text


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (('class="f-fill-1"', 'style="fill:red"'), "'style' attribute"),
        (('class="f-fill-1"', 'fill="#ff0000"'), "colours come from the f-* classes"),
        (('class="f-fill-2"', 'class="f-rainbow"'), "unknown class 'f-rainbow'"),
        (("<title>Two boxes</title>", ""), "first children must be <title> and <desc>"),
        (("</svg>", "<script>alert(1)</script></svg>"), "<script> is not allowed"),
        (("</svg>", "<style>rect{fill:red}</style></svg>"), "<style> is not allowed"),
        (('<rect x="10"', '<rect onclick="x()" x="10"'), "'onclick' attribute"),
        (('viewBox="0 0 400 120"', 'viewBox="0 0 900 120"'), "width 900 is over 640"),
        (('viewBox="0 0 400 120"', 'width="400" viewBox="0 0 400 120"'), "no width or height"),
        (('id="{name}-arrow"', 'id="arrow"'), "must start with the figure's name"),
        (("</svg>", '<image href="https://example.com/x.png"/></svg>'), "<image> is not allowed"),
        (("</svg>", "<svg"), "not well-formed"),
    ],
)
def test_a_figure_that_breaks_a_rule_names_the_rule(
    tmp_path: Path, change: tuple[str, str], fragment: str
) -> None:
    write_figure(tmp_path, "topic-boxes", GOOD.replace(*change, 1))
    path = write_topic(tmp_path, ESSAY.format(name="topic-boxes") + card())
    error = error_for(tmp_path)
    assert error.path == path
    assert error.line == path.read_text().splitlines().index("::: figure topic-boxes") + 1
    assert fragment in error.message, error.message


def test_a_missing_figure_file_is_named(tmp_path: Path) -> None:
    write_topic(tmp_path, ESSAY.format(name="topic-nowhere") + card())
    assert "no file content/figures/topic-nowhere.svg" in error_for(tmp_path).message


def test_a_figure_needs_a_caption(tmp_path: Path) -> None:
    write_figure(tmp_path, "topic-boxes", GOOD)
    write_topic(tmp_path, "\n::: figure topic-boxes\n:::\n" + card())
    assert "needs a caption" in error_for(tmp_path).message


def test_a_figure_is_shown_once_per_topic(tmp_path: Path) -> None:
    write_figure(tmp_path, "topic-boxes", GOOD)
    write_topic(tmp_path, ESSAY.format(name="topic-boxes") * 2 + card())
    assert "already shown" in error_for(tmp_path).message


def test_figures_belong_in_the_essay_not_in_a_card(tmp_path: Path) -> None:
    write_figure(tmp_path, "topic-boxes", GOOD)
    in_card = card().replace(
        "answer: |\n  That.", "answer: |\n  ::: figure topic-boxes\n  A.\n  :::"
    )
    write_topic(tmp_path, in_card)
    assert "figures belong in the essay" in error_for(tmp_path).message


def test_a_figure_in_steps_shows_the_first_step_until_the_script_runs(tmp_path: Path) -> None:
    stepped = GOOD.replace(
        "</svg>",
        '<g data-step="0"><text x="1" y="1" class="f-text">a</text></g>'
        '<g data-step="1" aria-label="Second"><text x="1" y="1" class="f-text">b</text></g>'
        '<g data-step="2"><text x="1" y="1" class="f-text">c</text></g></svg>',
    )
    svg = figures.load(_written(tmp_path, stepped), "topic-steps")
    assert 'data-steps="3"' in svg
    assert '<g data-step="0">' in svg
    assert svg.count('display="none"') == 2


def test_steps_must_be_numbered_without_gaps(tmp_path: Path) -> None:
    gap = GOOD.replace("</svg>", '<g data-step="0"/><g data-step="2"/></svg>')
    with pytest.raises(figures.FigureProblem, match="without gaps"):
        figures.load(_written(tmp_path, gap), "topic-steps")


def _written(root: Path, svg: str) -> Path:
    write_figure(root, "topic-steps", svg)
    return root / "figures"


def test_every_figure_class_is_styled_for_both_themes() -> None:
    css = (PROJECT_ROOT / "static" / "css" / "figures.css").read_text()
    styled = set(re.findall(r"\.figure-svg \.(f-[a-z0-9-]+)", css))
    assert styled == set(figures.CLASSES)
    dark = css.split("prefers-color-scheme: dark", 1)[1].split("}", 2)[0]
    for n in range(1, 5):
        assert f"--fig-{n}:" in dark  # every series colour has a dark-theme value


def test_every_figure_file_of_the_content_is_shown_somewhere() -> None:
    content = PROJECT_ROOT / "content"
    catalog = load_catalog(content)
    html = "".join(s.html for t in catalog.topics for s in t.segments)
    for path in sorted((content / "figures").glob("*.svg")):
        assert f'id="fig-{path.stem}"' in html, f"{path.name} is not placed in any topic"

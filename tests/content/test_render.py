"""Rendering: math to MathML, code through Pygments, anchors, tables, asides, footnotes."""

import pytest

from app.content.catalog import Topic
from app.content.loader import load_catalog
from app.content.mathml import MathError, to_mathml
from app.content.render import Renderer, plain_text
from tests.conftest import FIXTURE_CONTENT


def alpha() -> Topic:
    topic = load_catalog(FIXTURE_CONTENT).topic("alpha")
    assert topic is not None
    return topic


def html_of(topic: Topic) -> str:
    return "".join(s.html for s in topic.segments)


def test_inline_and_display_math_become_mathml() -> None:
    html = html_of(alpha())
    assert '<span class="math inline"><math' in html
    assert 'display="block"' in html
    assert "<mfrac>" in html  # \frac became a real fraction, not text
    assert "\\frac" not in html and "$" not in html


def test_math_inside_table_cells_and_cards() -> None:
    topic = alpha()
    assert '<td><span class="math inline"><math' in html_of(topic)
    ring = next(c for c in topic.cards if c.id == "alpha-ring-bytes")
    assert ring.answer_html is not None and "<math" in ring.answer_html


def test_code_is_highlighted_by_pygments() -> None:
    html = html_of(alpha())
    assert '<pre class="highlight" tabindex="0"><code class="language-python">' in html
    assert '<span class="k">def</span>' in html


def test_headings_get_anchors_and_a_table_of_contents() -> None:
    topic = alpha()
    html = html_of(topic)
    assert '<h2 id="the-ring">' in html and 'href="#the-ring"' in html
    assert '<h3 id="highlighted-code">' in html
    assert [(h.level, h.anchor, h.text) for h in topic.headings] == [
        (2, "the-ring", "The ring"),
        (3, "highlighted-code", "Highlighted code"),
    ]


def test_tables_scroll_on_narrow_screens_and_asides_and_footnotes_render() -> None:
    html = html_of(alpha())
    assert '<div class="table-wrap" tabindex="0" role="region" aria-label="Table"><table>' in html
    assert '<aside class="aside aside-warning"><p class="aside-title">Units</p>' in html
    assert 'class="footnotes"' in html and "Footnotes work." in html


def test_inline_svg_diagrams_pass_through() -> None:
    # Content is reviewed like code, so a topic may draw a diagram in the page.
    html = Renderer().render_text('<svg viewBox="0 0 10 10"><circle r="4"/></svg>\n')
    assert '<svg viewBox="0 0 10 10">' in html


def test_plain_text_for_search_drops_markup_and_spells_out_math() -> None:
    renderer = Renderer()
    text = plain_text(renderer.parse("## Title\n\nSome *bold* words and $\\frac{a}{b}$ math.\n"))
    assert text == "Title Some bold words and a/b math."


@pytest.mark.parametrize("latex", [r"\frac{2(N-1)}{N}K", r"\sqrt{2\delta M}", r"\lceil x \rceil"])
def test_valid_formulas_typeset(latex: str) -> None:
    assert to_mathml(latex).startswith("<math")


def test_escaped_braces_are_not_counted() -> None:
    assert "<math" in to_mathml(r"\{a, b\}")
    with pytest.raises(MathError, match="never closed"):
        to_mathml(r"{a, b\}")

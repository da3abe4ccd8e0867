"""Markdown to HTML, done once at start-up: math as MathML, code through Pygments.

`Renderer.parse` also checks what would otherwise render silently wrong (bad math, an unknown
code language) and raises RenderProblem with the 0-based line in the parsed text.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any, cast

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from app.content.mathml import MathError, to_mathml, to_plain

ASIDES = {"note": "Note", "tip": "Tip", "warning": "Warning"}
CARD_FENCE = "card"
_CARD_MARK = "\x00card:{}\x00"
CARD_MARK_PATTERN = re.compile("\x00card:([a-z0-9-]+)\x00")
FIGURE = "figure"
# Where a figure's SVG goes; the loader puts it there (app.content.figures checks the file).
FIGURE_MARK_PATTERN = re.compile("\x00figure:([^\x00]*)\x00")
_FORMATTER = HtmlFormatter(nowrap=True)


class RenderProblem(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


@dataclass(frozen=True)
class Heading:
    level: int
    anchor: str
    text: str


def _math(content: str, options: dict[str, Any]) -> str:
    mathml = to_mathml(content.strip(), display=bool(options.get("display_mode")))
    if options.get("display_mode"):
        # A wide formula scrolls on a phone: let the keyboard reach it (the block's div is
        # markdown-it's; this wrapper is the scrolling region).
        region = 'class="math-scroll" tabindex="0" role="region" aria-label="Formula"'
        return f"<span {region}>{mathml}</span>"
    return mathml


def _highlight(code: str, lang: str, _attrs: Any) -> str:
    if not lang:
        return ""  # markdown-it escapes and wraps it itself
    body = highlight(code, get_lexer_by_name(lang), _FORMATTER)
    # Returned HTML that starts with <pre is used as it is by markdown-it.
    return (
        f'<pre class="highlight" tabindex="0"><code class="language-{escape(lang)}">'
        f"{body}</code></pre>\n"
    )


def _aside(self: Any, tokens: Sequence[Token], idx: int, _options: Any, _env: Any) -> str:
    token = tokens[idx]
    if token.nesting == -1:
        return "</aside>\n"
    kind, _, title = token.info.strip().partition(" ")
    heading = escape(title.strip() or ASIDES[kind])
    return f'<aside class="aside aside-{kind}"><p class="aside-title">{heading}</p>\n'


def figure_name(info: str) -> str:
    """`figure NAME` → NAME (what follows the container's name on its opening line)."""
    return info.strip().removeprefix(FIGURE).strip()


def _figure(self: Any, tokens: Sequence[Token], idx: int, _options: Any, _env: Any) -> str:
    token = tokens[idx]
    if token.nesting == -1:
        return "</figcaption></figure>\n"
    name = escape(figure_name(token.info))
    return f'<figure class="figure" id="fig-{name}">\x00figure:{name}\x00<figcaption>\n'


def _build() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"highlight": _highlight, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.use(front_matter_plugin)
    md.use(footnote_plugin)
    md.use(dollarmath_plugin, double_inline=True, renderer=_math)
    md.use(anchors_plugin, min_level=2, max_level=3, permalink=True, permalinkSymbol="#")
    for name in ASIDES:
        md.use(container_plugin, name=name, render=_aside)
    md.use(container_plugin, name=FIGURE, render=_figure)

    default_fence = cast(RendererHTML, md.renderer).rules["fence"]

    def fence(_self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        if token.info.strip() == CARD_FENCE:
            return _CARD_MARK.format(token.meta["card_id"])
        return str(default_fence(tokens, idx, options, env))

    md.add_render_rule("fence", fence)
    # Wide tables, formulas and code scroll sideways on a phone; tabindex lets the keyboard
    # scroll them too (axe: scrollable-region-focusable).
    md.add_render_rule(
        "table_open",
        lambda *_: (
            '<div class="table-wrap" tabindex="0" role="region" aria-label="Table"><table>\n'
        ),
    )
    md.add_render_rule("table_close", lambda *_: "</table></div>\n")
    return md


class Renderer:
    """One configured markdown-it; build once, reuse for every file."""

    def __init__(self) -> None:
        self.md = _build()

    def parse(self, text: str) -> list[Token]:
        """Tokens for `text`, after checking every formula and code language in it."""
        tokens = self.md.parse(text)
        _check(tokens)
        return tokens

    def render(self, tokens: list[Token]) -> str:
        return str(self.md.renderer.render(tokens, self.md.options, {}))

    def render_text(self, text: str) -> str:
        """A card field: the same markdown, rendered on its own."""
        return self.render(self.parse(text))

    def plain(self, text: str) -> str:
        """A card field as plain words, for search and titles."""
        return plain_text(self.md.parse(text))

    def render_inline(self, text: str) -> str:
        """A short field (a rubric point, a citation): markdown without the paragraph."""
        tokens = self.md.parseInline(text)
        _check(tokens)
        return str(self.md.renderer.render(tokens, self.md.options, {}))


def _check(tokens: list[Token], line: int = 0) -> None:
    for token in tokens:
        if token.map:
            line = token.map[0]
        try:
            if token.type in ("math_inline", "math_inline_double"):
                to_mathml(token.content.strip(), display=False)
            elif token.type in ("math_block", "math_block_label"):
                to_mathml(token.content.strip(), display=True)
            elif token.type == "fence" and token.info.strip() not in ("", CARD_FENCE):
                get_lexer_by_name(token.info.strip().split()[0])
        except MathError as error:
            raise RenderProblem(line, str(error)) from None
        except ClassNotFound:
            raise RenderProblem(line, f"unknown code language {token.info.strip()!r}") from None
        if token.children:
            _check(token.children, line)


def headings(tokens: list[Token]) -> list[Heading]:
    """The ## and ### headings, for the table of contents."""
    found = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag in ("h2", "h3"):
            text = _heading_text(tokens[index + 1].children or [])
            found.append(Heading(int(token.tag[1]), str(token.attrs.get("id", "")), text.strip()))
    return found


def _heading_text(children: list[Token]) -> str:
    words, in_anchor = [], False
    for child in children:
        if child.type == "link_open" and "header-anchor" in str(child.attrs.get("class", "")):
            in_anchor = True
        elif child.type == "link_close" and in_anchor:
            in_anchor = False
        elif not in_anchor and child.type in ("text", "code_inline"):
            words.append(child.content)
    return "".join(words)


def plain_text(tokens: list[Token]) -> str:
    """The words of a document, for search: text, code and formulas as text, without markup."""
    words: list[str] = []
    for token in tokens:
        if token.type == "inline":
            for child in token.children or []:
                if child.type in ("text", "code_inline"):
                    words.append(child.content)
                elif child.type.startswith("math"):
                    words.append(to_plain(child.content))
        elif token.type.startswith("math_block"):
            words.append(to_plain(token.content))
        elif token.type in ("fence", "code_block") and token.info.strip() != CARD_FENCE:
            words.append(token.content)
    return " ".join(w.strip() for w in words if w.strip())


def pygments_css() -> str:
    """Highlighting colours for light and dark themes."""
    # Pygments' "default" colours pass WCAG AA contrast on the page's code background.
    light = HtmlFormatter(style="default").get_style_defs(".highlight")  # type: ignore[no-untyped-call]
    # Its comment colour is just short of 4.5:1 on the code background: darken it.
    light += "\n.highlight .c, .highlight .c1, .highlight .cm, .highlight .ch, .highlight .cs"
    light += " { color: #2c5c5c }"
    dark = HtmlFormatter(style="monokai").get_style_defs(".highlight")  # type: ignore[no-untyped-call]
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}\n"

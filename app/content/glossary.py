"""The glossary (content/glossary.yml): validated, rendered, its links checked against the catalog.

Every failure is a ContentError naming the file, the line and the problem, like the topic loader.
"""

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from app.content import yamlsrc
from app.content.catalog import Catalog
from app.content.loader import ContentError
from app.content.render import Renderer, RenderProblem

GLOSSARY_FILE = "glossary.yml"
MAX_DEFINITION = 700  # characters: a definition says what a term is; the topic explains it
OTHER_LETTER = "#"

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Definition = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_DEFINITION)
]
_TOPIC_LINK = re.compile(r"^/topics/([^/#?]+)(?:#(.+))?$")
_CARD_LINK = re.compile(r"^/cards/([^/#?]+)$")
_LAB_LINK = re.compile(r"^/labs/([^/#?]+)$")
_NOT_SLUG = re.compile(r"[\W_]+")


class Entry(BaseModel):
    """One entry as written in the file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    term: Text
    definition: Definition
    see: list[Text] = Field(min_length=1)


@dataclass(frozen=True)
class Link:
    href: str
    kind: str  # "topic", "card" or "lab"
    label: str  # the topic's title, the card's question, or the lab's title
    section: str | None = None  # the heading a topic link points at


@dataclass(frozen=True)
class Term:
    term: str
    slug: str  # the term's id on the page: /glossary#SLUG
    definition: str  # markdown, as written
    definition_html: str
    links: tuple[Link, ...]
    plain_text: str  # the definition's words, for search

    @property
    def letter(self) -> str:
        first = self.term[:1].upper()
        return first if "A" <= first <= "Z" else OTHER_LETTER


@dataclass(frozen=True)
class Glossary:
    terms: tuple[Term, ...]  # alphabetical

    def by_letter(self) -> list[tuple[str, list[Term]]]:
        """Terms grouped under their first letter, in order."""
        groups: dict[str, list[Term]] = {}
        for term in self.terms:
            groups.setdefault(term.letter, []).append(term)
        return list(groups.items())

    @property
    def letters(self) -> frozenset[str]:
        return frozenset(term.letter for term in self.terms)


def slug_of(term: str) -> str:
    """`ZeRO-3 / FSDP` becomes `zero-3-fsdp`."""
    return _NOT_SLUG.sub("-", term.casefold()).strip("-") or "term"


def load_glossary(
    content_dir: Path,
    catalog: Catalog,
    labs: Mapping[str, str],
    renderer: Renderer | None = None,
) -> Glossary:
    """The glossary under content_dir, or an empty one when the file does not exist.

    `labs` maps each lab's name to its title, so /labs/NAME links can be checked and labelled.
    """
    path = content_dir / GLOSSARY_FILE
    if not path.is_file():
        return Glossary(())
    renderer = renderer or Renderer()
    try:
        text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        raise ContentError(path, 1, f"not UTF-8 text ({error.reason})") from None
    try:
        data, node = yamlsrc.parse(text)
    except yamlsrc.YamlProblem as problem:
        raise ContentError(path, problem.line + 1, problem.message) from None
    if not isinstance(data, list) or not data:
        raise ContentError(path, 1, "the glossary must be a YAML list of entries (- term: …)")

    terms: list[Term] = []
    seen: dict[str, int] = {}
    for index, item in enumerate(data):
        entry = _validate(path, item, node, index)
        line = _line(node, [index, "term"])
        slug = slug_of(entry.term)
        if slug in seen:
            raise ContentError(
                path, line, f"term '{entry.term}' is already defined at line {seen[slug]}"
            )
        seen[slug] = line
        links = tuple(
            _resolve(path, _line(node, [index, "see", i]), entry.term, link, catalog, labs)
            for i, link in enumerate(entry.see)
        )
        try:
            html = renderer.render_text(entry.definition)
        except RenderProblem as problem:
            where = _line(node, [index, "definition"])
            message = f"term '{entry.term}': definition: {problem.message}"
            raise ContentError(path, where, message) from None
        words = renderer.plain(entry.definition)
        terms.append(Term(entry.term, slug, entry.definition, html, links, words))
    terms.sort(key=lambda t: (t.term.casefold(), t.term))
    return Glossary(tuple(terms))


def _line(node: yaml.Node | None, where: list[int | str]) -> int:
    return yamlsrc.line_of(node, where) + 1


def _validate(path: Path, item: Any, node: yaml.Node | None, index: int) -> Entry:
    label = f"term '{item['term']}'" if isinstance(item, dict) and "term" in item else None
    label = label or f"entry {index + 1}"
    if not isinstance(item, dict):
        message = f"{label}: must be a mapping with term, definition and see"
        raise ContentError(path, _line(node, [index]), message)
    try:
        return Entry.model_validate(item)
    except ValidationError as error:
        first = error.errors()[0]
        loc = list(first["loc"])
        message = f"{label}: {_describe(first, loc)}"
        raise ContentError(path, _line(node, [index, *loc]), message) from None


def _describe(error: Any, loc: list[Any]) -> str:
    where = ".".join(str(part) for part in loc)
    kind, ctx = error["type"], error.get("ctx") or {}
    if kind == "missing":
        return f"{where}: required field missing"
    if kind == "extra_forbidden":
        return f"unknown field '{where}' (an entry has term, definition and see)"
    if kind == "too_short":
        return f"{where}: needs at least one link"
    if kind == "string_too_long":
        return f"{where}: at most {ctx['max_length']} characters; keep it short and link"
    if kind == "string_too_short":
        return f"{where}: must not be empty"
    return f"{where}: {str(error['msg']).lower()}"


def _resolve(
    path: Path, line: int, term: str, href: str, catalog: Catalog, labs: Mapping[str, str]
) -> Link:
    """A link the page can show, or a ContentError saying why it leads nowhere."""

    def fail(problem: str) -> ContentError:
        return ContentError(path, line, f"term '{term}': see: '{href}': {problem}")

    if match := _TOPIC_LINK.match(href):
        slug, anchor = match.groups()
        topic = catalog.topic(slug)
        if topic is None:
            raise fail(
                f"no topic with slug '{slug}'{_hint(slug, [t.slug for t in catalog.topics])}"
            )
        if anchor is None:
            return Link(href, "topic", topic.title)
        headings = {h.anchor: h.text for h in topic.headings}
        if anchor not in headings:
            problem = f"topic '{slug}' has no ## or ### heading with anchor '{anchor}'"
            raise fail(problem + _hint(anchor, list(headings)))
        return Link(href, "topic", topic.title, headings[anchor])
    if match := _CARD_LINK.match(href):
        card = catalog.card(match.group(1))
        if card is None:
            raise fail(f"no card with id '{match.group(1)}'")
        return Link(href, "card", card.question_text)
    if match := _LAB_LINK.match(href):
        name = match.group(1)
        if name not in labs:
            raise fail(f"no lab named '{name}' (labs: {', '.join(sorted(labs))})")
        return Link(href, "lab", labs[name])
    raise fail("links must look like /topics/SLUG#anchor, /cards/ID or /labs/NAME")


def _hint(wrong: str, known: list[str]) -> str:
    close = difflib.get_close_matches(wrong, known, n=1)
    return f"; did you mean '{close[0]}'?" if close else ""

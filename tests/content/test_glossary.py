"""The glossary: the shipped one loads and every link lands; a broken entry is one clear line."""

import shutil
from pathlib import Path
from textwrap import dedent

import pytest

from app.content.glossary import Glossary, load_glossary, slug_of
from app.content.loader import ContentError, load_catalog
from app.labs.catalog import LABS
from tests.conftest import FIXTURE_CONTENT, REAL_CONTENT

LAB_TITLES = {name: spec.title for name, spec in LABS.items()}
REAL_CATALOG = load_catalog(REAL_CONTENT)
FIXTURE_CATALOG = load_catalog(FIXTURE_CONTENT)

GOOD = """\
- term: busbw
  definition: |
    The link rate a ring would need: algbw × $\\frac{2(N-1)}{N}$ for an all-reduce.
  see: [/topics/alpha#the-ring, /cards/alpha-busbw, /labs/collectives]
- term: Algbw
  definition: Bytes over time.
  see: [/topics/alpha]
- term: 1F1B
  definition: One forward, one backward.
  see: [/topics/beta#steps]
"""


def write(tmp_path: Path, text: str) -> Path:
    root = tmp_path / "content"
    shutil.copytree(FIXTURE_CONTENT, root)
    (root / "glossary.yml").write_text(dedent(text), encoding="utf-8")
    return root


def load(root: Path) -> Glossary:
    return load_glossary(root, FIXTURE_CATALOG, LAB_TITLES)


def problem(tmp_path: Path, text: str) -> str:
    with pytest.raises(ContentError) as caught:
        load(write(tmp_path, text))
    message = str(caught.value)
    assert "\n" not in message and "glossary.yml:" in message
    return message


def test_the_shipped_glossary_loads_with_40_to_120_terms() -> None:
    glossary = load_glossary(REAL_CONTENT, REAL_CATALOG, LAB_TITLES)
    assert 40 <= len(glossary.terms) <= 120  # a glossary, not a second set of topics
    names = [t.term.casefold() for t in glossary.terms]
    assert names == sorted(names), "alphabetical"
    for term in glossary.terms:
        assert term.links, term.term
        assert term.definition_html.strip(), term.term


@pytest.mark.parametrize(
    "term",
    [
        "algbw",
        "busbw",
        "bubble fraction",
        "capacity factor",
        "context parallelism",
        "ZeRO-1",
        "ZeRO-2",
        "ZeRO-3",
        "FSDP",
        "MFU",
        "MTBF",
        "GPUDirect RDMA",
        "NVLS",
        "SHARP",
        "flight recorder",
        "straggler",
        "goodput",
    ],
)
def test_the_shipped_glossary_covers_the_core_terms(term: str) -> None:
    glossary = load_glossary(REAL_CONTENT, REAL_CATALOG, LAB_TITLES)
    names = {t.term.casefold() for t in glossary.terms}
    assert any(name == term.casefold() or name.startswith(term.casefold() + " ") for name in names)


def test_every_shipped_link_names_a_real_place() -> None:
    glossary = load_glossary(REAL_CONTENT, REAL_CATALOG, LAB_TITLES)
    topics = {t.slug: {h.anchor for h in t.headings} for t in REAL_CATALOG.topics}
    for term in glossary.terms:
        for link in term.links:
            kind, _, rest = link.href.removeprefix("/").partition("/")
            if kind == "topics":
                slug, _, anchor = rest.partition("#")
                assert slug in topics, link.href
                assert not anchor or anchor in topics[slug], link.href
                assert link.label == REAL_CATALOG.topic(slug).title  # type: ignore[union-attr]
            elif kind == "cards":
                assert REAL_CATALOG.card(rest) is not None, link.href
            else:
                assert kind == "labs" and rest in LABS, link.href


def test_entries_are_sorted_grouped_and_linked(tmp_path: Path) -> None:
    glossary = load(write(tmp_path, GOOD))
    assert [t.term for t in glossary.terms] == ["1F1B", "Algbw", "busbw"]
    assert [letter for letter, _ in glossary.by_letter()] == ["#", "A", "B"]
    busbw = glossary.terms[2]
    assert busbw.slug == "busbw" and "<math" in busbw.definition_html
    topic, card, lab = busbw.links
    assert (topic.kind, topic.label, topic.section) == ("topic", "Alpha topic", "The ring")
    assert card.kind == "card" and card.href == "/cards/alpha-busbw" and card.label
    assert (lab.kind, lab.label) == ("lab", LABS["collectives"].title)


def test_no_glossary_file_is_an_empty_glossary() -> None:
    assert load_glossary(FIXTURE_CONTENT, FIXTURE_CATALOG, LAB_TITLES).terms == ()


def test_slugs_are_url_safe() -> None:
    assert slug_of("ZeRO-3 / FSDP") == "zero-3-fsdp"
    assert slug_of("α–β model") == "α-β-model"


@pytest.mark.parametrize(
    ("link", "line", "expected"),
    [
        ("/topics/gamma#x", 4, "no topic with slug 'gamma'"),
        (
            "/topics/alpha#the-rings",
            4,
            "no ## or ### heading with anchor 'the-rings'; did you mean 'the-ring'?",
        ),
        ("/cards/alpha-nope", 4, "no card with id 'alpha-nope'"),
        ("/labs/nope", 4, "no lab named 'nope'"),
        ("https://example.com", 4, "links must look like /topics/SLUG#anchor"),
    ],
)
def test_a_broken_link_names_file_line_and_link(
    tmp_path: Path, link: str, line: int, expected: str
) -> None:
    text = f"""\
    - term: algbw
      definition: Bytes over time.
      see:
        - {link}
    """
    message = problem(tmp_path, text)
    assert f"glossary.yml:{line}: term 'algbw': see: '{link}': " in message
    assert expected in message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("- term: a\n  see: [/topics/alpha]\n", "glossary.yml:1: term 'a': definition: required"),
        (
            "- term: a\n  definition: b\n  see: [/topics/alpha]\n  sea: [x]\n",
            "glossary.yml:4: term 'a': unknown field 'sea'",
        ),
        (
            "- term: a\n  definition: b\n  see: []\n",
            "glossary.yml:3: term 'a': see: needs at least",
        ),
        (
            "- term: a\n  definition: b\n  see: [/topics/alpha]\n"
            "- term: A\n  definition: c\n  see: [/topics/alpha]\n",
            "glossary.yml:4: term 'A' is already defined at line 1",
        ),
        (
            "- term: a\n  definition: $\\fracc{1}{2}$\n  see: [/topics/alpha]\n",
            "glossary.yml:2: term 'a': definition: ",
        ),
        ("term: a\n", "glossary.yml:1: the glossary must be a YAML list"),
        ("- term: a\n  definition: [b\n", "glossary.yml:3: invalid YAML"),
        ("- just a string\n", "glossary.yml:1: entry 1: must be a mapping"),
        (
            "- term: a\n  definition: " + "x" * 800 + "\n  see: [/topics/alpha]\n",
            "glossary.yml:2: term 'a': definition: at most 700 characters",
        ),
    ],
)
def test_a_broken_entry_is_one_line_with_file_and_line(
    tmp_path: Path, text: str, expected: str
) -> None:
    assert expected in problem(tmp_path, text)

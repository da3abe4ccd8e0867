"""Search: every word must match, titles weigh most, snippets are escaped and highlighted."""

import shutil
from pathlib import Path

import pytest

from app.content.glossary import load_glossary
from app.content.loader import load_catalog
from app.content.search import MAX_QUERY_LENGTH, QueryTooLong, Results, SearchIndex
from tests.conftest import FIXTURE_CONTENT


def index() -> SearchIndex:
    return SearchIndex(load_catalog(FIXTURE_CONTENT))


def test_finds_topics_and_cards() -> None:
    hits = index().search("busbw")
    assert {(h.kind, h.key) for h in hits} >= {("topic", "alpha"), ("card", "alpha-busbw")}
    card = next(h for h in hits if h.key == "alpha-busbw")
    assert card.url == "/cards/alpha-busbw" and card.context == "Alpha topic"


def test_every_word_must_appear() -> None:
    # A topic's own text excludes its cards: each card is found on its own.
    assert [h.key for h in index().search("lagging stack")] == ["beta-order"]
    assert index().search("lagging bandwidth-nonexistent") == []


def test_title_matches_rank_first() -> None:
    hits = index().search("procedures")
    assert hits[0].key == "beta"  # in beta's summary only


def test_is_case_insensitive_and_ignores_punctuation() -> None:
    assert index().search("BUSBW?") and index().search("  ") == []


def test_snippet_highlights_and_escapes() -> None:
    hit = next(h for h in index().search("algbw") if h.key == "alpha")
    assert "<mark>" in hit.snippet_html
    assert "<script" not in hit.snippet_html


def test_snippet_escapes_html_in_the_text() -> None:
    from app.content.search import _snippet

    snippet = _snippet("a <b>bold</b> claim about rings", ["rings"])
    assert "&lt;b&gt;" in snippet and "<mark>rings</mark>" in snippet


def test_overlong_query_is_refused() -> None:
    with pytest.raises(QueryTooLong):
        index().search("x" * (MAX_QUERY_LENGTH + 1))


def test_formulas_are_searchable_and_readable_in_snippets() -> None:
    hits = index().search("2(N-1)K/N")
    ring = next(h for h in hits if h.key == "alpha")
    assert "<mark>K/N</mark>" in ring.snippet_html and "α" in ring.snippet_html
    card = next(h for h in index().search("busbw") if h.key == "alpha-busbw")
    assert "$" not in card.snippet_html and "\\" not in card.snippet_html


def test_latex_to_plain_text() -> None:
    from app.content.mathml import to_plain

    assert to_plain(r"\frac{2(N-1)}{N}K") == "(2(N-1))/N K".replace(" K", "K")
    assert to_plain(r"2(N-1)\alpha + \log_2 N") == "2(N-1)α + log_2 N"


def test_drill_questions_show_no_placeholders_in_titles() -> None:
    hit = next(h for h in index().search("ring all-reduce runs") if h.key == "alpha-drill-bytes")
    assert "{{" not in hit.title and "…" in hit.title


def test_finds_glossary_terms_by_name_and_definition(tmp_path: Path) -> None:
    shutil.copytree(FIXTURE_CONTENT / "topics", tmp_path / "topics")
    (tmp_path / "glossary.yml").write_text(
        "- term: Bus bandwidth\n"
        "  definition: What a collective moves per second, scaled so rings compare ($2(N-1)/N$).\n"
        "  see:\n"
        "    - /topics/alpha\n"
    )
    catalog = load_catalog(tmp_path)
    search = SearchIndex(catalog, load_glossary(tmp_path, catalog, {}))
    by_name = search.search("bus bandwidth")
    term = next(h for h in by_name if h.kind == "term")
    assert (term.key, term.url, term.context) == (
        "bus-bandwidth",
        "/glossary#bus-bandwidth",
        "Glossary",
    )
    assert [h.key for h in search.search("rings compare") if h.kind == "term"] == ["bus-bandwidth"]
    assert not [h for h in index().search("bus bandwidth") if h.kind == "term"]  # none without


def real_index() -> SearchIndex:
    return SearchIndex(load_catalog(Path("content")))


def test_snippets_and_titles_never_show_a_drills_placeholders() -> None:
    search = real_index()
    for query in ("bf16 gradients data-parallel", "interleaved 1F1B microbatches", "ranks GB"):
        hits = search.search(query)
        assert hits, query
        for hit in hits:
            assert "{{" not in hit.snippet_html and "}}" not in hit.snippet_html, hit.key
            assert "{{" not in hit.title and "{%" not in hit.snippet_html, hit.key


def test_a_typo_finds_the_word_meant_and_says_so() -> None:
    search = real_index()
    assert search.search("all-gatehr") == []
    results = search.find("all-gatehr")
    assert results.did_you_mean == "all-gather"
    assert results.hits == search.search("all-gather")
    assert search.find("nccl topolgy").did_you_mean == "nccl topology"


def test_a_query_that_finds_something_is_not_corrected() -> None:
    results = real_index().find("all-gather")
    assert results.hits and results.did_you_mean is None


def test_nothing_close_suggests_nothing() -> None:
    assert real_index().find("xyzzy qwfp") == Results([])

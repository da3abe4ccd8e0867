"""Loading content: what a valid file gives, and the one-line message for each kind of breakage."""

import os
from pathlib import Path

import pytest

from app.content.loader import ContentError, load_catalog
from tests.conftest import FIXTURE_CONTENT
from tests.content.helpers import card, write_topic


def line_of(path: Path, needle: str) -> int:
    """1-based number of the first line of `path` containing `needle`."""
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


def error_for(root: Path) -> ContentError:
    with pytest.raises(ContentError) as caught:
        load_catalog(root)
    return caught.value


def assert_error(root: Path, path: Path, line: int, *fragments: str) -> None:
    error = error_for(root)
    assert (error.path, error.line) == (path, line), str(error)
    for fragment in fragments:
        assert fragment in error.message, str(error)
    text = str(error)
    assert text.startswith(f"{os.path.relpath(path)}:{line}: ")
    assert "\n" not in text


def test_fixture_content_loads_in_order_with_cards() -> None:
    catalog = load_catalog(FIXTURE_CONTENT)
    assert [t.slug for t in catalog.topics] == ["alpha", "beta"]
    alpha = catalog.topic("alpha")
    assert alpha is not None
    assert [c.id for c in alpha.cards] == ["alpha-ring-bytes", "alpha-busbw", "alpha-drill-bytes"]
    busbw = catalog.card("alpha-busbw")
    assert busbw is not None and busbw.kind == "numeric"
    assert busbw.card.value == 175 and busbw.card.unit == "GB/s"
    assert busbw.card.tolerance == 0.02  # the documented default
    assert catalog.card("beta-order") is not None
    assert catalog.neighbours("alpha") == (None, catalog.topic("beta"))


def test_cards_sit_where_they_were_written(tmp_path: Path) -> None:
    write_topic(
        tmp_path, "Before.\n\n" + card("t-a") + "\nBetween.\n\n" + card("t-b") + "\nAfter.\n"
    )
    topic = load_catalog(tmp_path).topics[0]
    kinds = [("card", s.card_id) if s.card_id else ("html", s.html.strip()) for s in topic.segments]
    assert kinds == [
        ("html", "<p>Before.</p>"),
        ("card", "t-a"),
        ("html", "<p>Between.</p>"),
        ("card", "t-b"),
        ("html", "<p>After.</p>"),
    ]


def test_order_card_is_never_shown_in_its_correct_order() -> None:
    order = load_catalog(FIXTURE_CONTENT).card("beta-order")
    assert order is not None
    assert sorted(order.shuffled_steps) == [0, 1, 2, 3]
    assert list(order.shuffled_steps) != [0, 1, 2, 3]


def test_card_sources_link_to_the_topic_reference() -> None:
    ring = load_catalog(FIXTURE_CONTENT).card("alpha-ring-bytes")
    assert ring is not None
    (source,) = ring.sources
    assert source.href == "/topics/alpha#ref-nt"
    assert "nccl-tests" in source.html and "§busbw" in source.html


def test_no_topics_is_an_error(tmp_path: Path) -> None:
    error = error_for(tmp_path)
    assert "no topic files" in error.message


def test_missing_front_matter(tmp_path: Path) -> None:
    path = tmp_path / "topics" / "01-x.md"
    path.parent.mkdir(parents=True)
    path.write_text("# Just a heading\n")
    assert_error(tmp_path, path, 1, "front matter")


def test_bad_yaml_in_front_matter_names_its_line(tmp_path: Path) -> None:
    path = write_topic(tmp_path)
    path.write_text(path.read_text().replace("title: A topic", "title: [unclosed"))
    assert_error(tmp_path, path, line_of(path, "title:") + 1, "invalid YAML")


def test_missing_front_matter_field(tmp_path: Path) -> None:
    path = write_topic(tmp_path)
    path.write_text(path.read_text().replace("summary: A summary.\n", ""))
    assert_error(tmp_path, path, 2, "front matter", "summary: required field missing")


def test_file_name_must_match_slug(tmp_path: Path) -> None:
    path = write_topic(tmp_path, name="01-other.md")
    assert_error(tmp_path, path, 1, "NN-topic.md")


def test_bad_yaml_in_a_card(tmp_path: Path) -> None:
    path = write_topic(
        tmp_path, card().replace("followups:\n  - question: Why?", "followups: [Why?")
    )
    error = error_for(tmp_path)
    assert error.path == path and "invalid YAML" in error.message
    assert line_of(path, "followups:") <= error.line <= line_of(path, "followups:") + 2


def test_unknown_card_kind(tmp_path: Path) -> None:
    path = write_topic(tmp_path, card().replace("kind: recall", "kind: essay"))
    assert_error(tmp_path, path, line_of(path, "kind: essay"), "unknown kind 'essay'", "recall")


def test_missing_card_kind(tmp_path: Path) -> None:
    path = write_topic(tmp_path, card().replace("kind: recall\n", ""))
    assert_error(tmp_path, path, line_of(path, "id: t-one"), "card kind missing")


def test_missing_required_card_field(tmp_path: Path) -> None:
    path = write_topic(tmp_path, card().replace("mistakes:\n  - This.\n", ""))
    assert_error(tmp_path, path, line_of(path, "id: t-one"), "card 't-one'", "mistakes: required")


def test_rubric_needs_three_points(tmp_path: Path) -> None:
    body = card().replace("  - point: three\n    keywords: [three]\n", "")
    path = write_topic(tmp_path, body)
    assert_error(tmp_path, path, line_of(path, "rubric:"), "rubric: needs at least 3, found 2")


def test_rubric_point_needs_keywords(tmp_path: Path) -> None:
    path = write_topic(tmp_path, card().replace("keywords: [two]", "keywords: []"))
    assert_error(tmp_path, path, line_of(path, "keywords: []"), "rubric.1.keywords")


def test_unknown_card_field_is_a_typo_not_ignored(tmp_path: Path) -> None:
    path = write_topic(tmp_path, card().replace("followups:", "folowups:"))
    assert_error(tmp_path, path, line_of(path, "id: t-one"), "followups: required")
    path = write_topic(tmp_path, card().replace("mistakes:", "tags: [a]\ncolour: red\nmistakes:"))
    assert_error(tmp_path, path, line_of(path, "colour: red"), "unknown field 'colour'")


def test_repeated_yaml_key(tmp_path: Path) -> None:
    path = write_topic(tmp_path, card().replace("question: |", "answer: x\nquestion: |"))
    assert_error(tmp_path, path, line_of(path, "answer: |"), "answer: appears twice")


def test_bad_card_id(tmp_path: Path) -> None:
    path = write_topic(tmp_path, card("Bad Id"))
    assert_error(tmp_path, path, line_of(path, "id: Bad Id"), "id:")


def test_duplicate_card_id_in_one_file(tmp_path: Path) -> None:
    path = write_topic(tmp_path, card("t-same") + "\n" + card("t-same"))
    lines = [n for n, text in enumerate(path.read_text().splitlines(), 1) if "t-same" in text]
    assert_error(tmp_path, path, lines[1], "card id 't-same' is also at", f":{lines[0]}")


def test_duplicate_card_id_across_files(tmp_path: Path) -> None:
    first = write_topic(tmp_path, card("t-same"), slug="one", order=1)
    second = write_topic(tmp_path, card("t-same"), slug="two", order=2)
    error = error_for(tmp_path)
    assert error.path == second and "t-same" in error.message
    assert os.path.relpath(first) in error.message


def test_duplicate_order(tmp_path: Path) -> None:
    write_topic(tmp_path, slug="one", order=1)
    second = write_topic(tmp_path, slug="two", order=1, name="02-two.md")
    assert_error(tmp_path, second, 1, "order 1 is also used")


def test_related_topic_must_exist(tmp_path: Path) -> None:
    path = write_topic(tmp_path)
    path.write_text(path.read_text().replace("summary:", "related: [ghost]\nsummary:"))
    assert_error(tmp_path, path, 1, "related: no topic with slug 'ghost'")


def test_numeric_card_unit_must_be_known(tmp_path: Path) -> None:
    numeric = card().replace("kind: recall", "kind: numeric\nvalue: 3\nunit: furlongs")
    path = write_topic(tmp_path, numeric)
    assert_error(tmp_path, path, line_of(path, "unit: furlongs"), "unknown unit 'furlongs'")


def test_numeric_card_needs_a_value(tmp_path: Path) -> None:
    path = write_topic(tmp_path, card().replace("kind: recall", "kind: numeric\nunit: GB"))
    assert_error(tmp_path, path, line_of(path, "id: t-one"), "either a fixed value or a drill")


def test_derivation_needs_three_to_eight_steps(tmp_path: Path) -> None:
    derivation = card().replace("kind: recall", "kind: derivation\nsteps:\n  - one\n  - two")
    path = write_topic(tmp_path, derivation)
    assert_error(tmp_path, path, line_of(path, "steps:"), "steps: needs at least 3, found 2")


@pytest.mark.parametrize(
    ("formula", "problem"),
    [
        (r"\fracc{1}{2}", r"unknown LaTeX command \fracc"),
        (r"\frac{1}{2", "never closed"),
        (r"x}", "closes nothing"),
        (r"\left( x", "cannot typeset"),
    ],
)
def test_bad_math_in_the_essay(tmp_path: Path, formula: str, problem: str) -> None:
    path = write_topic(tmp_path, f"Intro.\n\nThe cost is ${formula}$ here.\n")
    assert_error(tmp_path, path, line_of(path, "The cost is"), problem)


def test_bad_display_math_names_its_first_line(tmp_path: Path) -> None:
    path = write_topic(tmp_path, "Intro.\n\n$$\nT = \\alpah\n$$\n")
    assert_error(tmp_path, path, line_of(path, "$$"), r"\alpah")


def test_bad_math_in_a_card_field(tmp_path: Path) -> None:
    path = write_topic(tmp_path, card().replace("  That.", "  $\\sqrtt{2}$"))
    assert_error(tmp_path, path, line_of(path, "answer: |"), "card 't-one'", r"\sqrtt")


def test_unknown_code_language(tmp_path: Path) -> None:
    path = write_topic(tmp_path, "```pyhton\nprint(1)\n```\n")
    assert_error(tmp_path, path, line_of(path, "```pyhton"), "unknown code language 'pyhton'")


def test_not_utf8(tmp_path: Path) -> None:
    path = write_topic(tmp_path)
    path.write_bytes(path.read_bytes() + b"\xff\xfe bad")
    assert_error(tmp_path, path, 1, "not UTF-8")


def _large_set(tmp_path: Path) -> Path:
    """PARALLEL_FROM or more topic files: copies of the fixture topics."""
    from app.content.loader import PARALLEL_FROM
    from bench.synthetic import write_content

    per_copy = len(load_catalog(FIXTURE_CONTENT).cards)
    write_content(FIXTURE_CONTENT, tmp_path, cards=per_copy * PARALLEL_FROM)
    assert len(list((tmp_path / "topics").glob("*.md"))) >= PARALLEL_FROM
    return tmp_path


@pytest.mark.slow
def test_a_large_set_loads_the_same_in_several_processes(tmp_path: Path) -> None:
    content = _large_set(tmp_path)
    alone, together = load_catalog(content), load_catalog(content, processes=2)
    assert [t.slug for t in together.topics] == [t.slug for t in alone.topics]
    assert together.topics == alone.topics  # essays, cards and their HTML, field by field


@pytest.mark.slow
def test_several_processes_report_the_first_broken_file_as_one_would(tmp_path: Path) -> None:
    content = _large_set(tmp_path)
    files = sorted((content / "topics").glob("*.md"))
    for broken in (files[3], files[-2]):  # the first in file order wins, as when loading alone
        text = broken.read_text()
        broken.write_text(text.replace("$", "$\\frac{", 1))
    with pytest.raises(ContentError) as alone:
        load_catalog(content)
    with pytest.raises(ContentError) as together:
        load_catalog(content, processes=2)
    assert str(together.value) == str(alone.value)
    assert (together.value.path, together.value.line) == (files[3], alone.value.line)


def test_a_topic_must_say_when_and_against_what_it_was_checked(tmp_path: Path) -> None:
    path = write_topic(tmp_path, card())
    path.write_text(path.read_text().replace("checked_on: 2026-12-01\n", ""))
    assert_error(tmp_path, path, 2, "checked_on: required field missing")
    path.write_text(path.read_text().replace('  NCCL: "2.28.7"\n', "").replace(
        "checked_against:", "checked_on: 2026-12-01\nchecked_against: {}"))  # fmt: skip
    assert "checked_against: needs at least 1" in error_for(tmp_path).message


@pytest.mark.parametrize(
    ("keyword", "why"),
    [("N", "a single character"), ("8 ×", "a bare number"), ("2×", "a bare number"),
     ("us", "a bare unit"), ("MB", "a bare unit"), ("is", "a two-letter word")],
)  # fmt: skip
def test_a_rubric_keyword_must_be_evidence_of_its_point(
    tmp_path: Path, keyword: str, why: str
) -> None:
    path = write_topic(tmp_path, card().replace("keywords: [two]", f'keywords: [two, "{keyword}"]'))
    error = error_for(tmp_path)
    assert error.path == path and f"{keyword!r} is {why}" in error.message


def test_acronyms_and_numbers_with_digits_are_evidence(tmp_path: Path) -> None:
    write_topic(tmp_path, card().replace("keywords: [two]", 'keywords: [two, TP, "1.75", "8 GB"]'))
    load_catalog(tmp_path)


def test_a_rubric_keyword_belongs_to_one_point(tmp_path: Path) -> None:
    write_topic(tmp_path, card().replace("keywords: [two]", "keywords: [two, One]"))
    assert "keyword 'one' is in points 1 and 2" in error_for(tmp_path).message


MISTAKE = """mistakes:
  - text: Saying it sends (N-1)K.
    evidence: ["(N-1)K", [whole buffer, every rank]]
    contradicts: [1]
  - A plain mistake.
"""


def test_a_mistake_may_carry_evidence_and_the_points_it_contradicts(tmp_path: Path) -> None:
    write_topic(tmp_path, card().replace("mistakes:\n  - This.\n", MISTAKE))
    view = load_catalog(tmp_path).card("t-one")
    assert view is not None
    first, plain = view.card.mistakes
    assert first.text == "Saying it sends (N-1)K."
    assert first.evidence == [["(N-1)K"], ["whole buffer", "every rank"]]
    assert first.contradicts == [1]
    assert plain.text == "A plain mistake." and plain.evidence == [] and plain.contradicts == []
    assert len(view.mistakes_html) == 2


def test_a_mistake_contradicts_only_points_of_the_rubric(tmp_path: Path) -> None:
    path = write_topic(
        tmp_path, card().replace("mistakes:\n  - This.\n", MISTAKE.replace("[1]", "[1, 3]"))
    )
    assert_error(
        tmp_path,
        path,
        line_of(path, "contradicts: [1, 3]"),
        "mistakes.0.contradicts.1: contradicts point 3,",
        "but the rubric's points are numbered 0 to 2",
    )


def test_mistake_evidence_is_held_to_the_rubric_keywords_rule(tmp_path: Path) -> None:
    bad = MISTAKE.replace('"(N-1)K", ', '"(N-1)K", "us", ')
    path = write_topic(tmp_path, card().replace("mistakes:\n  - This.\n", bad))
    assert_error(
        tmp_path, path, line_of(path, "evidence:"), "mistakes.0.evidence.1.0", "'us' is a bare unit"
    )


def test_a_mistake_mapping_needs_its_text(tmp_path: Path) -> None:
    path = write_topic(
        tmp_path,
        card().replace("mistakes:\n  - This.\n", "mistakes:\n  - evidence: [whole buffer]\n"),
    )
    assert_error(tmp_path, path, line_of(path, "evidence: [whole buffer]"), "mistakes.0.text")


def test_a_point_may_name_what_it_cannot_be_made_without(tmp_path: Path) -> None:
    write_topic(
        tmp_path,
        card().replace(
            "keywords: [two]", 'keywords: [two]\n    needs: [["2(N-1)/N", "twice"], "0.54 s"]'
        ),
    )
    view = load_catalog(tmp_path).card("t-one")
    assert view is not None
    assert view.card.rubric[1].needs == [["2(N-1)/N", "twice"], ["0.54 s"]]


def test_a_need_is_held_to_the_rubric_keywords_rule(tmp_path: Path) -> None:
    path = write_topic(
        tmp_path, card().replace("keywords: [two]", 'keywords: [two]\n    needs: [["twice", "4"]]')
    )
    assert_error(
        tmp_path, path, line_of(path, "needs:"), "rubric.1.needs.0.1", "'4' is a single character"
    )


def test_a_point_may_be_an_order_of_two_or_more_steps(tmp_path: Path) -> None:
    write_topic(
        tmp_path,
        card().replace(
            "keywords: [two]", "keywords: [two]\n    order: [[intra-node, one node], inter-node]"
        ),
    )
    view = load_catalog(tmp_path).card("t-one")
    assert view is not None
    assert view.card.rubric[1].order == [["intra-node", "one node"], ["inter-node"]]


def test_an_order_of_one_step_is_refused_on_its_line(tmp_path: Path) -> None:
    path = write_topic(
        tmp_path, card().replace("keywords: [two]", "keywords: [two]\n    order: [[intra-node]]")
    )
    at = line_of(path, "order: [[")
    assert_error(tmp_path, path, at, "rubric.1.order", "at least two groups")

"""Every reason the grader gives quotes the answer: whole words it typed, never a keyword it
did not contain. Checked over every tuning answer (tests/grading/answers_tuning*.yml and the
independent set's tuning part)."""

import re

import pytest

from app.content.schema import RubricPoint
from app.grading import check, points_made
from app.grading.text import lower, normalise
from bench.grader import SETS, load_independent, load_set
from tests.grading.real import REAL_CATALOG, REAL_FIELD

_QUOTED = re.compile(r"“([^”]*)”")


def _tuning_answers() -> list[tuple[str, str]]:
    tuning, _held_out = load_independent()  # the held-out part is never graded here
    items = [(i.card, i.answer) for i in load_set(SETS["tuning"])]
    return items + [(i.card, i.answer) for i in tuning]


def _quotes(result_reasons: dict[int, str], withheld: dict[int, str]) -> list[str]:
    """What the reasons say the answer said: quoted text and the point's words it used."""
    out: list[str] = []
    for reason in result_reasons.values():
        matched, _, words = reason.partition("the point's words ")
        out += _QUOTED.findall(matched)
        out += [w for w in words.split(", ") if w]
    for why in withheld.values():
        # "needs “…”" and "where the point's figure is “…”" quote the card, not the answer
        said = why.split(", where the point's figure is")[0]
        if not said.startswith("needs "):
            out += _QUOTED.findall(said)
    return out


def _typed_as(haystack: str, quote: str) -> bool:
    """`quote` is in `haystack` as whole words (spacing and case aside)."""
    wanted = " ".join(quote.removesuffix("…").split()).lower()
    text = " ".join(haystack.split()).lower()
    for match in re.finditer(re.escape(wanted), text):
        before = text[match.start() - 1] if match.start() else " "
        after = text[match.end()] if match.end() < len(text) else " "
        whole_end = quote.endswith("…") or not (after.isalnum() and wanted[-1:].isalnum())
        if not (before.isalnum() and wanted[:1].isalnum()) and whole_end:
            return True
    return False


@pytest.mark.slow
def test_every_reason_quotes_whole_words_of_the_answer() -> None:
    answers = _tuning_answers()
    assert len(answers) >= 500
    checked = 0
    for card_id, answer in answers:
        card = REAL_CATALOG.card(card_id)
        assert card is not None, card_id
        result = check(card, answer, REAL_FIELD)
        quotes = _quotes(result.reasons, result.withheld)
        quotes += [q for why in result.mistake_reasons.values() for q in _QUOTED.findall(why)]
        for quote in quotes:
            typed, read = answer, lower(normalise(answer))
            assert _typed_as(typed, quote) or _typed_as(read, quote), (card_id, quote, answer)
            checked += 1
    assert checked >= 1000


def test_a_reason_quotes_what_was_typed_not_the_keyword() -> None:
    card = REAL_CATALOG.card("par-zero3-volume")
    assert card is not None
    answer = "DP all-reduce = RS + AG = 2Ψ; ZeRO-3 gathers params in fwd and in bwd."
    result = check(card, answer, REAL_FIELD)
    assert result.reasons[0].startswith("matched “RS + AG”, “2Ψ”")
    quoted = [q for reason in result.reasons.values() for q in _QUOTED.findall(reason)]
    assert all(_typed_as(answer, q) for q in quoted), quoted


def test_a_missing_need_is_named_by_a_few_of_its_wordings_not_the_whole_list() -> None:
    """A need may list dozens of ways to say it; the reader is told what is missing, with the
    first figure, formula and phrase the card gives, not the grader's list."""
    wordings = ["MTBF halves", "MTBF is halved", "halves the MTBF", "MTBF drops by half"]
    wordings += ["failure rate doubles", "twice as many failures", "M/2", "1.55 h", "rates add"]
    point = RubricPoint(
        point="The MTBF of the cluster changes", keywords=["MTBF of the cluster"], needs=[wordings]
    )
    answer = "the MTBF of the cluster changes when it doubles"
    why = points_made([point], answer, field=REAL_FIELD).withheld
    assert why[0] == "needs “MTBF halves” or “M/2” or “1.55 h”, or the same in other words"
    short = RubricPoint(
        point="The MTBF of the cluster changes",
        keywords=["MTBF of the cluster"],
        needs=[["MTBF halves", "M/2"]],
    )
    assert (
        points_made([short], answer, field=REAL_FIELD).withheld[0] == "needs “MTBF halves” or “M/2”"
    )

"""The grader on answers it was never tuned on (tests/grading/answers_heldout*.yml).

The thresholds sit a little below what it reaches there (bench/grader.py prints the figures),
so a change that makes it worse at telling right answers from wrong ones fails here.
"""

from pathlib import Path

import pytest

from app.content.catalog import Catalog
from app.content.loader import load_catalog
from bench.grader import SETS, grader, keyword_matcher, load_set, score

REAL_CONTENT = Path(__file__).resolve().parents[2] / "content"
# Measured: held-out F1 0.789, 0.44 points per wrong answer; second held-out set (topics
# 09-10) F1 0.844, 0.33 (tuning answers: 0.898 and 0.41).
HELD_OUT = {"held-out": (0.76, 0.5), "held-out 2": (0.82, 0.45)}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(REAL_CONTENT)


def test_the_labelled_sets_are_large_enough_and_apart() -> None:
    tuning, held_out = load_set(SETS["tuning"]), load_set(SETS["held-out"])
    assert len(tuning) + len(held_out) >= 100
    assert len({i.card for i in tuning} | {i.card for i in held_out}) >= 30
    second = load_set(SETS["held-out 2"])
    assert len(second) >= 30 and len({i.card for i in second}) >= 10
    cards = [{i.card for i in items} for items in (tuning, held_out, second)]
    assert not cards[0] & cards[1] and not cards[2] & (cards[0] | cards[1])
    for items in (tuning, held_out, second):
        assert {i.kind for i in items} == {"strong", "partial", "wrong"}


@pytest.mark.parametrize("name", sorted(HELD_OUT))
def test_held_out_f1_and_points_suggested_for_wrong_answers(catalog: Catalog, name: str) -> None:
    least_f1, most_wrong = HELD_OUT[name]
    items = load_set(SETS[name])
    overall = score(items, catalog, grader)
    wrong = score([i for i in items if i.kind == "wrong"], catalog, grader)
    assert overall.f1 >= least_f1, overall
    assert wrong.suggested_per_answer <= most_wrong, wrong
    # … and it suggests far fewer points for wrong answers than the keyword matcher did.
    old = score([i for i in items if i.kind == "wrong"], catalog, keyword_matcher)
    assert wrong.suggested_per_answer < old.suggested_per_answer / 2

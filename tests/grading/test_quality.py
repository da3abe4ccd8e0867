"""The grader's quality on the labelled answers (tests/grading/answers_*.yml).

On the tuning answers it must meet the targets (F1 >= 0.85, at most 0.5 points suggested per
wrong answer). On the held-out sets, which nothing was tuned on, the thresholds sit a little
below what it reaches there (bench/grader.py prints the figures), so a change that makes it
worse at telling right answers from wrong ones fails here.
"""

from pathlib import Path

import pytest

from app.content.catalog import Catalog
from app.content.loader import load_catalog
from bench.grader import (
    SETS,
    IndependentScores,
    grader,
    independent_scores,
    keyword_matcher,
    load_aside,
    load_independent,
    load_set,
    load_tuned_on,
    score,
)

REAL_CONTENT = Path(__file__).resolve().parents[2] / "content"
TARGETS = (0.85, 0.5)  # least F1, most points suggested per wrong answer
# Measured after the rubrics' keywords were widened to the ways people say each point and
# checked against 138 more tuning answers (after the grader's third round, in brackets):
# tuning F1 0.966, 0.18 points per wrong answer (0.907, 0.36); held-out 0.860, 0.50 (0.821,
# 0.44); held-out 2 0.910, 0.25 (0.893, 0.25); held-out 3 0.945, 0.17 (0.915, 0.00).
# Since a stated mistake raises the bar for the answer's other points (STATED_MISTAKE) and a
# mistake can be found by its claim's words, held-out 3 reaches 0.915 (0.926 before).
HELD_OUT = {"held-out": (0.84, 0.5), "held-out 2": (0.88, 0.35), "held-out 3": (0.91, 0.25)}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(REAL_CONTENT)


def test_the_labelled_sets_are_large_enough_and_apart() -> None:
    sets = {name: load_set(paths) for name, paths in SETS.items()}
    tuning, held_out = sets["tuning"], sets["held-out"]
    assert len(tuning) + len(held_out) >= 100
    assert len({i.card for i in tuning} | {i.card for i in held_out}) >= 30
    assert len(sets["held-out 2"]) >= 30 and len({i.card for i in sets["held-out 2"]}) >= 10
    assert len(sets["held-out 3"]) >= 45 and len({i.card for i in sets["held-out 3"]}) >= 20
    cards = {name: {i.card for i in items} for name, items in sets.items()}
    for name in cards:  # no card is answered in two sets: held-out cards were never tuned on
        others = set().union(*(c for other, c in cards.items() if other != name))
        assert not cards[name] & others, name
    for items in sets.values():
        assert {i.kind for i in items} == {"strong", "partial", "wrong"}


@pytest.mark.parametrize("name", ["tuning", *sorted(HELD_OUT)])
def test_f1_and_points_suggested_for_wrong_answers(catalog: Catalog, name: str) -> None:
    least_f1, most_wrong = HELD_OUT.get(name, TARGETS)
    items = load_set(SETS[name])
    overall = score(items, catalog, grader)
    wrong = score([i for i in items if i.kind == "wrong"], catalog, grader)
    assert overall.f1 >= least_f1, overall
    assert wrong.suggested_per_answer <= most_wrong, wrong
    # … and it suggests far fewer points for wrong answers than the keyword matcher did.
    old = score([i for i in items if i.kind == "wrong"], catalog, keyword_matcher)
    assert wrong.suggested_per_answer < old.suggested_per_answer / 2


# The independent set's held-out part (tests/grading/independent: answers and labels by writers
# who never saw the grader; nothing was tuned on these cards' answers). Before mistakes became
# detectors and points their substance: F1 0.876, 1.39 points credited per wrong answer beyond
# its labels, no mistake found. After: F1 0.887, 1.18 per wrong answer, mistakes found with
# precision 0.857 and recall 0.486, a false mistake on 3 of 35 strong answers (the issue asks
# for recall 0.7 and at most 0.5 points per wrong answer: not reached yet). After needs on
# every card and implicit needs from a point's own formula or figure (2 December 2026): F1
# 0.903, 0.88 per wrong answer, precision 0.881, recall 0.500, 2 of 35 strong answers flagged
# (one content author saw a failing pin's figures once: slightly less independent since).
# Pinned a little below what is reached, so that a regression fails.
INDEPENDENT_HELD_OUT = {
    "least_f1": 0.88,
    "most_unearned_per_wrong": 1.0,
    "least_mistake_precision": 0.83,
    "least_mistake_recall": 0.45,
    "most_strong_flagged": 0.1,  # share of strong answers with a false mistake (issue: 0.1)
}


def test_the_independent_held_out_part_is_not_worse(catalog: Catalog) -> None:
    _tuning, held = load_independent()
    assert len(held) >= 120 and len({i.card for i in held}) >= 40
    _holds(independent_scores(held, catalog), INDEPENDENT_HELD_OUT)


# The second independent set (tests/grading/second): kept aside whole until the evening of 2
# December 2026 (F1 0.849 → 0.875, 1.45 → 1.21 points per wrong answer beyond its labels,
# mistakes precision 0.895 → 0.948 and recall 0.555 → 0.550, 8 → 4 of 80 strong answers
# flagged, over that day's earlier work), tuned on since: 0.887, 0.80, 0.961 / 0.610, 3 of 80.
# The third (tests/grading/third), looked at twice before it was tuned on: 0.883, 0.72, 0.932
# / 0.587, 4 of 96. The fourth (tests/grading/fourth), looked at once before it was tuned on
# (F1 0.880 → 0.885, 1.16 → 0.86, 0.918 / 0.537 → 0.917 / 0.581, 7 → 8 of 95, over the day's
# work on mistakes' claims), then after points that are an order said so: 0.887, 0.76, 0.917
# / 0.581, 8 of 95. The fifth (tests/grading/fifth), looked at once before it was tuned on:
# 0.868, 0.73, 0.929 / 0.588, 7 of 96. Then every mistake's claims, the evidence that flagged
# the tuning sets' right answers narrowed, and a higher bar for an answer that states a mistake
# (3 December 2026): second 0.895, 0.64, 1.000 / 0.590, 0 of 80; third 0.886, 0.57, 0.954 /
# 0.617, 0 of 96; fourth 0.901, 0.59, 0.985 / 0.568, 0 of 95; fifth 0.880, 0.56, 0.993 /
# 0.568, 0 of 96 (no strong answer flagged on sets whose false flags were fixed by hand: the
# set kept aside says what that is worth). Pinned a little below what is reached, so that a
# regression fails. The sixth (tests/grading/sixth), looked at once before it was tuned on (the
# grader and content of 5e5dc46 → those of 3 December 2026's first round): F1 0.872 → 0.876,
# 0.98 → 0.84 points per wrong answer beyond its labels, mistakes 0.891 / 0.528 → 0.930 /
# 0.546, 8 → 4 of 95 strong answers flagged. Then every mistake's evidence and claims widened
# to the tuning sets' misses: second 0.895, 0.39, 0.995 / 0.935, 0 of 80; third 0.890, 0.28,
# 0.969 / 0.940, 0 of 96; fourth 0.905, 0.36, 0.986 / 0.917, 0 of 95; fifth 0.880, 0.35, 0.986
# / 0.893, 0 of 96; sixth 0.879, 0.48, 0.957 / 0.917, 3 of 95 (fitted to these answers: the
# set kept aside, below, says how much carries over). The seventh (tests/grading/seventh: 378
# answers over 126 cards, written and labelled on 3 December 2026 before the day's second round
# of content work), looked at once, whole, the grader and content of c6ba440 → those after that
# round (evidence and claims widened to the tuning sets' missed mistakes): F1 0.881 → 0.883,
# 0.90 → 0.79 points per wrong answer beyond its labels, mistakes precision 0.952 → 0.946 and
# recall 0.559 → 0.662 (213 stated), 1 → 1 of 96 strong answers flagged. The eighth
# (tests/grading/eighth: 378 answers over 126 cards, written and labelled on the afternoon of 3
# December 2026 before that day's third round of content work), looked at once, whole, the
# grader and content of 4cda2ca → those after that round (evidence, claims and needs widened to
# the seventh set's misses and unearned points): F1 0.876 → 0.886, 0.74 → 0.60 points per wrong
# answer beyond its labels, mistakes precision 0.950 → 0.948 and recall 0.627 → 0.684 (212
# stated), 1 → 1 of 95 strong answers flagged. Then a fourth round fitted to the eighth's
# misses and unearned points: seventh 0.905, 0.32, 0.963 / 0.991, 0 of 96; eighth 0.900, 0.23,
# 0.958 / 0.976, 1 of 95 (fitted: the set kept aside, below, says how much carries over). The
# ninth (tests/grading/ninth: 378 answers over 126 cards, written and labelled on 3 December
# 2026 after the day's third round of content work and before its fourth), looked at once,
# whole, the grader and content of 8bb4b4d → those after the fourth round: F1 0.876 → 0.879,
# 0.62 → 0.55 points per wrong answer beyond its labels, mistakes precision 0.887 → 0.889 and
# recall 0.764 → 0.779 (195 stated), 4 → 4 of 95 strong answers flagged. Then higher bars and
# a fifth round fitted to the ninth's misses and unearned points: second 0.924, 0.06, 0.985 /
# 0.990, 0 of 80; third 0.907, 0.05, 0.971 / 0.987, 0 of 96; fourth 0.931, 0.05, 0.982 /
# 0.974, 0 of 95; fifth 0.904, 0.01, 0.996 / 0.992, 0 of 96; sixth 0.907, 0.04, 0.977 / 0.982,
# 0 of 95; seventh 0.914, 0.13, 0.959 / 0.995, 0 of 96; eighth 0.899, 0.09, 0.959 / 0.986, 0
# of 95; ninth 0.894, 0.15, 0.929 / 0.938, 0 of 95 (fitted: the set kept aside, below, says
# how much carries over).
TUNED = {
    "second": {
        "least_f1": 0.88,
        "most_unearned_per_wrong": 0.45,
        "least_mistake_precision": 0.95,
        "least_mistake_recall": 0.9,
        "most_strong_flagged": 0.03,
    },
    "third": {
        "least_f1": 0.875,
        "most_unearned_per_wrong": 0.35,
        "least_mistake_precision": 0.94,
        "least_mistake_recall": 0.9,
        "most_strong_flagged": 0.03,
    },
    "fourth": {
        "least_f1": 0.89,
        "most_unearned_per_wrong": 0.42,
        "least_mistake_precision": 0.95,
        "least_mistake_recall": 0.88,
        "most_strong_flagged": 0.03,
    },
    "fifth": {
        "least_f1": 0.865,
        "most_unearned_per_wrong": 0.42,
        "least_mistake_precision": 0.96,
        "least_mistake_recall": 0.86,
        "most_strong_flagged": 0.03,
    },
    "sixth": {
        "least_f1": 0.865,
        "most_unearned_per_wrong": 0.55,
        "least_mistake_precision": 0.93,
        "least_mistake_recall": 0.88,
        "most_strong_flagged": 0.05,
    },
    "seventh": {
        "least_f1": 0.895,
        "most_unearned_per_wrong": 0.4,
        "least_mistake_precision": 0.95,
        "least_mistake_recall": 0.96,
        "most_strong_flagged": 0.02,
    },
    "eighth": {
        "least_f1": 0.89,
        "most_unearned_per_wrong": 0.3,
        "least_mistake_precision": 0.94,
        "least_mistake_recall": 0.95,
        "most_strong_flagged": 0.02,
    },
    "ninth": {
        "least_f1": 0.885,
        "most_unearned_per_wrong": 0.2,
        "least_mistake_precision": 0.91,
        "least_mistake_recall": 0.92,
        "most_strong_flagged": 0.02,
    },
}


@pytest.mark.parametrize("name", sorted(TUNED))
def test_the_sets_tuned_on_are_not_worse(catalog: Catalog, name: str) -> None:
    items = load_tuned_on(name)
    assert len(items) >= 300 and len({i.card for i in items}) >= 100
    assert sum(i.kind in ("wrong", "mistake") for i in items) >= len(items) / 3
    _holds(independent_scores(items, catalog), TUNED[name])


# The set kept aside (tests/grading/aside: 378 answers over 126 cards, written and labelled on
# the evening of 3 December 2026 on the content of 5687f6f), looked at once, whole, the grader
# and content of 5687f6f → those after the higher bars and the fifth round of content work
# (fitted to the ninth set): F1 0.884 → 0.892, 0.46 → 0.30 points per wrong answer beyond its
# labels, mistakes precision 0.927 → 0.934 and recall 0.748 → 0.770 (222 stated), 4 → 3 of 94
# strong answers flagged. Pinned a little below, so that a regression fails; nothing is tuned
# on it.
ASIDE = {
    "least_f1": 0.88,
    "most_unearned_per_wrong": 0.36,
    "least_mistake_precision": 0.91,
    "least_mistake_recall": 0.75,
    "most_strong_flagged": 0.05,
}


def test_the_set_kept_aside_is_not_worse(catalog: Catalog) -> None:
    aside = load_aside()
    assert len(aside) >= 300 and len({i.card for i in aside}) >= 100
    assert sum(i.kind in ("wrong", "mistake") for i in aside) >= len(aside) / 3
    _holds(independent_scores(aside, catalog), ASIDE)


def _holds(found: IndependentScores, pins: dict[str, float]) -> None:
    assert found.points.f1 >= pins["least_f1"], found
    assert found.unearned_per_wrong <= pins["most_unearned_per_wrong"], found
    assert found.mistake_precision >= pins["least_mistake_precision"], found
    assert found.mistake_recall >= pins["least_mistake_recall"], found
    assert found.strong_flagged <= pins["most_strong_flagged"] * found.strong, found

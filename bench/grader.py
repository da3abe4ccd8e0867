"""How well the rubric grader tells a right answer from a wrong one, and how fast it is.

    python bench/grader.py

Runs the labelled answers in tests/grading/ through the grader and, for comparison, through the
keyword matcher it replaced. The tuning set (answers_tuning.yml and answers_tuning2.yml) is
what the grader's weights and vocabulary were decided on. Nothing was tuned on the three
held-out sets: answers_heldout.yml; answers_heldout2.yml, written on cards of topics 09-10
before the second round of changes; answers_heldout3.yml, typed the way people answer under
time pressure (abbreviations, typos, fragments, numbers in other notations, paraphrase) on 24
cards no other set uses, and labelled by meaning before the third round of changes. No two sets
share a card. Prints micro precision, recall and F1 over rubric points, overall and by kind of
answer (strong, partial, wrong), and the mean number of points suggested for a wrong answer.
Targets: F1 >= 0.85, at most 0.5 points per wrong answer. Then the median time of one check of
a 300-word answer (target: under 20 ms), beside the keyword matcher's time on the same answer.

Measured after the third round (before it): tuning F1 0.907, 0.36 points per wrong answer
(0.878, 0.39); held-out 0.821, 0.44 (0.789, 0.44); held-out 2 0.893, 0.25 (0.844, 0.33);
held-out 3 0.915, 0.00 (0.892, 0.00); about 8 ms per 300-word check (about 6 ms).
Then every rubric point's keywords were widened to the ways people say it (written from the
rubrics and the tuning answers; the held-out answers were not read): tuning 0.962, 0.33;
held-out 0.860, 0.50; held-out 2 0.903, 0.25; held-out 3 0.945, 0.17; about 3 ms a check.
Then 138 more tuning answers on 46 cards no set had used (answers_tuning3_a/b.yml, labelled
before their cards' keywords changed) and the keywords they showed missing or too loose:
tuning (260 answers over 88 cards) 0.966, 0.18; held-out 0.860, 0.50; held-out 2 0.910, 0.25;
held-out 3 0.945, 0.17; the three held-out sets pooled (155 answers) 0.912, 0.29.
"""

import re
import statistics
import sys
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.content.catalog import CardView, Catalog  # noqa: E402
from app.content.loader import load_catalog  # noqa: E402
from app.content.schema import RubricPoint  # noqa: E402
from app.grading import check  # noqa: E402

ANSWERS = ROOT / "tests" / "grading"
SETS = {
    "tuning": tuple(sorted(ANSWERS.glob("answers_tuning*.yml"))),  # tuning.yml, tuning2.yml, …
    "held-out": (ANSWERS / "answers_heldout.yml",),
    "held-out 2": (ANSWERS / "answers_heldout2.yml",),
    "held-out 3": (ANSWERS / "answers_heldout3.yml",),
}
KINDS = ("strong", "partial", "wrong")

Grade = Callable[[CardView, str], list[int]]


@dataclass(frozen=True)
class Labelled:
    card: str
    kind: str
    answer: str
    points: frozenset[int]


@dataclass(frozen=True)
class Scores:
    precision: float
    recall: float
    f1: float
    answers: int
    suggested_per_answer: float


def load_set(paths: Sequence[Path]) -> list[Labelled]:
    """The labelled answers of one set, which may span several files."""
    items = [item for path in paths for item in yaml.safe_load(path.read_text())]
    return [Labelled(i["card"], i["kind"], i["answer"], frozenset(i["points"])) for i in items]


def score(items: Sequence[Labelled], catalog: Catalog, grade: Grade) -> Scores:
    """Micro-averaged over every rubric point of every answer."""
    true_pos = false_pos = false_neg = suggested = 0
    for item in items:
        card = catalog.card(item.card)
        assert card is not None, f"no card {item.card}"
        got = set(grade(card, item.answer))
        suggested += len(got)
        true_pos += len(got & item.points)
        false_pos += len(got - item.points)
        false_neg += len(item.points - got)
    precision = true_pos / (true_pos + false_pos) if true_pos + false_pos else 1.0
    recall = true_pos / (true_pos + false_neg) if true_pos + false_neg else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Scores(precision, recall, f1, len(items), suggested / max(1, len(items)))


def grader(card: CardView, answer: str) -> list[int]:
    return check(card, answer).points


# The keyword matcher this grader replaced (app/mock/rubric.py before it), kept to compare.
_DASHES = dict.fromkeys(map(ord, "‐‑‒–—―−"), "-")


def _old_normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).translate(_DASHES).lower()
    return re.sub(r"\s+", " ", text.replace(" ", "").replace("\u2009", ""))


def keyword_matcher(card: CardView, answer: str) -> list[int]:
    return _old_suggested(list(card.card.rubric), answer)


def _old_suggested(rubric: list[RubricPoint], *answers: str) -> list[int]:
    haystack = _old_normalise(" ".join(answers))
    compact = haystack.replace(" ", "")
    found = []
    for index, point in enumerate(rubric):
        for keyword in point.keywords:
            needle = _old_normalise(keyword)
            if needle in haystack or needle.replace(" ", "") in compact:
                found.append(index)
                break
    return found


def report(name: str, items: list[Labelled], catalog: Catalog) -> None:
    print(f"\n{name}: {len(items)} answers over {len({i.card for i in items})} cards")
    print(f"  {'':<16}{'':<9} precision  recall   F1    points/answer")
    for label, grade in (("grader", grader), ("keyword matcher", keyword_matcher)):
        for kind in ("all", *KINDS):
            subset = [i for i in items if kind in ("all", i.kind)]
            s = score(subset, catalog, grade)
            print(
                f"  {label if kind == 'all' else '':<16}{kind:<9} {s.precision:9.3f} "
                f"{s.recall:7.3f} {s.f1:6.3f} {s.suggested_per_answer:8.2f}"
            )


def long_answer(items: list[Labelled], card_id: str, words: int = 300) -> str:
    """About `words` words of typed answers to one card, strong ones first."""
    texts = [i.answer for i in items if i.card == card_id]
    text = ""
    while len(text.split()) < words:
        text += " " + " ".join(texts)
    return " ".join(text.split()[:words])


def median_ms(grade: Grade, card: CardView, answer: str, repeats: int = 200) -> float:
    grade(card, answer)  # warm: compiled rubric, stems
    times = []
    for index in range(repeats):
        text = f"{answer} ({index})"  # never the same text twice: no cache hides the work
        start = time.perf_counter()
        grade(card, text)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    catalog = load_catalog(ROOT / "content")
    sets = {name: load_set(path) for name, path in SETS.items()}
    for name, items in sets.items():
        report(name, items, catalog)
    everything = [i for items in sets.values() for i in items]
    print("\nlatency of one check, 300-word answer (median of 200):")
    for card_id in ("par-comm-table", "ring-alpha-beta", "moe-serving"):
        card = catalog.card(card_id)
        assert card is not None
        text = long_answer(everything, card_id)
        ours, old = median_ms(grader, card, text), median_ms(keyword_matcher, card, text)
        print(f"  {card_id:<18} grader {ours:6.2f} ms   keyword matcher {old:6.2f} ms")


if __name__ == "__main__":
    main()

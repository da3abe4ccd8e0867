"""A common mistake said in the answer's own words: found by what its claim says.

A mistake's evidence (its phrases, formulas and figures) finds the ways it is usually typed; a
writer who states it in other words is found by its claim instead: the first sentence of the
mistake's text ("Saying SP doubles TP's traffic because…"), less how it is framed ("Saying")
and what follows as the truth ("…, when NVLink hops are cheaper"). One affirmative statement
of the answer that says most of the claim's words, weighed by what each word proves
(app.grading.field), with every figure, direction and turning word ("only", "every") the claim
gives, states it. Tuned on the labelled sets that may be tuned on (bench/grader.py --tuning).
"""

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from app.content.schema import CLAIM_WORDS
from app.grading.evidence import COUNT_WORDS, Answer, Quantity, close, read, word_in
from app.grading.field import Field
from app.grading.text import Word, clauses, lower, normalise, stem

CLAIM_SHARE = 0.7  # of a claim's words, weighed by what each proves, said in one statement
CLAIM_MISSING = 5  # a statement may miss one word of the claim in five (none of a shorter one)
CLAIM_QUESTION = 0.5  # weight of a claim's word that the question already says
# A mistake that is something left out ("Forgetting the master copy") is not found by its
# words: an answer that names the thing says the opposite.
OMISSIONS = frozenset(
    stem(w)
    for w in "forgetting ignoring omitting skipping missing neglecting overlooking dropping".split()
)
FRAMES = frozenset(
    stem(w)
    for w in "say saying call calling think thinking assume assuming treat treating "
    "quote quoting claim claiming believe believing".split()
)
DIRECTIONS = frozenset({"grow", "shrink", "more", "less", "double", "halv", "faster", "slower"})
_CONTRAST = re.compile(r"\b(?:instead|rather|unlike|but|skip|skips|skipping|avoid|except)\b")
# Words on which a claim turns ("profiling only the slow build", "the same cost"): a statement
# without them does not say it, however many of its other words it has.
TURNS = ("only", "every", "all", "always", "never", "same", "whole", "entire", "any")
_TURNS = re.compile(rf"\b(?:{'|'.join(TURNS)})\b")


@dataclass(frozen=True)
class Claim:
    """What a common mistake asserts, from the first sentence of its text ("Saying SP doubles
    TP's traffic…"): its words, each weighed by what it proves, and its figures. An answer
    states it where one affirmative statement says CLAIM_SHARE of it (by weight) and every
    figure it gives; a statement that denies or contrasts anything is not read as stating it,
    since a strong answer names a mistake mostly to set it aside."""

    words: tuple[Word, ...]
    weights: tuple[float, ...]
    figures: tuple[Quantity, ...]
    negative: bool  # the claim itself denies something ("SP adds no communication")
    turns: frozenset[str]  # its words from _TURNS, each needed as it is
    turn_words: tuple[Word, ...]  # its direction words ("shrinks", "more") and denied ones
    counts: frozenset[tuple[str, str]]  # what it counts, and how many ("eight", "rank")

    @property
    def counted(self) -> frozenset[str]:
        return frozenset(noun for _count, noun in self.counts)

    def stated(self, answer: Answer) -> int | None:
        """The first statement of the answer that states the claim (its index), or None."""
        total = sum(self.weights)
        rarest = self.words[self.weights.index(max(self.weights))]
        if not all(answer.similar(w.stem) for w in (rarest, *self.turn_words)):
            return None  # a word it cannot be stated without is nowhere in the answer
        for index, part in enumerate(answer.clauses):
            if not self.negative and (part.denied or _CONTRAST.search(part.text)):
                continue
            if not self.turns <= {_UNIVERSAL.get(t, t) for t in _TURNS.findall(part.text)}:
                continue
            if not all(
                any(close(f, got, strict=True) for got in answer.quantities[index])
                for f in self.figures
            ):
                continue
            if self.counts and any(
                noun in self.counted and (count, noun) not in self.counts
                for count, noun in _counts(part.words) | _ones(part.text)
            ):
                continue  # "one rank per node" is not the claim's "8 ranks per node"
            if word_in(rarest, part, answer, frozenset()) is None:
                continue
            found = {w.stem: word_in(w, part, answer, frozenset()) is not None for w in self.words}
            if not all(found[w.stem] for w in self.turn_words):  # the rarest: checked above
                continue
            said = sum(
                w for w, word in zip(self.weights, self.words, strict=True) if found[word.stem]
            )
            if list(found.values()).count(False) > len(found) // CLAIM_MISSING:
                continue
            if total and said / total >= CLAIM_SHARE:
                return index
        return None


@lru_cache(maxsize=1024)
def claims_of(
    mistakes: tuple[tuple[str, tuple[str, ...]], ...], question: str, field: Field
) -> tuple[tuple[Claim, ...], ...]:
    """The claims of each mistake, given as its text and its `claims`: the first sentence of
    the text (unless its words cannot find it) and each claim as written, their words weighed
    in `field`, those `question` already says at CLAIM_QUESTION."""
    asked = {w.stem for c in clauses(lower(normalise(question))) for w in c.words}
    return tuple(
        tuple(
            claim
            for claim in (_claim(text, asked, field), *(_said(c, asked, field) for c in said))
            if claim is not None
        )
        for text, said in mistakes
    )


_UNIVERSAL = dict.fromkeys(("every", "all", "always", "any", "whole", "entire"), "every")
_SUBORDINATE = re.compile(r",?\s(?:when|which|where|while|whereas)\s|;\s|\s[—–]\s")
_FIRST_SENTENCE = re.compile(r"(?<=[a-z0-9)$%\"'`])\.\s")


def _claim(text: str, asked: set[str], field: Field) -> Claim | None:
    """The claim of a mistake's text: its first sentence, less its framing and the truth."""
    first = _FIRST_SENTENCE.split(text.strip())[0]
    first = _SUBORDINATE.split(first)[0]  # "…, when NVLink hops are cheaper": what is true
    words = [w for c in clauses(lower(normalise(first))) for w in c.words]
    if words and words[0].stem in OMISSIONS:
        return None
    if words and first.split()[0].lower().endswith("ing"):
        words = words[1:]  # "Saying", "Assuming": how the mistake is framed, not what it says
    words = [w for w in words if w.stem not in FRAMES]  # "…and calling it the peak"
    return _weighed(first, words, asked, field)


def _said(claim: str, asked: set[str], field: Field) -> Claim | None:
    """A claim of the mistake's `claims`: the wrong assertion as a candidate types it ("every
    token still gets its k experts"), read whole, with no framing to drop."""
    words = [w for c in clauses(lower(normalise(claim))) for w in c.words]
    return _weighed(claim, words, asked, field)


def _weighed(text: str, words: list[Word], asked: set[str], field: Field) -> Claim | None:
    """The claim `text` makes with `words` (None for fewer than CLAIM_WORDS of them)."""
    unique: dict[str, Word] = {}
    for word in words:
        if len(word.stem) > 1:
            unique.setdefault(word.stem, word)
    if len(unique) < CLAIM_WORDS:
        return None
    weights = tuple(field.evidence(s) * (CLAIM_QUESTION if s in asked else 1.0) for s in unique)
    figures = tuple(q for part in read(text).quantities for q in part)
    negative = any(w.negated for w in unique.values())
    turns = frozenset(_UNIVERSAL.get(t, t) for t in _TURNS.findall(text.lower()))
    # its direction words and what it denies: a statement that misses one says otherwise
    directions = tuple(w for w in unique.values() if w.stem in DIRECTIONS or w.negated)
    counts = _counts(words)
    return Claim(tuple(unique.values()), weights, figures, negative, turns, directions, counts)


_ONE = re.compile(r"(?<![\w.])1\s+([a-z]\w+)")


def _ones(text: str) -> frozenset[tuple[str, str]]:
    """What "1" counts in a statement ("1 rank per node"): a lone 1 is not read as a word."""
    return frozenset(("one", stem(noun)) for noun in _ONE.findall(text))


def _counts(words: Sequence[Word]) -> frozenset[tuple[str, str]]:
    """Each count and the word it counts: ("eight", "rank") in "8 ranks per node"."""
    return frozenset(
        (count.stem, noun.stem)
        for count, noun in itertools.pairwise(words)
        if count.stem in COUNT_WORDS
    )

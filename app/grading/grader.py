"""Which rubric points an answer makes: each point weighed on its own evidence.

A point's evidence is its keywords and the words of the point itself. A formula, a number or
a phrase of several words counts fully; a lone word counts less, and much less when it only
repeats the question or is a word every answer in the field uses. Evidence found only where
the answer denies it ("it's not a reduce-scatter") counts against the point. Once an answer
has clearly made several points, the rest need less evidence.

A card's common mistakes are looked for too, by their evidence and by their claims
(app.grading.claims). A point a stated mistake contradicts is not credited, the statement that
states a mistake makes no point, and an answer that states one needs clearer evidence for all
its points, unless it writes the point's formula or figure (one that states two, evidence few
answers have); a point it would make but for the mistake is left undecided.
"""

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import lru_cache

from app.content.schema import Mistake, RubricPoint
from app.grading.claims import Claim, claims_of
from app.grading.evidence import (
    TOLERANCE,
    Answer,
    Evidence,
    Quantity,
    about_the_same,
    close,
    compact,
    compile_keyword,
    find,
    formula_at,
    found_at,
    found_together,
    may_say,
    quantities,
    quantity_conflict,
    read,
    span_of,
    word_in,
)
from app.grading.field import Field
from app.grading.subjects import entities
from app.grading.text import Clause, Word, clauses, lower, normalise
from app.grading.vocabulary import NUMBER_WORDS

# Weights and the threshold, tuned on tests/grading/answers_tuning*.yml only. The bars were
# raised on 3 December 2026 (THRESHOLD 0.9 → 1.0, LENIENT 0.7 → 0.8, the bar after a stated
# mistake 1.35 as before and 1.1 → 1.2 for a written formula or figure), chosen on the ninth
# set before any content was fitted to it: 0.55 → 0.45 points per wrong answer beyond its
# labels, F1 0.880 → 0.877 (all the tuned-on sets: 0.223 → 0.203, F1 0.906 → 0.900). A point
# just under the bar is reported undecided, not credited.
THRESHOLD = 1.0
# An answer that clearly makes CLEAR_POINTS points knows the card: its weaker evidence for the
# others is read at LENIENT (a strong answer in its own words), which no buzzword answer reaches.
LENIENT = 0.8
CLEAR_POINTS = 3
SINGLE_WORD = 0.7  # a keyword of one ordinary word
GENERIC_WORD = 0.35  # one word every answer in the field uses
GENERIC_PHRASE = 0.4  # a phrase of such words ("all-gather", "per step")
ECHO = 0.4  # keyword that only repeats the question
SUPPORT = 0.35  # each further keyword found adds this share of its weight
COVERAGE = 0.6  # the point's own words found, as a share of them, times this
ECHO_COVER = 0.0  # weight, in that share, of a point's word the question already says
SHORT_FORMULA = 0.5  # a formula of fewer than FORMULA_SYMBOLS symbols ("K/B", "1/M")
FORMULA_SYMBOLS = 4
POINT_FORMULA = 0.7  # a formula written in the point itself, not among its keywords
SCATTERED = 0.8  # share of a phrase's weight when its words are in one statement, not in order
DENIED = 0.6  # taken off when a strong keyword is found only denied

STRATEGIES = frozenset({"dp", "tp", "pp", "ep", "cp", "sp"})
SPECIFIC = 0.35  # rarity (app.grading.field) above which a word is not one every answer uses
MIN_WORDS = 5  # a point with fewer words of its own proves less when they are found


_SYMBOL = re.compile(r"alpha|beta|gamma|delta|tau|psi|sqrt|[a-z0-9]")
_GREEK_LETTER = "ΨψαβγδτΔεθλμσρπφω"
_FORMULA_MARK = re.compile(rf"[/(^+=√·×]|[{_GREEK_LETTER}]|\d[A-Z{_GREEK_LETTER}]\b")


def _formulas(point: str) -> list[str]:
    """The formulas a rubric point writes out ("2(N−1)K/N", "16Ψ/N", "2K"), whole."""
    out = []
    for raw in point.split():
        token = raw.strip(".,;:")
        if token.count("(") != token.count(")"):
            token = token.strip("()")
        symbols = len(_SYMBOL.findall(lower(normalise(token))))
        if token.count("(") == token.count(")") and _FORMULA_MARK.search(token) and symbols > 1:
            out.append(token)
    return out


@dataclass(frozen=True)
class Check:
    """The points an answer makes (indexes into the rubric), each with the words that did; the
    card's common mistakes it states, each with its own words; and the points the grader
    cannot honestly call either way (its evidence sits at the threshold)."""

    points: list[int]
    reasons: dict[int, str]
    mistakes: list[int] = dataclass_field(default_factory=list)
    mistake_reasons: dict[int, str] = dataclass_field(default_factory=dict)
    unsure: list[int] = dataclass_field(default_factory=list)
    # Points not credited although their words are there, and why: a needed element missing,
    # a different value for the point's own quantity, a mistake that contradicts it.
    withheld: dict[int, str] = dataclass_field(default_factory=dict)

    @property
    def undecided(self) -> bool:
        """Whether the local grader cannot decide this answer: a point sits at its threshold."""
        return bool(self.unsure)


@dataclass(frozen=True)
class _Point:
    keywords: tuple[tuple[Evidence, float], ...]
    own_words: tuple[Word, ...]  # the point's own words
    own_weights: tuple[float, ...]  # each word's evidence, ECHO_COVER if the question says it
    about: frozenset[str]  # the strategies or stages the point speaks of, if any
    needs: tuple[tuple[Evidence, ...], ...] = ()  # each group: any one of these must be found
    order: tuple[tuple[Evidence, ...], ...] = ()  # each group found, the first said first, …


@dataclass(frozen=True)
class _Mistake:
    evidence: tuple[tuple[Evidence, ...], ...]  # any one group, all of a group in a statement
    contradicts: tuple[int, ...]


STATED_MISTAKE = 0.35  # added to the bar once an answer states a listed mistake: it has shown
# that it confuses the card's subject, so its other points need clearer evidence (a bar of
# 1.35, from 1.1, once the mistakes had their claims: on the second to fifth sets pooled, with
# SUBSTANCE_AFTER_MISTAKE, 0.69 → 0.59 points per wrong answer beyond the labels, F1 0.891 →
# 0.890, partial with a mistake 0.844 → 0.821; 0.45 on a THRESHOLD of 0.9 until 3 December)
SUBSTANCE_AFTER_MISTAKE = 0.2  # added instead for a point whose formula or figure it writes: the
# answer's own substance, which vocabulary does not make
FURTHER_MISTAKE = 1.0  # and for each further one: an answer that states two of the card's
# mistakes does not know the card, and only evidence as clear as a formula and its words earns
# it a point
UNSURE = 0.15  # a point whose score is this close to the bar could go either way


def points_made(
    rubric: Sequence[RubricPoint],
    answer: str,
    question: str = "",
    mistakes: Sequence[Mistake] = (),
    *,
    field: Field,
) -> Check:
    """Grade `answer` against `rubric`; `question` (plain text) discounts words it repeats;
    `mistakes` are looked for, and a point one contradicts is not credited; a point that is an
    order (`order`) is made only in that order. `field` (the catalog's word counts,
    app.grading.field) says how much each word proves."""
    compiled = _compile(
        tuple(
            (p.point, tuple(p.keywords), tuple(map(tuple, p.needs)), tuple(map(tuple, p.order)))
            for p in rubric
        ),
        question,
        field,
    )
    read_answer = read(answer)
    found_mistakes, mistake_reasons, contradicted, wrong = _mistakes(
        mistakes,
        read_answer,
        answer,
        claims_of(tuple((m.text, tuple(m.claims)) for m in mistakes), question, field),
    )
    # A statement that states a listed mistake makes no point: its words are the wrong claim's.
    right = _without(read_answer, set(wrong)) if wrong else read_answer
    withheld: dict[int, str] = {}
    scored = []
    for index, point in enumerate(compiled):
        score, found, substance = _score(point, right)
        if score >= LENIENT:
            why = contradicted.get(index) or _lacks(point, right, answer)
            if why:
                withheld[index] = why
                score = 0.0
        elif wrong and _score(point, read_answer)[0] >= LENIENT:  # its words, in the mistake
            said = next(iter(wrong.values()))
            withheld[index] = (
                contradicted.get(index)
                or _lacks(point, read_answer, answer)
                or f"said only where you stated a common mistake: “{said}”"
            )
        scored.append((score, found, substance))
    clear = sum(1 for score, _found, _substance in scored if score >= THRESHOLD)
    base = LENIENT if clear >= CLEAR_POINTS and not found_mistakes else THRESHOLD
    further = FURTHER_MISTAKE * (len(found_mistakes) - 1) if found_mistakes else 0.0
    points, reasons, unsure = [], {}, []
    for index, (score, found, substance) in enumerate(scored):
        bar = base + further
        if found_mistakes:
            bar += SUBSTANCE_AFTER_MISTAKE if substance else STATED_MISTAKE
        if score >= bar:
            points.append(index)
            reasons[index] = _reason(found, answer)
        if index not in withheld and (abs(score - bar) < UNSURE or base + further <= score < bar):
            unsure.append(index)  # at the bar, or made but for the mistake the answer states
    return Check(points, reasons, found_mistakes, mistake_reasons, unsure, withheld)


def _lacks(point: _Point, answer: Answer, typed: str) -> str:
    """Why the point's words alone do not make it here ("" when nothing is lacking): a group
    of its needs with nothing found; where that group is a figure, the different figure the
    answer gives instead (quoted as `typed`); or its order not followed."""
    for group in point.needs:
        if any(found_at(e, answer, point.about if e.words else frozenset()) for e in group):
            continue  # a figure or a formula is the point's own, whatever the statement names
        wanted = tuple(e.quantity for e in group if e.quantity is not None)
        for index in range(len(answer.clauses)) if wanted else ():
            if conflict := quantity_conflict(wanted, answer, index):
                text = answer.clauses[index].text
                said = (
                    _whole(text, conflict.offset, conflict.end)
                    if conflict.end >= 0
                    else _figure_at(text, conflict.offset)
                )
                said = as_typed(typed, said)
                return f"gives “{said}”, where the point's figure is {_alternatives(group)}"
        return "needs " + _alternatives(group)
    return _out_of_order(point, answer, typed)


def _out_of_order(point: _Point, answer: Answer, typed: str) -> str:
    """Why the point's order is not the answer's ("" when it is): a step it never says, or
    two steps said the other way round (the first mention of each counts)."""
    said: list[tuple[int, int, str]] = []  # per step: where it is first said, and how
    for group in point.order:
        found = [span for e in group if (span := span_of(e, answer)) is not None]
        if not found:
            return "needs " + _alternatives(group)
        index, start, end = min(found)
        said.append((index, start, as_typed(typed, _whole(answer.clauses[index].text, start, end))))
    for before, after in itertools.pairwise(said):
        if after[:2] < before[:2]:
            return f"puts “{after[2]}” before “{before[2]}”, the other way round"
    return ""


SHOWN_ALTERNATIVES = 3  # a reason names a few forms of what is needed, not the grader's list


def _alternatives(group: tuple[Evidence, ...]) -> str:
    """A few of the group's alternatives as the card writes them, each once ("14 bytes" from
    the point and from its keywords; "MTBF halves" and "MTBF is halved" are one wording): the
    first figure, formula and phrase, then the next in the card's order, up to
    SHOWN_ALTERNATIVES. A need can list dozens of wordings; a reader wants to know what is
    missing, not the list."""
    distinct: dict[str, Evidence] = {}
    for e in group:
        key = " ".join(sorted({w.stem for w in e.words})) if e.words else e.text
        distinct.setdefault(" ".join(key.lower().split()), e)
    firsts = (next((e for e in distinct.values() if _kind(e) == k), None) for k in _KINDS)
    chosen = [e for e in firsts if e is not None]
    chosen += [e for e in distinct.values() if e not in chosen][: SHOWN_ALTERNATIVES - len(chosen)]
    shown = [e.text for e in distinct.values() if e in chosen]  # in the card's order
    more = ", or the same in other words" if len(distinct) > len(shown) else ""
    return " or ".join(f"“{text}”" for text in shown) + more


_KINDS = ("figure", "formula", "phrase")  # no more than SHOWN_ALTERNATIVES


def _kind(evidence: Evidence) -> str:
    if evidence.quantity is not None:
        return "figure"
    return "formula" if evidence.formula else "phrase"


def _figure_at(text: str, offset: int) -> str:
    """The number and unit written at `offset` ("720 gb/s")."""
    match = re.match(r"[\d.,]+\s?[a-z/%]*", text[offset:])
    return match.group().rstrip(",. ") if match else text[offset : offset + 12]


def _mistakes(
    mistakes: Sequence[Mistake], answer: Answer, text: str, claims: Sequence[tuple[Claim, ...]]
) -> tuple[list[int], dict[int, str], dict[int, str], dict[int, str]]:
    """The mistakes the answer states, the words that state each, the points they deny, and
    the statements that state them (each with its words):
    a mistake is stated where its evidence is found, or where one statement says most of
    what its claim says (app.grading.claims)."""
    compiled = _compile_mistakes(
        tuple((tuple(map(tuple, m.evidence)), tuple(m.contradicts)) for m in mistakes)
    )
    found: list[int] = []
    reasons: dict[int, str] = {}
    contradicted: dict[int, str] = {}
    statements: dict[int, str] = {}
    for index, (mistake, its_claims) in enumerate(zip(compiled, claims, strict=True)):
        where, offset = _evidence_of(mistake, answer) or (None, None)
        for claim in its_claims:
            if where is not None:
                break
            where, offset = claim.stated(answer), None
        if where is not None:
            found.append(index)
            said = quote(text, _line_at(answer.clauses[where].text, offset))
            statements.setdefault(where, said)
            reasons[index] = f"You said “{said}”"
            for point in mistake.contradicts:
                contradicted.setdefault(point, f"contradicted by what you said: “{said}”")
    return found, reasons, contradicted, statements


def _without(answer: Answer, statements: set[int]) -> Answer:
    """The answer read without the statements given (by index): what else it says."""
    return answer.keeping([i for i in range(len(answer.clauses)) if i not in statements])


def _evidence_of(mistake: "_Mistake", answer: Answer) -> tuple[int, int] | None:
    """Where one of the mistake's evidence groups is found: the statement and the offset."""
    for group in mistake.evidence:
        if len(group) > 1:
            found = found_together(group, answer)
        else:
            found = found_at(group[0], answer, loose=False) or _in_any_order(group[0], answer)
        if found is not None:
            return found
    return None


def _in_any_order(evidence: Evidence, answer: Answer) -> tuple[int, int] | None:
    """Where a mistake's phrase of two words is stated with its words the other way round,
    side by side in one statement ("the skew of the launches" for "launch skew"): each word,
    or a typo, an inflection or a synonym of it, with the polarity it has in the phrase, so
    that "it does not reshard" never states "reshards". (Longer phrases in any order, or words
    further apart, flagged strong answers on the tuning part and found nothing more.)"""
    if len(evidence.words) != 2:
        return None
    first, second = ((answer.similar(w.stem), w.negated) for w in evidence.words)
    if not (first[0] and second[0]):
        return None
    for index, part in enumerate(answer.clauses):
        for before, after in itertools.pairwise(part.words):
            said = (before.stem in second[0] and before.negated == second[1]) and (
                after.stem in first[0] and after.negated == first[1]
            )
            if said:
                return index, before.start
    return None


@lru_cache(maxsize=1024)
def _compile_mistakes(
    mistakes: tuple[tuple[tuple[tuple[str, ...], ...], tuple[int, ...]], ...],
) -> list[_Mistake]:
    out = []
    for groups, contradicts in mistakes:
        compiled = (tuple(compile_keyword(k) for k in group) for group in groups)
        out.append(_Mistake(tuple(g for g in compiled if all(map(_evidence, g))), contradicts))
    return out


def _evidence(evidence: Evidence) -> bool:
    """A keyword that says something: not only words every sentence has ("in plus out")."""
    return bool(evidence.quantity or evidence.formula or evidence.words)


_PIECE_END = re.compile(r"(?<=[.!?;])\s+|\n|\s-+>\s?|\s-{1,2}\s|→")


def _line_at(statement: str, offset: int | None) -> str:
    """The line of a statement that holds `offset` (a statement may run over a line break)."""
    if offset is None or "\n" not in statement:
        return statement
    start = statement.rfind("\n", 0, offset) + 1
    end = statement.find("\n", offset)
    return statement[start : end if end >= 0 else len(statement)]


QUOTE_CHARS = 160


def quote(text: str, statement: str) -> str:
    """The answer's own words for one of its statements (read normalised, in lower case):
    the piece of the original text that shares most words with it."""
    wanted = set(_TOKENS.findall(statement))
    best, best_shared = statement, -1.0
    for piece in _PIECE_END.split(text):
        piece = " ".join(piece.split())
        if not piece:
            continue
        words = set(_TOKENS.findall(piece.lower()))
        shared = len(wanted & words) - 0.01 * len(words - wanted)
        if shared > best_shared:
            best, best_shared = piece, shared
    best = best.strip(" .;")
    if len(best) <= QUOTE_CHARS:
        return best
    return best[:QUOTE_CHARS].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"  # whole words only


_TOKENS = re.compile(r"[a-z0-9]+")


def _score(point: _Point, answer: Answer) -> tuple[float, list[str], bool]:
    """The point's score in the answer, the answer's words that gave it, and whether a formula
    or a figure among its keywords was written."""
    weights, found, denied, substance = [], [], 0.0, False
    for evidence, weight in point.keywords:
        affirmed, negated = find(evidence, answer, point.about)
        if affirmed:
            substance = substance or bool(evidence.formula or evidence.quantity)
            weights.append(weight)
            found.extend(_written(evidence, answer, point.about))
        elif not negated and (spread := _scattered(evidence, answer, point.about)):
            weights.append(weight * SCATTERED)
            found.extend(spread)
        elif not negated and len(evidence.words) >= 3:
            share, spread = _most_of(evidence, answer, point.about)
            if share:
                weights.append(weight * SCATTERED * share)
                found.extend(spread)
        elif negated:
            denied = max(denied, weight)
    weights.sort(reverse=True)
    score = (weights[0] + SUPPORT * sum(weights[1:])) if weights else 0.0
    if point.own_words:
        said = [
            (w, weight, written)
            for w, weight in zip(point.own_words, point.own_weights, strict=True)
            if (written := _said(w, answer, point.about)) is not None
        ]
        total = sum(point.own_weights)
        share = sum(weight for _w, weight, _written in said) / total if total else 0.0
        own = sum(1 for weight in point.own_weights if weight > ECHO_COVER)
        score += COVERAGE * share * min(1.0, own / MIN_WORDS)
        found += [
            f"{written}…"
            for w, weight, written in said
            if weight > ECHO_COVER and not any(w.stem in _letters(f) for f in found)
        ]
    if denied >= SINGLE_WORD:
        score -= DENIED
    return score, found, substance


def _written(evidence: Evidence, answer: Answer, about: frozenset[str]) -> list[str]:
    """The answer's own text that gave the evidence (the keyword itself may be written
    otherwise: "RS" for "reduce-scatter", "2K(N-1)/N" for "2(N-1)K/N")."""
    span = span_of(evidence, answer, about)
    if span is None:
        return []
    index, start, end = span
    return [_whole(answer.clauses[index].text, start, end)]


def _scattered(evidence: Evidence, answer: Answer, about: frozenset[str]) -> list[str]:
    """A phrase's words all said in one statement, though in another order or further apart
    ("the skew of the launches" for "launch skew"): the answer's words that say them, or []."""
    if len(evidence.words) < 2 or not may_say(evidence, answer):
        return []
    for part in answer.clauses:
        said = [word_in(w, part, answer, about) for w in evidence.words]
        if all(said):
            return _stretch(part, [w for w in said if w])
    return []


def _most_of(evidence: Evidence, answer: Answer, about: frozenset[str]) -> tuple[float, list[str]]:
    """The share of a long phrase's words said in one statement, if all but one are, and the
    one left out is not its count ("2 all-reduces per layer" is not "four all-reduces per
    layer"); and the answer's words that say them."""
    total = len(evidence.words)
    counts = [w for w in evidence.words if w.stem in _COUNTS]
    best: list[Word] = []
    best_part = answer.clauses[0] if answer.clauses else None
    for part in answer.clauses:
        said = {w: got for w in evidence.words if (got := word_in(w, part, answer, about))}
        if all(w in said for w in counts) and len(said) > len(best):
            best, best_part = list(said.values()), part
    if len(best) < total - 1 or best_part is None:
        return 0.0, []
    return len(best) / total, _stretch(best_part, best)


STRETCH_CHARS = 80  # a quote of words said apart, up to this long; else the words one by one


def _stretch(part: Clause, words: list[Word]) -> list[str]:
    """The answer's text from the first of `words` to the last, when short; else each word."""
    start = min(w.start for w in words)
    end = max(_end(part, w) for w in words)
    if end - start <= STRETCH_CHARS:
        return [_whole(part.text, start, end)]
    return [_whole(part.text, w.start, _end(part, w)) for w in sorted(words, key=lambda w: w.start)]


def _whole(text: str, start: int, end: int) -> str:
    """text[start:end] widened to whole words: "sbh" read in "10sbh" quotes "10sbh"."""
    while start > 0 and text[start - 1].isalnum():
        start -= 1
    while end < len(text) and text[end].isalnum():
        end += 1
    return text[start:end]


def _end(part: Clause, word: Word) -> int:
    if word.end >= 0:
        return word.end
    written = _WORD.match(part.text, word.start)
    return written.end() if written else word.start


_COUNTS = frozenset(NUMBER_WORDS.values()) | {"one", "twice", "half", "double"}


def _said(word: Word, answer: Answer, about: frozenset[str]) -> str | None:
    """The answer's word that says `word` (as the answer wrote it), or None."""
    similar = answer.similar(word.stem)
    for c in answer.clauses:
        for w in c.words:
            if (
                w.stem in similar
                and w.negated == word.negated
                and about_the_same(about, c.subject_at(w.start))
            ):
                return _whole(c.text, w.start, _end(c, w)) or w.stem
    return None


_WORD = re.compile(r"[\w'’-]+")


def _letters(text: str) -> str:
    """A reason's text as stems compare with it: "all-gather" holds the stem "allgath"."""
    return re.sub(r"\W", "", text.lower())


def _reason(found: list[str], typed: str) -> str:
    """What made a point, in the answer's own words: the text that gave each keyword, then
    the point's own words it says (each as typed, where its case is all that differs)."""
    quoted: list[str] = []
    words: list[str] = []
    tokens: list[tuple[str, str]] = []  # the typed answer's tokens, each as read: on demand
    for text in found:
        kept = words if text.endswith("…") else quoted
        said = as_typed(typed, text.removesuffix("…").strip(" .,;:"), tokens)
        if said and said not in kept:
            kept.append(said)
    # "linearly" says nothing "grows linearly with N" does not: the longer quote is enough.
    quoted = [q for q in quoted if not any(q != other and q in other for other in quoted)]
    words = [w for w in words if not any(w.lower() in q.lower() for q in quoted)]
    parts = []
    if quoted:
        parts.append("matched " + ", ".join(f"“{text}”" for text in quoted))
    if words:
        parts.append("the point's words " + ", ".join(words))
    return "; ".join(parts)


def as_typed(typed: str, said: str, tokens: list[tuple[str, str]] | None = None) -> str:
    """`said` (a piece of the answer as read: normalised, lower case) as the answer typed it:
    where only case and spacing differ ("RS" for "rs"), or where whole typed words read as it
    ("N·α·B" for "n* alpha *b"); else as read. `tokens` keeps the typed words as read, for
    the next piece of the same answer."""
    pattern = r"\s+".join(re.escape(token) for token in said.split())
    if not pattern:
        return said
    match = re.search(rf"(?<!\w){pattern}(?!\w)", typed, re.IGNORECASE)
    if match:
        return " ".join(match.group().split())
    if tokens is None:
        tokens = []
    if not tokens:
        tokens.extend((word, " ".join(lower(normalise(word)).split())) for word in typed.split())
    wanted = " ".join(said.split())
    for start in range(len(tokens)):
        for end in range(start + 1, min(start + TYPED_WORDS, len(tokens)) + 1):
            window = tokens[start:end]
            read_as = " ".join(r for _w, r in window).strip(_EDGES)
            # the words read as it, or as it and a little more typed in the same word
            # ("exp(x_j))^2" for "exp"): whole typed words either way
            if read_as == wanted or (
                read_as.startswith(wanted) and len(read_as) - len(wanted) <= TYPED_EXTRA
            ):
                return " ".join(w for w, _r in window).strip(_EDGES)
            if len(read_as) > len(wanted):
                break
    return said


TYPED_WORDS = 8  # the longest run of typed words looked at for a quote read otherwise
TYPED_EXTRA = 12  # characters a typed word may have beyond the quote it stands for
_EDGES = " .,;:()[]\"'"


@lru_cache(maxsize=1024)
def _compile(
    rubric: tuple[
        tuple[str, tuple[str, ...], tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]], ...
    ],
    question: str,
    words: Field,
) -> list[_Point]:
    asked = {w.stem for c in clauses(lower(normalise(question))) for w in c.words}
    asked_text = lower(normalise(question)).replace(" ", "")
    asked_quantities = [q for qs in read(question).quantities for q in qs]
    out = []
    for point, keywords, needs, order in rubric:
        point_text = compact(lower(normalise(point)))
        weighted = []
        for keyword in keywords:
            evidence = compile_keyword(keyword)
            if not (evidence.quantity or evidence.formula or evidence.words):
                continue  # only words every sentence has ("what-if", "again"): no evidence
            weight = _weight(evidence, asked, asked_text, point_text, words)
            if evidence.quantity and any(
                close(evidence.quantity, q, strict=True)
                and math.isclose(evidence.quantity.value, q.value, rel_tol=TOLERANCE)
                for q in asked_quantities
            ):
                weight = ECHO  # the question's own figure, as written ("50 GB/s" is no echo
                # of "400 Gb/s": converting it is the point)
            weighted.append((evidence, weight))
        known = {e.formula for e, _w in weighted if e.formula}
        for token in _formulas(point):
            evidence = compile_keyword(token)
            if _substantive(evidence, names=True) and evidence.formula not in known:
                known.add(evidence.formula)
                weight = _weight(evidence, asked, asked_text, point_text, words)
                weighted.append((evidence, min(weight, POINT_FORMULA)))
        own: dict[str, Word] = {}
        for part in clauses(lower(normalise(point))):
            for word in part.words:
                if len(word.stem) > 1:
                    own.setdefault(word.stem, word)
        own_weights = tuple(ECHO_COVER if stem in asked else words.evidence(stem) for stem in own)
        about = entities(lower(normalise(point)))
        needed = tuple(
            compiled
            for group in needs
            if (compiled := tuple(e for k in group if _evidence(e := compile_keyword(k))))
        ) or _implicit_needs(point, weighted)
        steps = tuple(
            compiled
            for group in order
            if (compiled := tuple(e for k in group if _evidence(e := compile_keyword(k))))
        )  # a phrase of only words every sentence has ("since when") is no step
        out.append(_Point(tuple(weighted), tuple(own.values()), own_weights, about, needed, steps))
    return out


_NAME = re.compile(r"[a-z]{4,}")  # a word in a token: "ZeRO-1/2", "(DualPipe)" name things
# "1.5×", "×2.5" (× reads as *): a factor, the figure "1.5x" in any notation.
_TIMES = re.compile(
    r"(?<![\w.)])(?:(?P<a>\d+(?:\.\d+)?)\s?\*(?!\s?(?:[\d(]|(?!the\b|of\b|as\b|for\b)[a-zψ]{1,3}\b))"
    r"|(?<![\w)])(?<![\d)]\s)(?<!\b[a-zψ]\s)\*\s?(?P<b>\d+(?:\.\d+)?)\b)"  # not "8 × 9": a product
)
_SUM = re.compile(r"[\d.]+(?:\+[\d.]+)+")  # "2+4+4+4": typed with a word after each term
_UNIT_ONLY = re.compile(r"[a-z]{1,6}(?:/[a-z]{1,3})?")  # "GB/s", "I/O": no formula


def _implicit_needs(
    point: str, weighted: list[tuple[Evidence, float]]
) -> tuple[tuple[Evidence, ...], ...]:
    """A point whose own text writes a formula or a figure with its unit ("2(N−1)K/N",
    "16Ψ/N", "450 GB/s", "about 1.5×") is that formula or figure: its words alone do not make
    it. The need accepts the point's own and every formula or figure among its keywords, the
    same substance in the notations the card lists."""
    text = lower(normalise(point))
    own = [compile_keyword(f"{m['a'] or m['b']}x") for m in _TIMES.finditer(text)]
    own += [
        e
        for token in _formulas(point)
        if _substantive(e := compile_keyword(token))
        and not _SUM.fullmatch(e.formula)
        and not _TIMES.search(lower(normalise(token)))
    ]
    for q in quantities(text):
        written = _figure_at(text, q.offset)
        if q.dimension == "number" or _term_of_sum(text, q.offset, written):
            continue  # a bare count ("3 steps"), a term of a sum ("2 + 2 + 12 bytes")
        own.append(Evidence(written, quantity=q))
        if q.value >= 10 or not q.value.is_integer():  # "= 14 (grads not saved)": the
            # point's figure typed without its unit; not a small count, which any answer has
            unitless = Quantity(q.value, "number", q.value, q.offset, precise=True)
            own.append(Evidence(f"{q.value:g}", quantity=unitless))
    if not own:
        return ()
    listed = [
        e
        for e, _weight in weighted
        if e.quantity or _substantive(e) or (e.formula and "=" in e.formula)  # "intensity = T"
    ]
    # "F/B_eff" is typed "F/B" too: a subscript is the first thing a candidate drops.
    plain = [
        compile_keyword(written)
        for e in own
        if e.formula and (written := re.sub(r"_[a-z]+", "", e.formula)) != e.formula
    ]
    return (tuple(own + plain + listed),)


def _substantive(evidence: Evidence, *, names: bool = False) -> bool:
    """A formula that says something of its own: not a unit ("GB/s", "I/O"), a path
    ("/tmp") or a word in brackets ("(off)"); unless `names`, not a name ("ZeRO-1/2",
    "(DualPipe)"), which is evidence of a point but not the formula it needs."""
    if evidence.parts:  # "s² term": its formula is what counts
        return any(_substantive(part, names=names) for part in evidence.parts)
    return bool(
        evidence.formula
        and _FORMULA_MARK.search(evidence.text.strip("()"))
        and not evidence.text.startswith(("/", "~", "."))
        and (names or not _NAME.search(evidence.formula))
        and not _UNIT_ONLY.fullmatch(evidence.formula)
    )


def _term_of_sum(text: str, offset: int, written: str) -> bool:
    """Whether the figure at `offset` is added to another ("2 + 2 + 12 bytes")."""
    before = text[:offset].rstrip()
    after = text[offset + len(written) :].lstrip()
    return before.endswith("+") or after.startswith("+")


def _weight(
    evidence: Evidence,
    asked: set[str],
    asked_text: str,
    point_text: tuple[str, list[bool], list[int]],
    words: Field,
) -> float:
    if evidence.words:
        stems = [w.stem for w in evidence.words]
        specific = [s for s in stems if words.rarity(s) >= SPECIFIC and len(s) > 2]
        named = entities(lower(evidence.text))
        if named and named <= STRATEGIES and len(stems) <= 2:
            weight = GENERIC_WORD  # "PP", "DP": which strategy, not what is said of it
        elif len(specific) >= 2:
            weight = 1.0
        elif specific:
            weight = SINGLE_WORD
        else:
            weight = GENERIC_PHRASE if len(stems) >= 2 else GENERIC_WORD
        if all(s in asked for s in stems):
            weight *= ECHO
        return weight
    if evidence.formula and evidence.formula in asked_text:
        return ECHO
    short = evidence.formula and len(_SYMBOL.findall(evidence.formula)) < FORMULA_SYMBOLS
    if short and not formula_at(evidence.formula, *point_text):
        return SHORT_FORMULA  # "K/B", "1/M": in many formulas, unless the point's own
    return 1.0

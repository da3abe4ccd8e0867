"""What counts as evidence of a rubric point, and finding it in an answer.

A keyword is one of three things: a quantity ("1,120 GB", "3.1 h", "1e-4": equal within a
tolerance, in any unit of the same kind), a formula ("2(N-1)/N", "16Ψ/N": the same symbols
as a whole, never part of a longer one), or a phrase (stemmed words in order, a typo allowed
in long words). Each is found only where it is not denied ("not", "rather than", …).
"""

import dataclasses
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz import fuzz, process

from app.content.units import UNITS
from app.grading.text import Clause, Word, clauses, clauses_and_lines, lower, normalise

TOLERANCE = 0.03  # relative: "3.09 h" makes "3.1 h", "295 tokens" makes "about 300"
FUZZY = 86  # rapidfuzz ratio for a typo in a word of five letters or more

_UNIT_ALIASES = {
    "bytes": "B", "byte": "B", "b": "B", "kb": "KB", "mb": "MB", "gb": "GB", "tb": "TB",
    "pb": "PB", "kib": "KiB", "mib": "MiB", "gib": "GiB", "tib": "TiB", "gb/s": "GB/s",
    "tb/s": "TB/s", "mb/s": "MB/s", "gbps": "Gb/s", "gbit/s": "Gb/s", "gib/s": "GiB/s",
    "tbit/s": "Tb/s", "mbit/s": "Mb/s", "kbit/s": "Kb/s",
    "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s", "ms": "ms", "us": "us",
    "ns": "ns", "min": "min", "mins": "min", "minute": "min", "minutes": "min", "h": "h",
    "hr": "h", "hrs": "h", "hour": "h", "hours": "h", "day": "days", "days": "days",
    "%": "%", "x": "x", "tflop/s": "TFLOP/s", "pflop/s": "PFLOP/s", "flop": "FLOP",
    "tflop": "TFLOP", "tflops": "TFLOP/s", "times": "x",
}  # fmt: skip
_UNIT_RE = "|".join(sorted((re.escape(u) for u in _UNIT_ALIASES), key=len, reverse=True))
_QUANTITY = re.compile(
    rf"""(?<![\w.^/])
    (?:10\s*\^\s*\(?(?P<bare_power>[-+]?\d+)\)?
     |(?P<mantissa>\d[\d,]*(?:\.\d+)?|\.\d+)(?:e(?P<exp>[-+]?\d+))?
       (?:\s*\*?\s*10\s*\^\s*\(?(?P<power>[-+]?\d+)\)?)?(?!\s*\^))
    (?P<scale>[km](?![a-z])|\s?(?:thousand|million|billion|trillion)\b)?
    \s?(?P<unit>{_UNIT_RE})?(?![\w(])""",
    re.VERBOSE,
)
# "8k tokens", "4.19M", "2 thousand": a number times its scale.
_SCALES = {"k": 1e3, "m": 1e6, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_SYMBOL_AFTER_NUMBER = re.compile(r"\d+(?:\.\d+)?[KM]")
# "6 all-reduces", "4 forwards": a small count and words, read as words ("six all-reduces").
_COUNTED = re.compile(r"(?:1[0-2]|[2-9])\s+[a-z][a-z' -]*")
_OPERATOR = re.compile(r"[()+/^=*\[\]{}]|\d|-(?=\d)|(?<=\d)-|\bsqrt\b|\b(?:psi|alpha|delta|tau)\b")


Factors = tuple[tuple[str, ...], tuple[str, ...]]  # a formula's factors, over and under


@dataclass(frozen=True)
class Quantity:
    value: float
    dimension: str
    base: float  # in the dimension's base unit
    offset: int
    precise: bool = False  # three significant digits or more, or a decimal point
    end: int = -1  # where it ends as written (number and unit); -1: unknown


@dataclass(frozen=True)
class Evidence:
    """One keyword, compiled: exactly one of `quantity`, `formula`, `words` is set."""

    text: str
    quantity: Quantity | None = None
    formula: str = ""
    words: tuple[Word, ...] = ()
    # A keyword of formulas and words ("3Ψ total", "466 interruptions") is also found when
    # each of its parts is, in one statement, not only when typed exactly so.
    parts: tuple["Evidence", ...] = ()


@dataclass
class Answer:
    """An answer read once: its clauses, the formulas written compactly, the quantities."""

    clauses: list[Clause]
    compact: list[tuple[str, list[bool], list[int]]]  # per clause: text, soft boundary, offset
    quantities: list[list[Quantity]]
    stems: set[str]
    _fuzzy: dict[str, set[str]]
    lines: list[int] = field(default_factory=list)  # per clause: the line it starts on
    _formulas: dict[int, list[tuple[int, int, "Factors"]]] = field(default_factory=dict)

    def formulas(self, index: int) -> list[tuple[int, int, Factors]]:
        """The formulas statement `index` writes, each by its factors (`canonical`), with
        their offsets: read once, when a formula is first looked for in another order."""
        found = self._formulas.get(index)
        if found is None:
            text = self.clauses[index].text
            found = [
                (m.start(), m.end(), written)
                for m in _FORMULA_TOKEN.finditer(text)
                if _WRITTEN_FORMULA.search(m.group())
                and (written := canonical(_balanced(re.sub(r"\s+", "", m.group()))))
            ]
            self._formulas[index] = found
        return found

    def keeping(self, indexes: list[int]) -> "Answer":
        """The answer read with only the statements given (by index), in their order."""
        return Answer(
            [self.clauses[i] for i in indexes],
            [self.compact[i] for i in indexes],
            [self.quantities[i] for i in indexes],
            self.stems,
            self._fuzzy,
            [self.lines[i] for i in indexes] if self.lines else [],
        )

    def similar(self, stem: str) -> set[str]:
        """Stems of the answer equal to `stem`, or one typo away if it is long enough."""
        found = self._fuzzy.get(stem)
        if found is None:
            found = {stem} if stem in self.stems else set()
            if len(stem) >= 5:
                hits = process.extract(
                    stem, self.stems, scorer=fuzz.ratio, score_cutoff=FUZZY, limit=None
                )
                found |= {hit for hit, _score, _key in hits if hit[0] == stem[0]}
            if len(stem) >= 6:  # "fragmentaton" for "fragmentation": its stem is untouched
                found |= {s for s in self.stems if s.startswith(stem)}
            if len(stem) >= 5:  # two letters swapped: "recieve", "gradeint"
                swapped = (
                    stem[:i] + stem[i + 1] + stem[i] + stem[i + 2 :]
                    for i in range(1, len(stem) - 1)
                )
                found |= self.stems.intersection(swapped)
            found = {hit for hit in found if not _opposites(stem, hit)}
            self._fuzzy[stem] = found
        return found


# Prefixes a typo away from each other that mean the opposite: "intra-node" is no misspelling
# of "inter-node".
_OPPOSITE_PREFIXES = (("intra", "inter"), ("inter", "intra"))


def _opposites(stem: str, other: str) -> bool:
    return any(stem.startswith(a) and other.startswith(b) for a, b in _OPPOSITE_PREFIXES)


def read(text: str) -> Answer:
    read_parts = clauses_and_lines(lower(normalise(text)))
    parts = [part for part, _line in read_parts]
    stems = {word.stem for part in parts for word in part.words}
    return Answer(
        parts, [compact(part.text) for part in parts], [_quantities(p.text) for p in parts],
        stems, {}, [line for _part, line in read_parts],
    )  # fmt: skip


def compile_keyword(keyword: str) -> Evidence:
    text = lower(normalise(keyword)).strip().strip("≈~=").strip()
    found = _quantities(text)
    if _SYMBOL_AFTER_NUMBER.fullmatch(keyword.strip()):
        found = []  # "2K", "16M" alone: a count of the symbol K, not two thousand
    if len(found) == 1 and _is_whole(text, found[0]):
        return Evidence(keyword, quantity=found[0])
    if _OPERATOR.search(text) and not _COUNTED.fullmatch(text):
        return Evidence(keyword, formula=compact(text)[0], parts=_parts(text))
    words = tuple(w for part in clauses(text) for w in part.words)
    return Evidence(keyword, words=words)


def _parts(text: str) -> tuple[Evidence, ...]:
    tokens = text.split()
    symbols = [t for t in tokens if _OPERATOR.search(t) and re.search(r"[a-z0-9]", t)]
    named = [t for t in tokens if not _OPERATOR.search(t) and re.fullmatch(r"[a-z]{3,}", t)]
    if not symbols or not named or named[0] in _UNIT_ALIASES:
        return ()
    parts = [compile_keyword(t) for t in symbols]
    words = tuple(w for part in clauses(" ".join(named)) for w in part.words)
    return (*parts, Evidence(" ".join(named), words=words)) if words else ()


def _is_whole(text: str, quantity: Quantity) -> bool:
    match = _QUANTITY.search(text)
    return match is not None and not text[: match.start()].strip() and not text[match.end() :]


def quantities(text: str) -> list[Quantity]:
    """The quantities written in `text` (normalised, lower case), with their offsets."""
    return _quantities(text)


def _quantities(text: str) -> list[Quantity]:
    out = []
    for match in _QUANTITY.finditer(text):
        try:
            if match["bare_power"]:
                value = 10.0 ** int(match["bare_power"])
            else:
                value = float(match["mantissa"].replace(",", ""))
                value *= 10.0 ** int(match["exp"] or 0) * 10.0 ** int(match["power"] or 0)
                value *= _SCALES[match["scale"].strip()] if match["scale"] else 1.0
        except (OverflowError, ValueError):  # 10^99999, a 5,000-digit exponent: no quantity
            continue
        unit = UNITS[_UNIT_ALIASES[match["unit"]]] if match["unit"] else UNITS[""]
        if math.isfinite(value):
            digits = (match["mantissa"] or "").replace(",", "").lstrip("0.")
            precise = "." in (match["mantissa"] or "") or len(digits.rstrip("0")) >= 3
            end = match.start() + len(match.group().rstrip())
            quantity = Quantity(value, unit.dimension, value * unit.factor, match.start(), precise)
            out.append(dataclasses.replace(quantity, end=end))
    return out


def compact(text: str) -> tuple[str, list[bool], list[int]]:
    """The text without spaces or multiplication signs, remembering where they were."""
    chars: list[str] = []
    soft: list[bool] = []
    offsets: list[int] = []
    pending = False
    for offset, char in enumerate(text):
        if char.isspace() or char in "*,":
            pending = True
            continue
        chars.append(char)
        soft.append(pending)
        offsets.append(offset)
        pending = False
    soft.append(True)
    return "".join(chars), soft, offsets


def find(
    evidence: Evidence, answer: Answer, about: frozenset[str] = frozenset()
) -> tuple[bool, bool]:
    """Whether the evidence is in the answer (affirmed, denied), leaving out statements that
    name only other things than those the point is `about` ("DP all-gathers…" for FSDP's)."""
    affirmed = denied = False
    if not evidence.parts and not may_say(evidence, answer):
        return affirmed, denied
    for index in range(len(answer.clauses)):
        yes, no = _in_clause(evidence, answer, index, about)
        if not yes and evidence.parts:
            found = [_in_clause(part, answer, index, about) for part in evidence.parts]
            yes = all(y for y, _n in found)
            no = no or (all(y or n for y, n in found) and any(n for _y, n in found))
        affirmed, denied = affirmed or yes, denied or no
        if affirmed:
            break
    return affirmed, denied


def may_say(evidence: Evidence, answer: Answer) -> bool:
    """False when a phrase has a word the answer never says (nor a typo or synonym of it):
    then it is in no statement, and most of a card's phrases are skipped unread."""
    return not evidence.words or all(answer.similar(w.stem) for w in evidence.words)


def _in_clause(
    evidence: Evidence, answer: Answer, index: int, about: frozenset[str]
) -> tuple[bool, bool]:
    part = answer.clauses[index]
    if evidence.words:
        hits = _phrase_at(evidence.words, part.words, answer)
    else:
        hits = [(offset, part.negated_at(offset)) for offset in _places(evidence, answer, index)]
    affirmed = denied = False
    for offset, negated in hits:
        if about_the_same(about, part.subject_at(offset)):
            denied |= negated
            affirmed |= not negated
    return affirmed, denied


def about_the_same(about: frozenset[str], subject: frozenset[str]) -> bool:
    """False when the answer says it of something else than the point is about."""
    return not (about and subject and not about & subject)


def _places(evidence: Evidence, answer: Answer, index: int, *, whole: bool = False) -> list[int]:
    if evidence.quantity is not None:
        want = evidence.quantity
        return [got.offset for got in answer.quantities[index] if close(want, got)]
    if whole:
        found = whole_formula_at(evidence.formula, *answer.compact[index])
    else:
        found = formula_at(evidence.formula, *answer.compact[index])
    if not found and (wanted := canonical(evidence.formula)) is not None:
        found = [at for at, _end, written in answer.formulas(index) if written == wanted]
    return found


# A product's factors: a number, a Greek letter spelt out, a root, a bracket, one letter; each
# with its power ("h^2").
_FACTOR = re.compile(
    r"(?:\d+(?:\.\d+)?|alpha|beta|gamma|delta|tau|psi|sqrt\([^()]*\)|\((?:[^()]|\([^()]*\))*\)"
    r"|[a-z])(?:\^(?:\d+|[a-z]|\([^()]*\)))?"
)
_WRITTEN_FORMULA = re.compile(r"[\d/^(]")  # what a word never has
MIN_FACTORS = 3  # "K/B", "2K": too short to be told apart from another by their factors' order
_FORMULA_TOKEN = re.compile(r"[^\s,;:=~≈<>]+(?:\s*[/*]\s*[^\s,;:=~≈<>]+)*")


@lru_cache(maxsize=4096)
def canonical(formula: str) -> Factors | None:
    """A product over a product, its factors in order: "2K(N-1)/N" and "2(N-1)K/N" are one
    formula written two ways. None for anything else (a sum at the top, two divisions) or a
    formula of fewer than MIN_FACTORS factors."""
    if not _WRITTEN_FORMULA.search(formula):
        return None  # "bsh" alone may be a word
    text = formula.replace("*", "").replace("·", "").rstrip(".")
    while text.startswith("(") and _closes_at_end(text):  # "(2K(N-1)/N)" is "2K(N-1)/N"
        text = text[1:-1]
    top = _top_level(text, "/")
    if len(top) > 1 or _top_level(text, "+") or _top_level(text, "-"):
        return None
    over, under = (text[: top[0]], text[top[0] + 1 :]) if top else (text, "")
    if under.startswith("(") and under.endswith(")") and _closes_at_end(under):
        under = under[1:-1]
    factors = []
    for side in (over, under):
        found = _FACTOR.findall(side)
        if "".join(found) != side:
            return None
        factors.append(tuple(sorted(found)))
    if sum(map(len, factors)) < MIN_FACTORS or not factors[0]:
        return None
    return factors[0], factors[1]


def _balanced(token: str) -> str:
    """A typed token without the brackets it does not close: "(2K(N-1)/N" is "2K(N-1)/N"."""
    token = token.strip(".")
    while token.startswith("(") and token.count("(") > token.count(")"):
        token = token[1:]
    while token.endswith(")") and token.count(")") > token.count("("):
        token = token[:-1]
    return token


def _top_level(text: str, char: str) -> list[int]:
    """Where `char` stands outside every bracket (a leading sign is no operation)."""
    depth, out = 0, []
    for at, c in enumerate(text):
        depth += (c == "(") - (c == ")")
        if c == char and depth == 0 and at > 0:
            out.append(at)
    return out


def _closes_at_end(text: str) -> bool:
    depth = 0
    for at, c in enumerate(text):
        depth += (c == "(") - (c == ")")
        if depth == 0:
            return at == len(text) - 1
    return False


def whole_formula_at(formula: str, text: str, soft: list[bool], offsets: list[int]) -> list[int]:
    """Where `formula` is a whole term, not a factor of a longer one: "(N-1)K" is in
    "sends (N-1)K bytes", not in "2(N-1)K/N"."""
    out = []
    start = text.find(formula)
    while start >= 0:
        end = start + len(formula)
        before = text[start - 1] if start else ""
        after = text[end] if end < len(text) else ""
        joined_before = before and (before in "/*^" or (not soft[start] and _term(before)))
        # "(" after a space opens an aside when a word ends the term: "pick 3D layout (TP=8)".
        aside = after == "(" and soft[end] and formula[-2:].isalpha()
        joined_after = after and not aside and (after in "/^(" or (not soft[end] and _term(after)))
        if not joined_before and not joined_after:
            out.append(offsets[start])
        start = text.find(formula, start + 1)
    return out


def _term(char: str) -> bool:
    return char.isalnum() or char in ".)"


def close(want: Quantity, got: Quantity, *, strict: bool = False) -> bool:
    """Equal within TOLERANCE; a precise number typed without its unit ("1120" for
    "1,120 GB") counts unless `strict`, a small round one ("3" for "3 hours") does not."""
    if want.dimension == got.dimension:
        a, b = want.base, got.base
    elif not strict and got.dimension == "number" and got.precise:
        a, b = want.value, got.value
    else:
        return False
    return abs(a - b) <= TOLERANCE * abs(a) if a else abs(b) < 1e-12


def formula_at(formula: str, text: str, soft: list[bool], offsets: list[int]) -> list[int]:
    out = []
    start = text.find(formula)
    while start >= 0:
        end = start + len(formula)
        before_ok = start == 0 or soft[start] or not _joins(text[start - 1], formula[0])
        after_ok = end == len(text) or soft[end] or not _joins(formula[-1], text[end])
        if before_ok and after_ok:
            out.append(offsets[start])
        start = text.find(formula, start + 1)
    return out


def _joins(left: str, right: str) -> bool:
    """Two characters that would be one name or one number if nothing stood between them."""
    return (left.isalnum() or left == ".") and (right.isalnum() or right == ".")


def _phrase_at(
    phrase: tuple[Word, ...], words: tuple[Word, ...], answer: Answer, *, counted: bool = False
) -> list[tuple[int, bool]]:
    """Where the phrase's words occur in order, at most two other words apart; and whether
    that occurrence is denied (a word's polarity differs from the keyword's). With `counted`,
    a count is next to what it counts ("three all-gathers" is not "stage 3 … all-gather")."""
    return [
        (start, flipped) for start, _end, flipped in _phrase_spans(phrase, words, answer, counted)
    ]


def _phrase_spans(
    phrase: tuple[Word, ...], words: tuple[Word, ...], answer: Answer, counted: bool
) -> list[tuple[int, int, bool]]:
    """`_phrase_at`, with where each occurrence ends."""
    out = []
    first = answer.similar(phrase[0].stem)
    for start, word in enumerate(words):
        if word.stem not in first:
            continue
        matched, position = [word], start
        for before, part in zip(phrase, phrase[1:], strict=False):
            wanted = answer.similar(part.stem)
            reach = 3 if counted and before.stem in COUNT_WORDS else 4
            step = next(
                (i for i in range(position + 1, min(position + reach, len(words)))
                 if words[i].stem in wanted),
                None,
            )  # fmt: skip
            if step is None or any(w.stem in REVERSING for w in words[position + 1 : step]):
                break  # "same alpha, different constraint" does not say "same constraint"
            matched.append(words[step])
            position = step
        else:
            flipped = any(w.negated != p.negated for w, p in zip(matched, phrase, strict=True))
            out.append((word.start, matched[-1].end, flipped))
    return out


# Words that, standing between a phrase's words, say the opposite of the phrase: "goes through,
# outside the router" is not "goes through the router".
REVERSING = frozenset({"differ", "other", "opposit", "outsid", "unlik", "except"})
COUNT_WORDS = frozenset(
    "two three four five six seven eight nine ten eleven twelve one twice half double".split()
)


def found_at(
    evidence: Evidence, answer: Answer, about: frozenset[str] = frozenset(), *, loose: bool = True
) -> tuple[int, int] | None:
    """The statement (its index) and the offset in it where the evidence is affirmed, or None.
    Unless `loose`, a keyword of formulas and words ("bf16 gradient shard") must be written
    as it is, not only have its parts somewhere in one statement."""
    # A phrase with a word the answer never says is nowhere: most of a card's evidence, skipped
    # without reading each statement.
    said = may_say(evidence, answer)
    if not said and not (evidence.parts and loose):
        return None
    for index, part in enumerate(answer.clauses):
        if evidence.words:
            hits = _phrase_at(evidence.words, part.words, answer, counted=not loose) if said else []
        else:
            places = _places(evidence, answer, index, whole=not loose)
            hits = [(at, part.negated_at(at)) for at in places]
        for offset, negated in hits:
            if not negated and about_the_same(about, part.subject_at(offset)):
                return index, offset
        if evidence.parts and loose:
            found = [_in_clause(p, answer, index, about) for p in evidence.parts]
            if all(yes for yes, _no in found):
                return index, 0
    return None


def found_together(
    group: tuple[Evidence, ...], answer: Answer, about: frozenset[str] = frozenset()
) -> tuple[int, int] | None:
    """The statement, and an offset in it, where every element of `group` is affirmed on one
    line: "1F1B" and "halves the bubble" said of one thing, not in two paragraphs. (A line may
    hold several statements: "52% of peak -> more efficient".)"""
    if not all(e.parts or may_say(e, answer) for e in group):
        return None
    hits: list[list[tuple[int, int, int]]] = []  # per element: (line, statement, offset)
    for evidence in group:
        found = []
        for index, part in enumerate(answer.clauses):
            first_line = answer.lines[index] if answer.lines else 0
            for at in _affirmed(evidence, answer, index, about, loose=False):
                found.append((first_line + part.text.count("\n", 0, at), index, at))
        if not found:
            return None
        hits.append(found)
    common = set.intersection(*({line for line, _i, _at in found} for found in hits))
    if not common:
        return None
    line = min(common)
    return min((i, at) for found in hits for at_line, i, at in found if at_line == line)


def _affirmed(
    evidence: Evidence, answer: Answer, index: int, about: frozenset[str], *, loose: bool = True
) -> list[int]:
    part = answer.clauses[index]
    if evidence.words:
        hits = _phrase_at(evidence.words, part.words, answer, counted=not loose)
    else:
        places = _places(evidence, answer, index, whole=not loose)
        hits = [(at, part.negated_at(at)) for at in places]
    out = [at for at, negated in hits if not negated and about_the_same(about, part.subject_at(at))]
    if not out and loose and evidence.parts and _in_clause(evidence, answer, index, about)[0]:
        out = [0]
    return out


def quantity_conflict(wanted: tuple[Quantity, ...], answer: Answer, index: int) -> Quantity | None:
    """A quantity the statement gives in the dimension of `wanted` that equals none of them
    ("720 GB/s" where the point's figure is 360 GB/s), or None."""
    dimensions = {q.dimension for q in wanted} - {"number"}
    for got in answer.quantities[index]:
        if got.dimension in dimensions and not any(close(w, got, strict=True) for w in wanted):
            return got
    return None


def span_of(
    evidence: Evidence, answer: Answer, about: frozenset[str] = frozenset()
) -> tuple[int, int, int] | None:
    """Where the evidence is affirmed, as written in the answer's text: the statement (its
    index) and the start and end of the words, formula or figure in its text."""
    for index, part in enumerate(answer.clauses):
        spans: list[tuple[int, int, bool]] = []
        if evidence.words:
            spans = _phrase_spans(evidence.words, part.words, answer, False)
        elif evidence.quantity is not None:
            want = evidence.quantity
            spans = [
                (got.offset, got.end, part.negated_at(got.offset))
                for got in answer.quantities[index]
                if close(want, got)
            ]
        else:
            spans = _formula_spans(evidence.formula, answer, index)
        for start, end, negated in spans:
            if not negated and about_the_same(about, part.subject_at(start)):
                return index, start, end
        if evidence.parts:
            found = [span_of_in(p, answer, index, about) for p in evidence.parts]
            if all(found):
                return index, min(f[0] for f in found if f), max(f[1] for f in found if f)
    return None


def span_of_in(
    evidence: Evidence, answer: Answer, index: int, about: frozenset[str]
) -> tuple[int, int] | None:
    """`span_of` within one statement."""
    found = span_of(evidence, answer.keeping([index]), about)
    return (found[1], found[2]) if found else None


def _formula_spans(formula: str, answer: Answer, index: int) -> list[tuple[int, int, bool]]:
    part = answer.clauses[index]
    text, soft, offsets = answer.compact[index]
    out = []
    for at in formula_at(formula, text, soft, offsets):
        end = offsets[offsets.index(at) + len(formula) - 1] + 1
        out.append((at, end, part.negated_at(at)))
    if not out and (wanted := canonical(formula)) is not None:
        out = [
            (at, end, part.negated_at(at))
            for at, end, written in answer.formulas(index)
            if written == wanted
        ]
    return out


def word_in(word: Word, part: Clause, answer: Answer, about: frozenset[str]) -> Word | None:
    """The word of `part` that says `word` (or a typo, inflection or synonym of it), with its
    polarity, of the point's subject (`about`; empty: of anything)."""
    similar = answer.similar(word.stem)
    return next(
        (
            w
            for w in part.words
            if w.stem in similar
            and w.negated == word.negated
            and about_the_same(about, part.subject_at(w.start))
        ),
        None,
    )

"""Typed text made uniform: notation, abbreviations, numbers, clauses and negation.

The same function reads an answer and a rubric keyword, so "Ψ", "psi" and "4P" meet, as do
"reduce-scatter", "reduce scatter" and "RS", or "1e-3", "10^-3" and "0.001".
"""

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import Stemmer

from app.grading.subjects import subjects
from app.grading.vocabulary import ABBREVIATIONS, JOINED, NUMBER_WORDS, SYNONYMS, spell_out

_STEMMER = Stemmer.Stemmer("english")

_DASHES = dict.fromkeys(map(ord, "‐‑‒–—―−"), "-")
_TIMES = dict.fromkeys(map(ord, "×·⋅∙"), "*")
_SYMBOLS = {"²": "^2", "³": "^3", "√": "sqrt", "⁄": "/", "≈": " ~ ", "∼": " ~ ", "→": " -> "}
_SYMBOLS |= {"µs": "us", "μs": "us", "ℓ": "l", "’": "'", "‘": "'", "“": '"', "”": '"'}
GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "Δ": "delta", "ε": "epsilon",
    "η": "eta", "θ": "theta", "λ": "lambda", "μ": "mu", "µ": "mu", "π": "pi", "ρ": "rho",
    "σ": "sigma", "Σ": "sigma", "τ": "tau", "φ": "phi", "ψ": "psi", "Ψ": "psi", "ω": "omega",
}  # fmt: skip
_CONTRACTIONS = re.compile(
    r"\b(do|does|did|is|are|was|were|has|have|had|ca|wo|could|should|would|need)(?:n't|nt)\b"
)
_ISE = re.compile(r"\b([a-z]{4,})is(e|ed|es|er|ers|ing|ation|ations)\b")
_PREFIXED = re.compile(r"\b(pre|non|inter|intra|multi|sub|over|under|semi|top)-(?=[a-z0-9])")
_ISE_KEEP = {"prec", "otherw", "likew", "exerc", "prom", "adv", "surpr", "comprom", "rev"}
# "4P + 12P/N": a capital P standing alone, or after a coefficient, is the parameter count.
_BITS = re.compile(r"(\d)\s?([KMGT])(?:b/s|bps|bit/s)\b")
_PSI_P = re.compile(r"(?<![A-Za-z0-9])(\d*)P(?![A-Za-z0-9(])")


def normalise(text: str) -> str:
    """One spelling for the many ways people type the same notation; case kept (Gb, GB)."""
    for symbol, word in _SYMBOLS.items():
        text = text.replace(symbol, word)
    text = unicodedata.normalize("NFKC", text).translate(_DASHES).translate(_TIMES)
    text = "".join(f" {GREEK[c]} " if c in GREEK else c for c in text)
    text = re.sub(r"(?<=[\d)]) (?=(?:alpha|beta|gamma|delta|tau|psi)\b)", "", text)
    text = re.sub(r"(?<=\d)\s*\*(?!\s*[\w(])", "x", text)  # "1.5×": a ratio
    # "400 Gb/s" is bits: written so that lower case cannot make it "400 gb/s" (bytes).
    text = _BITS.sub(lambda m: f"{m[1]} {m[2].lower()}bit/s", text)
    return _PSI_P.sub(r"\1psi", text)


def lower(text: str) -> str:
    """`normalise`d text in lower case, contractions and British spellings undone."""
    text = text.lower()
    text = _CONTRACTIONS.sub(lambda m: {"ca": "can", "wo": "will"}.get(m[1], m[1]) + " not", text)
    text = re.sub(r"\b(can't|cannot)\b", "can not", text)
    text = re.sub(r"\bre-(?=[a-z])", "re", text)  # re-gather, re-shard
    text = _PREFIXED.sub(r"\1", text)  # pre-fetch, non-zero, inter-node, top-k
    text = spell_out(text)
    return _ISE.sub(lambda m: m[0] if m[1] in _ISE_KEEP else f"{m[1]}iz{m[2]}", text)


_JOIN_FIRST = {key[0] for key in JOINED}

NEGATIONS = {"not", "no", "never", "without", "neither", "nor", "nothing", "none", "nobody"}
# Two- and three-word cues: what follows them is denied ("rather than X", "wrong to say X").
NEGATING_PHRASES = (
    ("rather", "than"),
    ("instead", "of"),
    ("wrong", "to", "say"),
    ("false", "that"),
    ("not", "true", "that"),
    ("as", "opposed", "to"),
    ("different", "from"),  # "different from load balancing: …" does not say it balances
    ("unlike",),
    ("off", "the"),  # "off the critical path"
)
# "X isn't involved", "X doesn't matter": the negation denies what came before it.
DENYING_PREDICATES = {
    "involved", "matter", "matters", "help", "helps", "needed", "necessary", "true", "correct",
    "right", "relevant", "apply", "applies", "used", "happen", "happens", "change", "changes",
    "work", "works", "count", "counts",
}  # fmt: skip
AFTER_DENIALS = {"wrong", "false", "incorrect", "untrue", "myth"}  # "X is wrong"
_CUE_FIRST = {phrase[0] for phrase in NEGATING_PHRASES}
_CUE_LAST = {phrase[-1] for phrase in NEGATING_PHRASES}
# What ends a negation's reach within a clause.
SCOPE_BREAKERS = {
    "but", "so", "because", "since", "which", "while", "whereas", "although", "though",
    "then", "instead", "yet", "hence", "therefore", "thus", "only", "just",
    # a clause of condition or time: "no change in speed if the accounting changes"
    "if", "when", "unless", "until", "whenever",
}  # fmt: skip
STOPWORDS = {
    "a", "an", "the", "of", "to", "in", "on", "at", "for", "and", "or", "is", "are", "be",
    "was", "were", "it", "its", "it's", "this", "that", "these", "those", "as", "by", "with",
    "from", "into", "each", "per", "plus", "then", "than", "so", "also", "their", "there",
    "which", "who", "what", "when", "how", "do", "does", "did", "has", "have", "had", "can",
    "will", "would", "should", "could", "you", "your", "we", "they", "them", "i", "s", "e",
    "g", "eg", "ie", "etc", "about", "around", "roughly", "approx", "like", "just", "any",
    "all's", "one's", "again", "via", "up", "out", "get", "gets", "got", "make",
    "makes", "very", "much", "some", "here", "since", "because", "if",
    "only", "still", "vs", "versus", "thats", "that's", "theres", "there's",
} | NEGATIONS  # fmt: skip
_NOT_CONTENT = (STOPWORDS | SCOPE_BREAKERS | {",", "(", "=", ":"}) - {"only"}

# A statement ends at a full stop, a semicolon, an arrow, a dash between words, a blank line
# or a new item of a list; a single line break is only the box wrapping a long line.
_CLAUSE_END = re.compile(
    r"[.!?;]+(?=\s|$)|;|\n\s*\n|\n\s*(?=[-*•]\s|\d+[.)]\s)|\s-+>\s?|(?<=[a-z]{2})\s-{1,2}\s(?=[a-z]{2})"
)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    if _ACRONYM_PLURAL.fullmatch(word):  # "GPUs", "SMs", "SSDs": the stemmer keeps their s
        return word[:-1]
    return word if len(word) <= 3 or any(c.isdigit() for c in word) else _STEMMER.stemWord(word)


_ACRONYM_PLURAL = re.compile(r"[a-z][a-z]us|[b-df-hj-np-tv-xz]{2,}s")


@dataclass(frozen=True)
class Word:
    stem: str
    start: int  # offset of the word in its clause's text
    negated: bool
    end: int = -1  # where the word as written ends ("all reduce" for "allreduce"); -1: unknown


@dataclass(frozen=True)
class Clause:
    """One statement of the text: its words, and where a negation reaches within it."""

    text: str
    words: tuple[Word, ...]
    denied: tuple[tuple[int, int], ...]  # offsets [start, end) within reach of a negation
    subjects: tuple[tuple[int, frozenset[str]], ...] = ()  # (offset, what it speaks of)
    inherited: frozenset[str] = frozenset()  # the subject of the statement before

    def negated_at(self, offset: int) -> bool:
        return any(start <= offset < end for start, end in self.denied)

    def subject_at(self, offset: int) -> frozenset[str]:
        """The strategies or stages the text at `offset` speaks of (empty: not said). Before
        the statement names one, it may speak of the one it names next ("gathers the weights
        twice in ZeRO-3") as well as of the statement before."""
        current = self.inherited
        if current and self.subjects:
            current = current | self.subjects[0][1]
        for start, names in self.subjects:
            if start > offset:
                break
            current = names
        return current

    @property
    def last_subject(self) -> frozenset[str]:
        return self.subjects[-1][1] if self.subjects else self.inherited


# "(" opens an aside ("(as in DP)"), which ends a negation's reach, unless it opens a formula:
# "not (N-1)K", "not 2(N-1)/N" deny the formula.
_ASIDE = r"(?<![\w)])\((?![^()\s]*[-+*/^][^()\s]*\))(?![^()]*\)[\w/^*(])"
_TOKEN = re.compile(
    rf"(?<![\w/])(?:w/o\b|w/(?=\s)|b/c\b)|[a-z][a-z0-9_']*|[,=:]|{_ASIDE}|(?<![\w.^/])(?:1[0-2]|[2-9])(?![\w.%/^(])"
)
# "not just 16Ψ/N", "not only X": the negation denies X, unless "but" follows (X is stated).
LIMITERS = {"only", "just"}
# A second negation within a denial's reach undoes it ("not true that X adds no Y").
DOUBLE_NEGATIONS = {"no", "not", "never"}
SECOND_NEGATION_SKIPS = {"or", "and"}  # "not X or not Y", "no X and no Y": two denials
# "without" denies what it lacks, a short noun phrase: not the statement that follows it.
WITHOUT_ENDS = {"the", "a", "an", "it", "its", "we", "you", "they", "there", "and", "is", "are"}
WITHOUT_REACH = 3  # content words: "without activation checkpointing", "without gradient sync"
# "without it, every byte is…": "without" denies the pronoun after it, and nothing more.
PRONOUNS = {"it", "this", "that", "them", "these", "those"}
# A negation after a verb denies the verb: "hung ranks log nothing" is "they do not log".
OBJECT_NEGATIONS = {"nothing", "none", "nobody"}


def clause(text: str, inherited: frozenset[str] = frozenset()) -> Clause:
    """Read one clause: stemmed content words (abbreviations spelt out) and their polarity."""
    raw: list[tuple[str, int]] = []
    ends: list[int] = []  # where each raw token ends in `text`
    for match in _TOKEN.finditer(text):
        # An identifier is its words: "SM_ACTIVE" is "SM active", "limit_all_gathers" too.
        offset = match.start()
        for piece in match[0].removesuffix("'s").rstrip("'").split("_"):
            if piece:
                token = SYNONYMS.get(piece, NUMBER_WORDS.get(piece, piece))
                for part in ABBREVIATIONS.get(token, (token,)):
                    raw.append((part, offset))
                    ends.append(offset + len(piece))
            offset += len(piece) + 1
    raw, ends = _join(raw, ends)
    tokens = [token for token, _ in raw]
    flags: list[bool] = []
    denied: list[tuple[int, int]] = []
    active, since, by_without, reach = False, 0, False, 0
    contrast = "but" in tokens  # "not only X but also Y" states X
    for index, (token, start) in enumerate(raw):
        if (
            active
            and token in DOUBLE_NEGATIONS
            and (index == 0 or tokens[index - 1] not in SECOND_NEGATION_SKIPS)
        ):
            # "it's not true that SP adds no communication": two denials state it.
            active = False
            flags = [f and s < since for f, (_t, s) in zip(flags, raw[:index], strict=True)]
            flags.append(False)
            continue
        if active and token in LIMITERS and tokens[index - 1] in NEGATIONS and contrast:
            # "not only the dispatch but the combine": "only" is denied, the dispatch stated.
            active = False
            flags.append(True)
            denied.append((since, start + len(token)))
            continue
        if (
            active
            and (token in SCOPE_BREAKERS or token in ",(=:")
            and not _cue_at(tokens, index)
            and not (token in LIMITERS and tokens[index - 1] in NEGATIONS)
        ):
            active = False
            denied.append((since, start))
        if active and by_without and reach and (token in WITHOUT_ENDS or reach >= WITHOUT_REACH):
            # "without overlap the step is comm-bound": the step is not denied.
            active = False
            denied.append((since, start))
        flags.append(active)
        if active and by_without and token not in _NOT_CONTENT:
            reach += 1
        if active and token in PRONOUNS and index > 0 and tokens[index - 1] == "without":
            active = False
            denied.append((since, start + len(token)))
        elif not active and (token in NEGATIONS or _cue_at(tokens, index, end=True)):
            active, since = True, start + len(token)
            by_without, reach = token == "without", 0
            if token in OBJECT_NEGATIONS and index > 0 and tokens[index - 1] not in _NOT_CONTENT:
                flags[index - 1] = True
    if active:
        denied.append((since, len(text)))
    for index, token in enumerate(tokens):
        after = tokens[index + 1 : index + 3]
        if (token == "not" and any(t in DENYING_PREDICATES for t in after)) or (
            token in AFTER_DENIALS and index > 0 and tokens[index - 1] in {"is", "are", "was"}
        ):
            start = max((s for t, s in raw[:index] if t in ",("), default=0)
            denied.append((start, raw[index][1]))
            flags = [f or start <= s < raw[index][1] for f, (_t, s) in zip(flags, raw, strict=True)]
    content = tuple(
        Word(stem(token), start, neg, end)
        for (token, start), neg, end in zip(raw, flags, ends, strict=True)
        if token not in _NOT_CONTENT
    )
    return Clause(text, content, tuple(denied), tuple(subjects(text)), inherited)


def _join(raw: list[tuple[str, int]], ends: list[int]) -> tuple[list[tuple[str, int]], list[int]]:
    out: list[tuple[str, int]] = []
    out_ends: list[int] = []
    index = 0
    while index < len(raw):
        if raw[index][0] not in _JOIN_FIRST:
            out.append(raw[index])
            out_ends.append(ends[index])
            index += 1
            continue
        for size in (4, 3, 2):
            key = tuple(token for token, _ in raw[index : index + size])
            if key in JOINED:
                out.append((JOINED[key], raw[index][1]))
                out_ends.append(ends[index + len(key) - 1])
                index += len(key)
                break
        else:
            out.append(raw[index])
            out_ends.append(ends[index])
            index += 1
    return out, out_ends


def _cue_at(tokens: list[str], index: int, *, end: bool = False) -> bool:
    """A negating phrase starts (or, with `end`, ends) at `index`."""
    if tokens[index] not in (_CUE_LAST if end else _CUE_FIRST):
        return False
    for phrase in NEGATING_PHRASES:
        start = index - len(phrase) + 1 if end else index
        if start >= 0 and tuple(tokens[start : start + len(phrase)]) == phrase:
            return True
    return False


def clauses(text: str) -> list[Clause]:
    """The normalised text cut where each statement ends."""
    return [part for part, _line in clauses_and_lines(text)]


def clauses_and_lines(text: str) -> list[tuple[Clause, int]]:
    """The statements, each with the number of the line it starts on ("X. Y" on one line,
    or "X -> Y", are two statements of one line)."""
    out: list[tuple[Clause, int]] = []
    start = line = 0
    for end in [*_CLAUSE_END.finditer(text), None]:
        piece = text[start : end.start() if end else len(text)]
        if piece.strip():
            inherited = out[-1][0].last_subject if out else frozenset()
            out.append((clause(piece, inherited), line))
        line += piece.count("\n")
        if end is not None:
            line += end.group().count("\n")
            start = end.end()
    return out

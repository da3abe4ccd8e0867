"""Full-text search over topics, cards and glossary terms, indexed once; results carry
highlighted snippets.

Ten topics and a few hundred cards fit in memory many times over, so a scan of lowercased
text beats running a search engine. Every term must appear; titles weigh most. A query that
finds nothing is tried again with each word no text holds replaced by the closest word that
one does (rapidfuzz), and the results say which words they were: "did you mean all-gather?".
"""

import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from html import escape

from rapidfuzz import fuzz, process

from app.content.catalog import Catalog
from app.content.glossary import Glossary

MAX_QUERY_LENGTH = 200
SNIPPET_LENGTH = 220
_WORD = re.compile(r"\w[\w.+/-]*\w|\w")
_WEIGHTS = (10, 4, 1)  # title, summary or question, body
# A drill card's drawn numbers, as written in its text ("{{ bytes | GB }}"): a snippet shows
# an ellipsis where a card page shows a number.
_PLACEHOLDER = re.compile(r"\{\{[^{}]*\}\}|\{%[^{}]*%\}")
# How close a word must be to stand in for a mistyped one (rapidfuzz's ratio, 0-100): one
# swapped or wrong letter in a word of five or more letters passes, a different word does not.
SIMILARITY = 78
_SHORTEST_CORRECTED = 4  # shorter words are too often some other word one letter away


@dataclass(frozen=True)
class Document:
    kind: str  # "topic", "card" or "term"
    key: str  # slug, card id, or the term's slug
    title: str
    url: str
    context: str  # the topic a card belongs to
    fields: tuple[str, str, str]  # title, summary, body: as written
    lowered: tuple[str, str, str]


@dataclass(frozen=True)
class Hit:
    kind: str
    key: str
    title: str
    url: str
    context: str
    snippet_html: str  # built from escaped text; only <mark> is added
    score: int


@dataclass(frozen=True)
class Results:
    hits: list[Hit]
    did_you_mean: str | None = None  # the query the hits are for, when the one typed found none


class QueryTooLong(ValueError):
    pass


def terms_of(query: str) -> list[str]:
    if len(query) > MAX_QUERY_LENGTH:
        raise QueryTooLong(f"q: at most {MAX_QUERY_LENGTH} characters, got {len(query)}")
    return list(dict.fromkeys(t.lower() for t in _WORD.findall(query)))


class SearchIndex:
    def __init__(self, catalog: Catalog, glossary: Glossary | None = None) -> None:
        self.documents: list[Document] = []
        for topic in catalog.topics:
            fields = (topic.title, topic.meta.summary, topic.plain_text)
            self._add("topic", topic.slug, topic.title, f"/topics/{topic.slug}", "", fields)
            for card in topic.cards:
                fields = (card.id, card.question_text, card.plain_text)
                title = _shorten(card.question_text, 120)
                self._add("card", card.id, title, f"/cards/{card.id}", topic.title, fields)
        for term in glossary.terms if glossary else ():
            fields = (term.term, "", term.plain_text)
            self._add("term", term.slug, term.term, f"/glossary#{term.slug}", "Glossary", fields)

    def _add(
        self, kind: str, key: str, title: str, url: str, context: str, fields: tuple[str, str, str]
    ) -> None:
        fields = (fields[0], _no_placeholders(fields[1]), _no_placeholders(fields[2]))
        lowered = (fields[0].lower(), fields[1].lower(), fields[2].lower())
        title = _no_placeholders(title)
        self.documents.append(Document(kind, key, title, url, context, fields, lowered))

    def search(self, query: str, limit: int = 50) -> list[Hit]:
        """Documents holding every term of `query`, best first."""
        terms = terms_of(query)
        if not terms:
            return []
        hits = []
        for doc in self.documents:
            counts = [[text.count(term) for text in doc.lowered] for term in terms]
            if not all(any(per_field) for per_field in counts):
                continue
            score = sum(
                w * c for per_field in counts for w, c in zip(_WEIGHTS, per_field, strict=True)
            )
            snippet = _snippet(doc.fields[2] or doc.fields[1], terms)
            hits.append(Hit(doc.kind, doc.key, doc.title, doc.url, doc.context, snippet, score))
        hits.sort(key=lambda h: (-h.score, h.kind != "topic", h.title))
        return hits[:limit]

    def find(self, query: str, limit: int = 50) -> Results:
        """What `search` finds; when that is nothing, what the closest spelling finds."""
        hits = self.search(query, limit)
        if hits:
            return Results(hits)
        corrected = self.suggest(query)
        if corrected is None:
            return Results([])
        return Results(self.search(corrected, limit), corrected)

    def suggest(self, query: str) -> str | None:
        """The query with each word no text holds replaced by the closest word one does;
        None when no word changes or the corrected query finds nothing either."""
        changed, words = False, []
        for term in terms_of(query):
            if len(term) < _SHORTEST_CORRECTED or self._holds(term):
                words.append(term)
                continue
            match = process.extractOne(
                term, self.vocabulary, scorer=fuzz.ratio, score_cutoff=SIMILARITY
            )
            if match is None:
                words.append(term)
                continue
            words.append(match[0])
            changed = True
        corrected = " ".join(words)
        return corrected if changed and self.search(corrected, 1) else None

    @cached_property
    def vocabulary(self) -> list[str]:
        """Every word the texts hold, the most frequent first (ties in similarity go to them);
        gathered at the first search that needs it, not at start-up."""
        counts = Counter(
            word for doc in self.documents for text in doc.lowered for word in _WORD.findall(text)
        )
        return [word for word, _n in counts.most_common() if len(word) >= _SHORTEST_CORRECTED]

    def _holds(self, term: str) -> bool:
        return any(term in text for doc in self.documents for text in doc.lowered)


def _no_placeholders(text: str) -> str:
    return _PLACEHOLDER.sub("…", text)


def _snippet(text: str, terms: list[str]) -> str:
    lowered = text.lower()
    positions = [p for p in (lowered.find(t) for t in terms) if p >= 0]
    start = max(0, min(positions, default=0) - SNIPPET_LENGTH // 3)
    if start:
        space = text.find(" ", start)
        start = space + 1 if 0 <= space < start + 30 else start
    end = min(len(text), start + SNIPPET_LENGTH)
    piece = text[start:end]
    pattern = re.compile("|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)), re.I)
    html, last = [], 0
    for match in pattern.finditer(piece):
        html.append(escape(piece[last : match.start()]))
        html.append(f"<mark>{escape(match.group())}</mark>")
        last = match.end()
    html.append(escape(piece[last:]))
    prefix = "… " if start else ""
    suffix = " …" if end < len(text) else ""
    return prefix + "".join(html) + suffix


def _shorten(text: str, length: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= length else flat[: length - 1].rsplit(" ", 1)[0] + "…"

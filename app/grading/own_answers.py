"""A card states none of its own common mistakes (`ringside content check`).

A strong answer reads like the card's worked answer or its rubric points, so a mistake whose
evidence or claims are found there would be flagged in strong answers too. The check reads
the worked answer and the points as a candidate would type them (formulas as plain text) and
reports the first mistake they state, at the mistake's line, with the words that state it.
"""

import re
from collections.abc import Iterator

from app.content.catalog import CardView, Catalog
from app.content.loader import ContentError
from app.content.mathml import to_plain
from app.grading import check
from app.grading.field import Field

_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.DOTALL)
_MARKUP = re.compile(r"\*\*|__|`|^#+\s|^>\s", re.MULTILINE)


def as_typed(markdown: str) -> str:
    """Markdown as a candidate would type it: formulas as plain text, no emphasis or code
    marks (`$2(N-1)K/N$` reads "2(N-1)K/N")."""
    plain = _MATH.sub(lambda m: to_plain(m[1] or m[2]), markdown)
    return _MARKUP.sub("", plain)


def mistakes_stated(view: CardView, field: Field) -> Iterator[tuple[int, str]]:
    """Each of the card's mistakes that its worked answer (or steps) or a rubric point states,
    with the words that state it."""
    card = view.card
    steps = getattr(card, "steps", [])  # a derivation's worked steps
    texts = [card.answer or "", "\n".join(steps), "\n".join(p.point for p in card.rubric)]
    said: dict[int, str] = {}
    for text in filter(None, texts):
        result = check(view, as_typed(text), field)
        for index in result.mistakes:
            said.setdefault(index, result.mistake_reasons[index])
    yield from sorted(said.items())


def check_own_answers(catalog: Catalog) -> None:
    """Raise ContentError at the first mistake a card states in its own answer or rubric."""
    field = Field.of(catalog)
    for topic in catalog.topics:
        for view in topic.cards:
            if view.kind == "numeric":
                continue  # its answer is a number; its solution names the wrong results
            for index, said in mistakes_stated(view, field):
                line = view.mistake_lines[index] if index < len(view.mistake_lines) else view.line
                raise ContentError(
                    topic.path,
                    line,
                    f"card '{view.card.id}': mistakes.{index}: the card's own answer or rubric "
                    f"states it ({said[0].lower()}{said[1:]}): a strong answer would be flagged; "
                    "narrow its evidence or claims (see content/README.md)",
                )

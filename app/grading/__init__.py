"""Grading a typed answer against a card's rubric, locally and in a few milliseconds.

How much a word proves comes from the catalog's own rubrics (`Field.of(catalog)`, counted
once when the app starts): pass it to every check."""

from app.content.catalog import CardView
from app.grading.field import Field
from app.grading.grader import Check, points_made

__all__ = ["Check", "Field", "check", "points_made"]


def check(card: CardView, answer: str, field: Field) -> Check:
    """The rubric points `answer` makes, with the words that made each; `field` is the word
    counts of the catalog `card` belongs to."""
    return points_made(
        card.card.rubric, answer, card.question_text, card.card.mistakes, field=field
    )

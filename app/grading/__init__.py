"""Grading a typed answer against a card's rubric, locally and in a few milliseconds."""

from app.content.catalog import CardView
from app.grading.grader import Check, points_made

__all__ = ["Check", "check", "points_made"]


def check(card: CardView, answer: str) -> Check:
    """The rubric points `answer` makes, with the words that made each."""
    return points_made(card.card.rubric, answer, card.question_text, card.card.mistakes)

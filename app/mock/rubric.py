"""Which rubric points an answer seems to make, for the mock interview's grading step.

Suggestions only: the person grading confirms or corrects each one. The grading itself is
app.grading's (whole tokens and formulas, notation and abbreviations, negation), with the word
counts (`Field`) of the catalog the card belongs to.
"""

from app.content.catalog import CardView
from app.content.schema import RubricPoint
from app.grading import Check, Field, check, points_made


def suggested_points(
    rubric: list[RubricPoint], *answers: str, field: Field, question: str = ""
) -> list[int]:
    """Indexes of the rubric points the answers make; `question` (plain text), when given,
    keeps words that only repeat it from counting for much."""
    joined = "\n\n".join(a for a in answers if a)
    return points_made(rubric, joined, question, field=field).points


def suggestions(card: CardView, field: Field, *answers: str) -> Check:
    """The points the answers (main, then follow-up) make, and the words that made each."""
    return check(card, "\n\n".join(a for a in answers if a), field)

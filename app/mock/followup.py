"""Which follow-up the interviewer asks: the one aimed at what the main answer missed.

A card's follow-ups may name the rubric points they probe. The interviewer asks the one that
probes the first point the main answer did not make (as app.grading reads it); when the answer
made every point, or missed only points no follow-up probes, the hardest one: the follow-up
probing the most points, the last of them on a tie. A friend interviewing by link may choose
it instead (`picked`, app.mock.pairing).
"""

from dataclasses import dataclass

from app import grading
from app.content.catalog import CardView
from app.grading import Field
from app.models import MockQuestion


@dataclass(frozen=True)
class Chosen:
    index: int  # into the card's follow-ups
    question: str
    probes: list[int]  # the rubric points (0-based) it probes
    reason: str  # why it was asked, in words for the report


def _points(probes: list[int]) -> str:
    named = [str(p + 1) for p in probes]
    if len(named) == 1:
        return f"point {named[0]}"
    return f"points {', '.join(named[:-1])} and {named[-1]}"


def choose(card: CardView, answer: str, field: Field) -> Chosen:
    """The follow-up to ask after `answer` (graded with `field`, the catalog's word counts)."""
    followups = card.card.followups
    made = set(grading.check(card, answer, field).points)
    missed = [p for p in range(len(card.card.rubric)) if p not in made]
    for point in missed:
        for index, followup in enumerate(followups):
            if point in followup.probes:
                reason = f"it probes point {point + 1}, which your answer did not make"
                return Chosen(index, followup.question, list(followup.probes), reason)
    index = max(range(len(followups)), key=lambda i: (len(followups[i].probes), i))
    probes = list(followups[index].probes)
    if not missed:
        reason = "your answer made every rubric point, so the interviewer pushed further"
    elif any(f.probes for f in followups):
        reason = "no follow-up probes the points your answer missed, so the interviewer pushed"
    else:
        reason = "this card's follow-ups probe no rubric point in particular"
    if probes:
        reason += f" with the hardest follow-up (it probes {_points(probes)})"
    return Chosen(index, followups[index].question, probes, reason)


CHOSEN_BY_INTERVIEWER = "your interviewer chose it"


def picked(card: CardView, index: int | None) -> Chosen | None:
    """The follow-up an interviewer chose (app.mock.pairing), if it is one of the card's."""
    followups = card.card.followups
    if index is None or not 0 <= index < len(followups):
        return None
    chosen = followups[index]
    return Chosen(index, chosen.question, list(chosen.probes), CHOSEN_BY_INTERVIEWER)


def explain(
    card: CardView | None, question: MockQuestion, field: Field
) -> tuple[list[int], str | None]:
    """The points the follow-up asked probes, and why it was chosen: as kept when it was
    chosen; for a session from before that was kept, worked out again from the answer (the
    reason is None when the content changed since, so the choice can no longer be told)."""
    asked = question.followup
    if asked is None:
        return [], None
    if question.followup_reason is not None:
        return list(question.followup_probes or []), question.followup_reason
    if card is None:
        return [], None
    probes = next((list(f.probes) for f in card.card.followups if f.question == asked), [])
    chosen = choose(card, question.answer, field)
    return probes, chosen.reason if chosen.question == asked else None

"""Check a typed answer against a card's rubric: which points it makes, and why."""

from typing import Annotated

import anyio
from fastapi import APIRouter, Body, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator

from app import grading
from app.grading import interviewer
from app.mock.sessions import MAX_ANSWER
from app.web.deps import CardDep, GradingFieldDep

router = APIRouter()


class CheckIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # no silent coercion

    answer: str = Field(
        min_length=1, max_length=MAX_ANSWER, description="The typed answer, as written."
    )
    model: bool = Field(
        default=False,
        description="Also ask the interviewer model, when the server has one configured "
        "(RINGSIDE_GRADER_URL); may take up to its timeout. The local grader answers anyway.",
    )

    @field_validator("answer")
    @classmethod
    def _not_blank(cls, answer: str) -> str:
        if not answer.strip():
            raise ValueError("type an answer first")
        return answer


class ModelOut(BaseModel):
    name: str = Field(description="The interviewer model that was asked.")
    points: list[int] | None = Field(description="The points it says the answer makes.")
    reasons: dict[str, str] = Field(description="Its one-line reason for each, by index.")
    error: str | None = Field(
        description="Why it gave no answer (timeout, error, malformed reply); the local "
        "grader's points stand."
    )


class CheckOut(BaseModel):
    points: list[int] = Field(description="Indexes of the rubric points the answer makes.")
    reasons: dict[str, str] = Field(
        description="For each point made, by index: the words of the answer that made it."
    )
    mistakes: list[int] = Field(
        default=[],
        description="Indexes of the card's common mistakes the answer states; a rubric point a "
        "stated mistake contradicts is not in `points`.",
    )
    mistake_reasons: dict[str, str] = Field(
        default={},
        description="For each mistake found, by index: the answer's own words that state it.",
    )
    mistake_corrections: dict[str, str] = Field(
        default={},
        description="For each mistake found, by index: the mistake and what is true instead "
        "(the card's text).",
    )
    withheld: dict[str, str] = Field(
        default={},
        description="Points whose words are there but which are not credited, by index, and "
        "why: a needed formula or figure missing, a different value, a contradicting mistake.",
    )
    undecided: list[int] = Field(
        default=[],
        description="Points the local grader cannot honestly call either way; the interviewer "
        "model, when available, is worth asking.",
    )
    model_available: bool = Field(
        description="Whether an interviewer model is configured (send model: true to ask it)."
    )
    model: ModelOut | None = Field(
        default=None, description="The interviewer model's opinion, when asked for."
    )


@router.post("/api/cards/{card_id}/check", tags=["cards"])
async def check_answer(
    card: CardDep, field: GradingFieldDep, request: Request, body: Annotated[CheckIn, Body()]
) -> CheckOut:
    """Which rubric points a typed answer makes, each with the words that made it.

    Graded locally in a few milliseconds; nothing leaves the machine unless the server has an
    interviewer model configured and `model` is true.
    """
    result = await anyio.to_thread.run_sync(grading.check, card, body.answer, field)
    config = interviewer.Config.of(request.app.state.settings)
    out = CheckOut(
        points=result.points,
        reasons={str(k): v for k, v in result.reasons.items()},
        mistakes=result.mistakes,
        mistake_reasons={str(k): v for k, v in result.mistake_reasons.items()},
        mistake_corrections={str(i): card.card.mistakes[i].text for i in result.mistakes},
        withheld={str(k): v for k, v in result.withheld.items()},
        undecided=result.unsure,
        model_available=config is not None,
    )
    if body.model and config is not None:
        opinion = await interviewer.ask(config, card, body.answer)
        out.model = ModelOut(
            name=config.model,
            points=opinion.points,
            reasons={str(k): v for k, v in opinion.reasons.items()},
            error=opinion.error,
        )
    return out

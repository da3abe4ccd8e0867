"""Numeric drills over HTTP: draw a question, check a typed answer, list past attempts."""

from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse

from app.drills import attempts, engine
from app.drills.present import DrawView, numeric, present
from app.errors import FieldError
from app.web.api_models import AttemptIn, AttemptOut, AttemptRecordOut, DrawOut
from app.web.deps import CardDep, RendererDep, SessionDep, TemplatesDep, UserDep, WriteSessionDep
from app.web.text import CLEAN

router = APIRouter()
SeedQuery = Annotated[int | None, Query(ge=0, le=engine.MAX_SEED, description="Repeat a draw.")]
NOT_NUMERIC: dict[int | str, dict[str, Any]] = {
    404: {"description": "No such card, or not a numeric card"}
}


def _numeric(card: CardDep) -> None:
    if numeric(card) is None:
        raise HTTPException(status_code=404, detail=f"Card '{card.id}' is not a numeric card.")


def message(outcome: engine.Outcome, drawn: engine.Draw) -> str:
    unit = f" {drawn.unit}" if drawn.unit else ""
    expected = engine.format_number(engine.round_significant(drawn.expected, 4))
    given = engine.format_number(engine.round_significant(outcome.given_in_unit, 4))
    if outcome.correct:
        return f"Correct: {expected}{unit} (you gave {given}{unit})."
    off = f"{outcome.relative_error:.0%}" if outcome.relative_error < 100 else "far"
    return f"Not quite: the answer is {expected}{unit}; you gave {given}{unit} ({off} off)."


@router.get("/api/cards/{card_id}/draw", tags=["drills"], responses=NOT_NUMERIC)
def draw_api(card: CardDep, renderer: RendererDep, seed: SeedQuery = None) -> DrawOut:
    """A numeric card's question; drills get fresh numbers unless `seed` repeats a draw."""
    _numeric(card)
    view = present(renderer, card, seed)
    drawn = view.draw
    return DrawOut(
        card_id=card.id,
        seed=drawn.seed,
        values=drawn.values,
        question=drawn.question,
        question_html=view.question_html,
        unit=drawn.unit,
        tolerance=drawn.tolerance,
    )


@router.post(
    "/api/cards/{card_id}/attempts", status_code=201, tags=["drills"], responses=NOT_NUMERIC
)
def attempt_api(
    card: CardDep,
    body: AttemptIn,
    renderer: RendererDep,
    session: WriteSessionDep,
    user_id: UserDep,
) -> AttemptOut:
    """Check a typed answer (with units: "31.4 GB", "29 GiB", "18 min") and record it."""
    _numeric(card)
    model = numeric(card)
    assert model is not None
    drawn, outcome = attempts.check(model, body.seed, body.answer)  # 422s: app.web.errors
    row = attempts.record(
        session, user_id, drawn, body.answer, outcome, body.duration_ms, body.idempotency_key
    )
    if row.answer != body.answer or row.seed != drawn.seed:  # a resend: the first
        drawn, outcome = attempts.check(model, row.seed, row.answer)
    view = present(renderer, card, drawn.seed)
    return AttemptOut(
        id=row.id,
        card_id=card.id,
        seed=drawn.seed,
        values=drawn.values,
        answer=row.answer,
        correct=outcome.correct,
        given_value=outcome.given_in_unit,
        expected_value=drawn.expected,
        unit=drawn.unit,
        tolerance=drawn.tolerance,
        relative_error=outcome.relative_error,
        suggested_rating=outcome.suggested_rating,
        message=message(outcome, drawn),
        solution=drawn.solution,
        solution_html=view.solution_html,
    )


@router.get("/api/cards/{card_id}/attempts", tags=["drills"], responses=NOT_NUMERIC)
def attempts_api(card: CardDep, session: SessionDep, user_id: UserDep) -> list[AttemptRecordOut]:
    """Your latest attempts at a numeric card, newest first, with the numbers drawn."""
    _numeric(card)
    return [
        AttemptRecordOut.model_validate(row, from_attributes=True)
        for row in attempts.recent(session, user_id, card.id)
    ]


@router.post("/cards/{card_id}/attempts", response_class=HTMLResponse, include_in_schema=False)
def attempt_page(
    request: Request,
    card: CardDep,
    templates: TemplatesDep,
    renderer: RendererDep,
    session: WriteSessionDep,
    user_id: UserDep,
    answer: Annotated[str, Form(), CLEAN] = "",
    seed: Annotated[int | None, Form(ge=0, le=engine.MAX_SEED)] = None,
) -> HTMLResponse:
    """The form on a card page: check the answer and show the card with the verdict."""
    _numeric(card)
    model = numeric(card)
    assert model is not None
    error, verdict = None, None
    try:
        drawn, outcome = attempts.check(model, seed, answer)
        attempts.record(session, user_id, drawn, answer, outcome, None)
        verdict = {"correct": outcome.correct, "message": message(outcome, drawn)}
    except FieldError as problem:
        error = problem.message
    view: DrawView | None = None
    try:
        view = present(renderer, card, seed)
    except engine.DrillError:
        view = present(renderer, card)
    context = {
        "card": card,
        "topic": request.app.state.catalog.topic(card.topic_slug),
        "drills": {card.id: view},
        "typed": answer,
        "error": error,
        "verdict": verdict,
    }
    return templates.TemplateResponse(
        request, "cards/show.html", context, status_code=422 if error else 200
    )

"""Fitting FSRS's parameters to the user: POST /api/srs/optimize, and the settings page's button."""

from datetime import datetime

from fastapi import APIRouter, HTTPException
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from app.srs import optimizer
from app.web.deps import NowDep, UserDep, WriteSessionDep

router = APIRouter()


class FitOut(BaseModel):
    parameters: list[float] = Field(description="The 21 FSRS parameters now used for you")
    reviews_used: int
    log_loss_before: float = Field(description="Current parameters, on the later 20% of reviews")
    log_loss_after: float = Field(description="The parameters kept, on the same reviews")
    rmse_before: float
    rmse_after: float


def run_fit(session: Session, user_id: int, now: datetime) -> optimizer.Fit:
    """Fit in the request's write transaction; 409 with how many reviews are needed when too
    few (nothing is written then)."""
    try:
        return optimizer.fit(session, user_id, now)
    except optimizer.NotEnoughHistory as error:
        raise HTTPException(409, str(error)) from None


@router.post(
    "/api/srs/optimize",
    tags=["review"],
    responses={409: {"description": "Not enough reviews yet", "content": {"application/json": {}}}},
)
def optimize_api(session: WriteSessionDep, user_id: UserDep, now: NowDep) -> FitOut:
    """Fit FSRS's parameters to your reviews and keep them if they predict your recall better
    (log loss and RMSE on the later fifth of your history, which the fit did not see)."""
    fit = run_fit(session, user_id, now)
    return FitOut(
        parameters=list(fit.parameters),
        reviews_used=fit.reviews_used,
        log_loss_before=fit.log_loss_before,
        log_loss_after=fit.log_loss_after,
        rmse_before=fit.rmse_before,
        rmse_after=fit.rmse_after,
    )


@router.post("/settings/optimize", include_in_schema=False)
def optimize_form(session: WriteSessionDep, user_id: UserDep, now: NowDep) -> RedirectResponse:
    """The settings page's button: fit, then back to the page with an outcome code."""
    try:
        fit = run_fit(session, user_id, now)
    except HTTPException:
        return RedirectResponse("/settings?optimize=few#memory", status_code=303)
    outcome = "better" if fit.improved else "kept"
    return RedirectResponse(f"/settings?optimize={outcome}#memory", status_code=303)

"""The loop date and the plan to it: JSON at /api/plan, and the form on home and settings."""

from datetime import date, datetime
from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request, Response
from fastapi.responses import RedirectResponse
from sqlalchemy.orm import Session

from app.content.catalog import Catalog
from app.errors import FieldError
from app.plan import service
from app.plan.service import PlanCache
from app.web.deps import CatalogDep, NowDep, SessionDep, UserDep, WriteSessionDep
from app.web.plan.panel import plan_cache
from app.web.plan.schemas import PlanIn, PlanOut

router = APIRouter()
NO_PLAN = "No loop date is set: PUT /api/plan with loop_date and daily_minutes."
_BACK = {"/", "/settings"}  # where the form may send the reader back to


@router.get(
    "/api/plan",
    tags=["plan"],
    responses={404: {"description": "No loop date set", "content": {"application/json": {}}}},
)
def get_plan(
    request: Request, session: SessionDep, catalog: CatalogDep, user_id: UserDep, now: NowDep
) -> PlanOut:
    """The plan from today to the loop: each day's work, readiness, and what does not fit."""
    return plan_out(session, user_id, catalog, now, plan_cache(request))


def plan_out(
    session: Session, user_id: int, catalog: Catalog, now: datetime, cache: PlanCache
) -> PlanOut:
    """The plan as JSON, its first row today's queue's counts; 404 without a loop date."""
    found = service.compute(session, user_id, catalog, now, cache)
    if found is None:
        raise HTTPException(404, NO_PLAN)
    work = service.todays_work(session, user_id, catalog, now, cache, limit=0)
    return PlanOut.of(*found, work)


@router.put("/api/plan", tags=["plan"])
def put_plan(
    request: Request,
    body: PlanIn,
    session: WriteSessionDep,
    catalog: CatalogDep,
    user_id: UserDep,
    now: NowDep,
) -> PlanOut:
    """Set or move the loop date; 422 names a date not in the future, bad minutes or topics."""
    service.save(session, user_id, catalog, now, **body.model_dump())
    return plan_out(session, user_id, catalog, now, plan_cache(request))  # just saved


@router.delete("/api/plan", status_code=204, tags=["plan"])
def delete_plan(session: WriteSessionDep, user_id: UserDep) -> Response:
    """Forget the loop date; reviews go back to the daily limits of the settings."""
    service.delete(session, user_id)
    return Response(status_code=204)


@router.post("/plan", include_in_schema=False)
def plan_form(
    session: WriteSessionDep,
    catalog: CatalogDep,
    user_id: UserDep,
    now: NowDep,
    loop_date: Annotated[str, Form(max_length=20)] = "",
    daily_minutes: Annotated[str, Form(max_length=10)] = "",
    back: Annotated[str, Form(max_length=20)] = "/",
    clear: Annotated[str, Form(max_length=5)] = "",
) -> RedirectResponse:
    """The form on the home and settings pages: save (or clear) and go back, with a code."""
    target = back if back in _BACK else "/"
    if clear:
        service.delete(session, user_id)
        return RedirectResponse(f"{target}?plan=cleared#plan", status_code=303)
    try:
        day = date.fromisoformat(loop_date.strip())
    except ValueError:
        return RedirectResponse(f"{target}?plan_error=date#plan", status_code=303)
    try:
        minutes = int(daily_minutes.strip())
    except ValueError:
        return RedirectResponse(f"{target}?plan_error=daily_minutes#plan", status_code=303)
    try:
        service.save(session, user_id, catalog, now, loop_date=day, daily_minutes=minutes,
                     topics=None)  # fmt: skip
    except FieldError as error:
        code = error.code if error.field == "loop_date" else error.field
        return RedirectResponse(f"{target}?plan_error={code}#plan", status_code=303)
    return RedirectResponse(f"{target}?plan=saved#plan", status_code=303)

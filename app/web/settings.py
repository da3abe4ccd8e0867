"""Review settings: a page with a form, and GET/PUT as JSON."""

import math
from dataclasses import asdict
from functools import lru_cache
from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, select

from app.auth import accounts
from app.models import ReviewLog, ReviewSettings, User
from app.srs import optimizer
from app.srs import settings as srs_settings
from app.web.deps import DatabaseDep, NowDep, SessionDep, TemplatesDep, UserDep
from app.web.plan.panel import plan_context
from app.web.text import CLEAN, CleanText

router = APIRouter()


class ReviewSettingsOut(BaseModel):
    desired_retention: float
    new_per_day: int
    max_reviews_per_day: int
    day_boundary_hour: int
    timezone: str


class ReviewSettingsIn(BaseModel):
    """Any subset of the settings; a new desired retention reschedules every card."""

    model_config = ConfigDict(extra="forbid", strict=True)  # no silent coercion

    desired_retention: float | None = Field(default=None, ge=0.70, le=0.97)
    new_per_day: int | None = Field(default=None, ge=0, le=500)
    max_reviews_per_day: int | None = Field(default=None, ge=0, le=10_000)
    day_boundary_hour: int | None = Field(default=None, ge=0, le=23)
    timezone: CleanText | None = Field(default=None, max_length=64)


def save(database: Any, user_id: int, changes: dict[str, Any]) -> srs_settings.Settings:
    try:
        with database.write_session() as session:
            return srs_settings.save(session, user_id, changes)
    except ValueError as error:
        field, _, message = str(error).partition(": ")
        detail = [{"loc": ["body", field], "msg": message, "type": "value_error"}]
        raise HTTPException(status_code=422, detail=detail) from None


@router.get("/api/settings/review", tags=["review"])
def get_settings_api(session: SessionDep, user_id: UserDep) -> ReviewSettingsOut:
    return ReviewSettingsOut(**asdict(srs_settings.load(session, user_id)))


@router.put("/api/settings/review", tags=["review"])
def put_settings_api(
    body: ReviewSettingsIn, database: DatabaseDep, user_id: UserDep
) -> ReviewSettingsOut:
    """Change review settings; fields left out keep their values."""
    saved = save(database, user_id, body.model_dump(exclude_none=True))
    return ReviewSettingsOut(**asdict(saved))


@router.get("/settings", response_class=HTMLResponse, include_in_schema=False)
def settings_page(
    request: Request,
    session: SessionDep,
    templates: TemplatesDep,
    user_id: UserDep,
    now: NowDep,
    saved: bool = False,
) -> HTMLResponse:
    context = settings_context(request, session, user_id)
    context["saved"] = saved
    return templates.TemplateResponse(request, "settings/show.html", context)


def settings_context(request: Request, session: Any, user_id: int) -> dict[str, Any]:
    """Everything the settings page shows: review settings, the account and its tokens."""
    params = request.query_params
    return {
        "values": asdict(srs_settings.load(session, user_id)),
        "saved": False,
        "errors": {},
        "zones": zones(),
        "accounts_mode": request.app.state.settings.auth_mode == "accounts",
        "account": session.get(User, user_id),
        "tokens": accounts.tokens_of(session, user_id),
        "password_changed": params.get("password_changed") == "1",
        "password_error": None,  # set by the forms that fail; never from the URL
        "token_error": None,
        "new_token": None,
        "memory": memory_context(session, user_id, params.get("optimize")),
        **plan_context(
            request, session, request.app.state.catalog, user_id, request.app.state.clock()
        ),
    }


@router.post("/settings", response_class=HTMLResponse, include_in_schema=False)
def settings_form(
    request: Request,
    database: DatabaseDep,
    session: SessionDep,
    templates: TemplatesDep,
    user_id: UserDep,
    desired_retention: Annotated[str, Form(max_length=64), CLEAN],
    new_per_day: Annotated[str, Form(max_length=64), CLEAN],
    max_reviews_per_day: Annotated[str, Form(max_length=64), CLEAN],
    day_boundary_hour: Annotated[str, Form(max_length=64), CLEAN],
    timezone: Annotated[str, Form(max_length=200), CLEAN],
) -> Any:
    typed = {
        "desired_retention": desired_retention,
        "new_per_day": new_per_day,
        "max_reviews_per_day": max_reviews_per_day,
        "day_boundary_hour": day_boundary_hour,
        "timezone": timezone,
    }
    changes: dict[str, Any] = {"timezone": timezone.strip()}
    errors: dict[str, str] = {}
    for name, text in typed.items():
        if name == "timezone":
            continue
        try:
            number = float(text)
        except ValueError:
            errors[name] = "Use a number."
            continue
        if not math.isfinite(number):  # "inf", "nan", "1e309"
            errors[name] = "Use a finite number."
        elif name == "desired_retention":
            changes[name] = number
        elif not number.is_integer():
            errors[name] = "Use a whole number."
        else:
            changes[name] = int(number)
    if not errors:
        try:
            srs_settings.validate(changes)
        except ValueError as error:
            field, _, message = str(error).partition(": ")
            errors[field] = message[0].upper() + message[1:] + "."
    if errors:
        context = settings_context(request, session, user_id)
        context.update(values=typed, errors=errors)
        return templates.TemplateResponse(request, "settings/show.html", context, status_code=422)
    with database.write_session() as session:
        srs_settings.save(session, user_id, changes)
    return RedirectResponse("/settings?saved=1", status_code=303)


def memory_context(session: Any, user_id: int, outcome: str | None) -> dict[str, Any]:
    """The memory-model section: fitted or default parameters, and whether a fit is possible."""
    row = session.get(ReviewSettings, user_id)
    have = session.scalar(
        select(func.count()).select_from(ReviewLog).where(ReviewLog.user_id == user_id)
    )
    return {
        "fitted_at": row.parameters_fitted_at if row else None,
        "custom": bool(row and row.fsrs_parameters),
        "have": have or 0,
        "need": optimizer.MIN_REVIEWS,
        "outcome": outcome if outcome in ("better", "kept", "few") else None,
    }


@lru_cache(maxsize=1)
def zones() -> list[str]:
    """The time zones to suggest; reading them walks the tz database, so once per process."""
    from zoneinfo import available_timezones

    return sorted(z for z in available_timezones() if "/" in z or z == "UTC")

"""The settings page and review settings as JSON; the page's other forms are in `account`
(password, API tokens) and `data` (export and import), its content in `context`."""

import math
from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import BaseModel, ConfigDict, Field

from app.srs import settings as srs_settings
from app.web.deps import SessionDep, TemplatesDep, UserDep, WriteSessionDep
from app.web.security import safe_next
from app.web.settings.context import Outcome, sentence, settings_page
from app.web.text import CLEAN, CleanText

router = APIRouter()


class ReviewSettingsOut(BaseModel):
    desired_retention: float
    new_per_day: int
    max_reviews_per_day: int
    day_boundary_hour: int
    timezone: str


LIMITS = srs_settings.LIMITS  # the bounds are kept in one place: the review settings' own


class ReviewSettingsIn(BaseModel):
    """Any subset of the settings; a new desired retention reschedules every card."""

    model_config = ConfigDict(extra="forbid", strict=True)  # no silent coercion

    desired_retention: float | None = Field(
        default=None, ge=LIMITS["desired_retention"][0], le=LIMITS["desired_retention"][1]
    )
    new_per_day: int | None = Field(
        default=None, ge=LIMITS["new_per_day"][0], le=LIMITS["new_per_day"][1]
    )
    max_reviews_per_day: int | None = Field(
        default=None, ge=LIMITS["max_reviews_per_day"][0], le=LIMITS["max_reviews_per_day"][1]
    )
    day_boundary_hour: int | None = Field(
        default=None, ge=LIMITS["day_boundary_hour"][0], le=LIMITS["day_boundary_hour"][1]
    )
    timezone: CleanText | None = Field(default=None, max_length=64)


@router.get("/api/settings/review", tags=["review"])
def get_settings_api(session: SessionDep, user_id: UserDep) -> ReviewSettingsOut:
    return ReviewSettingsOut(**asdict(srs_settings.load(session, user_id)))


@router.put("/api/settings/review", tags=["review"])
def put_settings_api(
    body: ReviewSettingsIn, session: WriteSessionDep, user_id: UserDep
) -> ReviewSettingsOut:
    """Change review settings; fields left out keep their values."""
    saved = srs_settings.save(session, user_id, body.model_dump(exclude_none=True))
    return ReviewSettingsOut(**asdict(saved))  # a refused value: 422 naming its field


class BrowserZoneIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    timezone: CleanText = Field(
        min_length=1,
        max_length=64,
        description="An IANA time zone name, as the browser reports it "
        "(Intl.DateTimeFormat().resolvedOptions().timeZone)",
    )
    first_visit: bool = Field(
        default=False,
        description="Only if no review settings are stored yet; a stored zone is then kept",
    )


class BrowserZoneOut(BaseModel):
    timezone: str = Field(description="The time zone now stored (or kept)")
    changed: bool


@router.post("/api/settings/timezone", tags=["review"])
def take_zone_api(
    body: BrowserZoneIn, session: WriteSessionDep, user_id: UserDep
) -> BrowserZoneOut:
    """Use the browser's time zone for "today", the plan and the countdown. The pages send it
    on a first visit with `first_visit` (taken only while the settings are untouched), and
    when the person accepts the offer to switch; an unknown zone is 422."""
    saved, changed = srs_settings.take_browser_zone(
        session, user_id, body.timezone, first_visit=body.first_visit
    )
    return BrowserZoneOut(timezone=saved.timezone, changed=changed)


@router.post("/settings/timezone", include_in_schema=False)
def take_zone_form(
    session: WriteSessionDep,
    user_id: UserDep,
    timezone: Annotated[str, Form(max_length=200), CLEAN],
    next: Annotated[str, Form(max_length=200), CLEAN] = "/",
) -> RedirectResponse:
    """The "Use <zone>" button of the notice a page shows when the browser's zone differs
    from the stored one. An unknown zone: the error page, 422."""
    srs_settings.take_browser_zone(session, user_id, timezone.strip(), first_visit=False)
    return RedirectResponse(safe_next(next, "/"), status_code=303)


@router.get("/settings", response_class=HTMLResponse, include_in_schema=False)
def settings_show(
    request: Request,
    session: SessionDep,
    templates: TemplatesDep,
    user_id: UserDep,
    saved: bool = False,
) -> HTMLResponse:
    return settings_page(request, templates, session, user_id, Outcome(saved=saved))


@router.post("/settings", response_class=HTMLResponse, include_in_schema=False)
def settings_form(
    request: Request,
    session: WriteSessionDep,
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
    changes, errors = _read_form(typed)
    if not errors:
        try:
            srs_settings.validate(changes)
        except srs_settings.SettingRejected as error:
            errors[error.field] = sentence(error.message)
    if errors:
        outcome = Outcome(values=typed, errors=errors)
        return settings_page(request, templates, session, user_id, outcome, status=422)
    srs_settings.save(session, user_id, changes)
    return RedirectResponse("/settings?saved=1", status_code=303)


def _read_form(typed: dict[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """The form's text as numbers (the time zone as it is), and what is not a number."""
    changes: dict[str, Any] = {"timezone": typed["timezone"].strip()}
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
    return changes, errors

"""What the settings page shows, built in one place for every route that renders it.

The page has several forms (review settings, password, tokens, import) posted to routes in
this package's modules; each renders the page again with its own `Outcome`, passed here as
an argument, never through request state.
"""

from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app import quotas
from app.auth import accounts
from app.models import ReviewLog, ReviewSettings, User
from app.quotas import Quotas
from app.srs import optimizer
from app.srs import settings as srs_settings
from app.web.plan.panel import plan_context


@dataclass(frozen=True)
class ImportResult:
    ok: bool
    message: str


@dataclass(frozen=True)
class Outcome:
    """What the form just posted came to; the defaults: none was posted. Set by the routes
    that render the page, never from the URL (a message in a link could be any text)."""

    saved: bool = False
    values: dict[str, str] | None = None  # the review form as typed, when it is shown again
    errors: dict[str, str] = field(default_factory=dict)  # the review form's, by field
    password_error: str | None = None
    token_error: str | None = None
    new_token: str | None = None  # shown once, on this response only
    data_result: ImportResult | None = None


NOTHING_POSTED = Outcome()


def settings_context(
    request: Request, session: Session, user_id: int, outcome: Outcome = NOTHING_POSTED
) -> dict[str, Any]:
    """Everything the settings page shows: review settings, the account and its tokens, the
    plan, the memory model, and the outcome of the form just posted."""
    params = request.query_params
    settings = srs_settings.load(session, user_id)
    return {
        "values": outcome.values or asdict(settings),
        "saved": outcome.saved,
        "errors": outcome.errors,
        "zones": zones(),
        "limits": srs_settings.LIMITS,
        "accounts_mode": request.app.state.settings.auth_mode == "accounts",
        "account": session.get(User, user_id),
        "tokens": accounts.tokens_of(session, user_id),
        "password_changed": params.get("password_changed") == "1",
        "password_error": outcome.password_error,
        "token_error": outcome.token_error,
        "new_token": outcome.new_token,
        "data_result": outcome.data_result,
        "memory": memory_context(session, user_id, params.get("optimize")),
        "usage": quotas.usage(
            session, user_id, request.app.state.clock(), Quotas.of(request.app.state.settings)
        ),
        "megabytes": quotas.megabytes,
        **plan_context(
            request,
            session,
            request.app.state.catalog,
            user_id,
            request.app.state.clock(),
            settings,
        ),  # fmt: skip
    }


def settings_page(
    request: Request,
    templates: Jinja2Templates,
    session: Session,
    user_id: int,
    outcome: Outcome = NOTHING_POSTED,
    status: int = 200,
) -> HTMLResponse:
    """The settings page, with the outcome of the form just posted."""
    context = settings_context(request, session, user_id, outcome)
    return templates.TemplateResponse(request, "settings/show.html", context, status_code=status)


def sentence(message: str) -> str:
    """A feature's message ("that is not your current password") as the page shows it."""
    return message[0].upper() + message[1:] + "."


def memory_context(session: Session, user_id: int, outcome: str | None) -> dict[str, Any]:
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

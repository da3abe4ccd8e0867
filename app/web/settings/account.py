"""The settings page's account forms: the password, and API tokens (as forms and as JSON)."""

from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Path, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from app.auth import accounts
from app.auth.passwords import PasswordRejected
from app.web.deps import DatabaseDep, NowDep, SessionDep, TemplatesDep, UserDep, WriteSessionDep
from app.web.identity import BrowserOnly, identify, policy
from app.web.security import AccountsOnly, client_of, log_event
from app.web.settings.context import Outcome, sentence, settings_page
from app.web.text import CLEAN, CleanText

router = APIRouter()
TokenId = Annotated[int, Path(ge=1, le=2**31 - 1)]
Text = Annotated[str, Form(max_length=512), CLEAN]


@router.post("/settings/password", include_in_schema=False, dependencies=[AccountsOnly])
def change_password(
    request: Request,
    templates: TemplatesDep,
    database: DatabaseDep,
    reading: SessionDep,
    user_id: UserDep,
    now: NowDep,
    current_password: Text,
    new_password: Text,
    keep_tokens: Annotated[str | None, Form()] = None,
) -> Response:
    """A new password ends every other session and, unless "keep my API tokens" is ticked,
    every API token. A wrong current password counts as a failed sign-in (429 past the
    account's limit)."""
    identity = identify(request)
    try:
        accounts.change_password(
            database, user_id, current_password, new_password,
            identity.session_id if identity else None, address=client_of(request.scope),
            now=now, revoke_tokens=keep_tokens is None,
        )  # fmt: skip
    except accounts.TooManyAttempts as error:
        log_event("password check throttled", request.scope, user_id=user_id)
        outcome = Outcome(password_error=error.message)
        response = settings_page(request, templates, reading, user_id, outcome, status=429)
        response.headers["Retry-After"] = str(error.retry_after)
        return response
    except (accounts.AccountError, PasswordRejected) as error:
        if error.field == "current_password":
            log_event("password check failed", request.scope, user_id=user_id)
        # The page itself, not a redirect: a message in the URL could be any text a link
        # carries, styled as ours.
        outcome = Outcome(password_error=sentence(error.message))
        return settings_page(request, templates, reading, user_id, outcome, status=422)
    log_event("password changed", request.scope, user_id=user_id, tokens_kept=bool(keep_tokens))
    return RedirectResponse("/settings?password_changed=1", status_code=303)


class TokenIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # no silent coercion

    name: CleanText = Field(min_length=1, max_length=64)
    expires_in_days: int | None = Field(
        default=None, ge=1, le=accounts.MAX_TOKEN_DAYS, description="None: until revoked."
    )


class TokenOut(BaseModel):
    id: int
    name: str
    created_at: str
    last_used_at: str | None
    expires_at: str | None = None


class NewTokenOut(TokenOut):
    token: str = Field(description="Shown once: store it now.")


@router.get("/api/auth/tokens", tags=["accounts"])
def list_tokens(session: SessionDep, user_id: UserDep) -> list[TokenOut]:
    """Your API tokens (names and dates; the secrets are never shown again)."""
    return [
        TokenOut(
            id=t.id,
            name=t.name,
            created_at=t.created_at.isoformat(),
            last_used_at=t.last_used_at.isoformat() if t.last_used_at else None,
            expires_at=t.expires_at.isoformat() if t.expires_at else None,
        )
        for t in accounts.tokens_of(session, user_id)
    ]


@router.post("/api/auth/tokens", status_code=201, tags=["accounts"], dependencies=[BrowserOnly])
def create_token_api(
    request: Request, body: TokenIn, session: WriteSessionDep, user_id: UserDep, now: NowDep
) -> NewTokenOut:
    """A new token for scripts: send it as `Authorization: Bearer <token>`.

    Only from a signed-in browser session (403 with a bearer token)."""
    secret, row = accounts.create_token(  # a refused name or term: 422 naming the field
        session, user_id, body.name, now, policy(request), body.expires_in_days
    )
    out = NewTokenOut(
        id=row.id, name=row.name, created_at=row.created_at.isoformat(),
        last_used_at=None, token=secret,
        expires_at=row.expires_at.isoformat() if row.expires_at else None,
    )  # fmt: skip
    log_event("API token created", request.scope, user_id=user_id, token_id=out.id)
    return out


@router.delete(
    "/api/auth/tokens/{token_id}", status_code=204, tags=["accounts"], dependencies=[BrowserOnly]
)
def revoke_token_api(
    request: Request, token_id: TokenId, session: WriteSessionDep, user_id: UserDep
) -> Response:
    """Only from a signed-in browser session (403 with a bearer token)."""
    if not accounts.revoke_token(session, user_id, token_id):
        raise HTTPException(status_code=404, detail=f"No token {token_id} of yours.")
    log_event("API token revoked", request.scope, user_id=user_id, token_id=token_id)
    return Response(status_code=204)


@router.post("/settings/tokens", include_in_schema=False)
def create_token_form(
    request: Request,
    templates: TemplatesDep,
    session: WriteSessionDep,
    user_id: UserDep,
    now: NowDep,
    name: Annotated[str, Form(max_length=200), CLEAN] = "",
    expires_in_days: Annotated[str, Form(max_length=8)] = "",
) -> Response:
    days = int(expires_in_days) if expires_in_days.strip().isdigit() else None
    try:  # refused before anything is written
        secret, row = accounts.create_token(session, user_id, name, now, policy(request), days)
        token_id = row.id
    except accounts.AccountError as error:
        outcome = Outcome(token_error=sentence(error.message))
        return settings_page(request, templates, session, user_id, outcome, status=422)
    log_event("API token created", request.scope, user_id=user_id, token_id=token_id)
    # Shown once, on this response only: never stored in clear, never put in a URL.
    return settings_page(request, templates, session, user_id, Outcome(new_token=secret))


@router.post("/settings/tokens/{token_id}/revoke", include_in_schema=False)
def revoke_token_form(
    request: Request, token_id: TokenId, session: WriteSessionDep, user_id: UserDep
) -> Response:
    revoked = accounts.revoke_token(session, user_id, token_id)
    if revoked:
        log_event("API token revoked", request.scope, user_id=user_id, token_id=token_id)
    return RedirectResponse("/settings#tokens", status_code=303)

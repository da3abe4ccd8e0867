"""Sign-in, registration, sign-out, password change and API tokens (accounts mode)."""

from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Path, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from app.auth import accounts
from app.auth.passwords import PasswordRejected
from app.models import User
from app.web.deps import DatabaseDep, NowDep, SessionDep, TemplatesDep, UserDep
from app.web.identity import cookie_name, identify, policy, set_session_cookie
from app.web.security import log_event, safe_next
from app.web.text import CLEAN, CleanText

router = APIRouter()
TokenId = Annotated[int, Path(ge=1, le=2**31 - 1)]
Text = Annotated[str, Form(max_length=512), CLEAN]


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _accounts_only(request: Request) -> None:
    if request.app.state.settings.auth_mode != "accounts":
        raise HTTPException(
            status_code=404, detail="This server runs in local mode: there is nobody to sign in."
        )


@router.get("/login", response_class=HTMLResponse, include_in_schema=False)
def login_page(request: Request, templates: TemplatesDep, next: str | None = None) -> HTMLResponse:
    _accounts_only(request)
    context = {"next": safe_next(next), "error": None, "username": "", "mode": "login"}
    return templates.TemplateResponse(request, "auth/login.html", context)


@router.post("/login", include_in_schema=False)
def login(
    request: Request,
    templates: TemplatesDep,
    database: DatabaseDep,
    now: NowDep,
    username: Text,
    password: Text,
    next: Annotated[str, Form(max_length=2048), CLEAN] = "/",
) -> Response:
    _accounts_only(request)
    address = client_address(request)
    try:
        # The password is checked outside any transaction (argon2 takes a few hundred ms);
        # the attempt is recorded as failed before, so the failure counts towards the limit.
        signed_in = accounts.sign_in(database, username, password, address, now, policy(request))
        if signed_in is None:
            raise accounts.AccountError("Wrong username or password.")
        cookie = signed_in[1]
    except accounts.TooManyAttempts as error:
        log_event("sign-in throttled", request.scope, username=username)
        context = {"next": safe_next(next), "error": str(error), "username": username,
                   "mode": "login"}  # fmt: skip
        return templates.TemplateResponse(
            request, "auth/login.html", context, status_code=429,
            headers={"Retry-After": str(error.retry_after)},
        )  # fmt: skip
    except accounts.AccountError as error:
        log_event("sign-in failed", request.scope, username=username)
        context = {"next": safe_next(next), "error": str(error), "username": username,
                   "mode": "login"}  # fmt: skip
        return templates.TemplateResponse(request, "auth/login.html", context, status_code=401)
    set_session_cookie(request, cookie)
    return RedirectResponse(safe_next(next), status_code=303)


@router.get("/register", response_class=HTMLResponse, include_in_schema=False)
def register_page(request: Request, templates: TemplatesDep) -> HTMLResponse:
    _accounts_only(request)
    context = {"error": None, "username": "", "mode": policy(request).registration}
    return templates.TemplateResponse(request, "auth/register.html", context)


@router.post("/register", include_in_schema=False)
def register(
    request: Request,
    templates: TemplatesDep,
    database: DatabaseDep,
    now: NowDep,
    username: Text,
    password: Text,
    invite: Annotated[str, Form(max_length=128), CLEAN] = "",
) -> Response:
    _accounts_only(request)
    rules = policy(request)
    try:
        _user_id, cookie = accounts.register_account(
            database, username, password, client_address(request), now, policy=rules,
            invite_code=invite,
        )  # fmt: skip
    except accounts.TooManyAttempts as error:
        context = {"error": str(error), "username": username, "mode": rules.registration}
        return templates.TemplateResponse(
            request, "auth/register.html", context, status_code=429,
            headers={"Retry-After": str(error.retry_after)},
        )  # fmt: skip
    except (accounts.AccountError, PasswordRejected) as error:
        message = str(error).partition(": ")[2] or str(error)
        context = {"error": message[0].upper() + message[1:], "username": username,
                   "mode": rules.registration}  # fmt: skip
        return templates.TemplateResponse(request, "auth/register.html", context, status_code=422)
    set_session_cookie(request, cookie)
    return RedirectResponse("/", status_code=303)


@router.post("/logout", include_in_schema=False)
def logout(request: Request, database: DatabaseDep, user_id: UserDep) -> Response:
    """End the session on the server (ASVS 7.4.1), not only in the browser."""
    cookie = request.cookies.get(cookie_name(request))
    if cookie:
        with database.write_session() as session:
            accounts.end_session(session, cookie, policy(request))
    set_session_cookie(request, "", clear=True)
    target = "/login" if request.app.state.settings.auth_mode == "accounts" else "/"
    return RedirectResponse(target, status_code=303)


@router.post("/settings/password", include_in_schema=False)
def change_password(
    request: Request,
    templates: TemplatesDep,
    database: DatabaseDep,
    reading: SessionDep,
    user_id: UserDep,
    current_password: Text,
    new_password: Text,
    revoke_tokens: Annotated[str | None, Form()] = None,
) -> Response:
    _accounts_only(request)
    identity = identify(request)
    try:
        accounts.change_password(
            database, user_id, current_password, new_password,
            identity.session_id if identity else None, revoke_tokens=revoke_tokens is not None,
        )  # fmt: skip
    except (accounts.AccountError, PasswordRejected) as error:
        # The page itself, not a redirect: a message in the URL could be any text a link
        # carries, styled as ours.
        message = str(error).partition(": ")[2] or str(error)
        return settings_page_with(
            request, templates, reading, user_id, status=422,
            password_error=message[0].upper() + message[1:] + ".",
        )  # fmt: skip
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


def _not_by_token(request: Request) -> None:
    """Tokens are managed from a signed-in browser: a token cannot mint or revoke tokens,
    so a leaked one cannot make itself a successor that outlives its revocation."""
    identity = identify(request)
    if identity is not None and identity.via == "token":
        raise HTTPException(
            status_code=403,
            detail="API tokens cannot create or revoke tokens: use Settings in the browser.",
        )


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


@router.post("/api/auth/tokens", status_code=201, tags=["accounts"])
def create_token_api(
    request: Request, body: TokenIn, database: DatabaseDep, user_id: UserDep, now: NowDep
) -> NewTokenOut:
    """A new token for scripts: send it as `Authorization: Bearer <token>`.

    Only from a signed-in browser session (403 with a bearer token)."""
    _not_by_token(request)
    try:
        with database.write_session() as session:
            secret, row = accounts.create_token(
                session, user_id, body.name, now, policy(request), body.expires_in_days
            )
            out = NewTokenOut(
                id=row.id, name=row.name, created_at=row.created_at.isoformat(),
                last_used_at=None, token=secret,
                expires_at=row.expires_at.isoformat() if row.expires_at else None,
            )  # fmt: skip
    except accounts.AccountError as error:
        field, _, message = str(error).partition(": ")
        detail = [{"loc": ["body", field], "msg": message, "type": "value_error"}]
        raise HTTPException(status_code=422, detail=detail) from None
    log_event("API token created", request.scope, user_id=user_id, token_id=out.id)
    return out


@router.delete("/api/auth/tokens/{token_id}", status_code=204, tags=["accounts"])
def revoke_token_api(
    request: Request, token_id: TokenId, database: DatabaseDep, user_id: UserDep
) -> Response:
    """Only from a signed-in browser session (403 with a bearer token)."""
    _not_by_token(request)
    with database.write_session() as session:
        if not accounts.revoke_token(session, user_id, token_id):
            raise HTTPException(status_code=404, detail=f"No token {token_id} of yours.")
    log_event("API token revoked", request.scope, user_id=user_id, token_id=token_id)
    return Response(status_code=204)


@router.post("/settings/tokens", include_in_schema=False)
def create_token_form(
    request: Request,
    templates: TemplatesDep,
    database: DatabaseDep,
    session: SessionDep,
    user_id: UserDep,
    now: NowDep,
    name: Annotated[str, Form(max_length=200), CLEAN] = "",
    expires_in_days: Annotated[str, Form(max_length=8)] = "",
) -> Response:
    days = int(expires_in_days) if expires_in_days.strip().isdigit() else None
    try:
        with database.write_session() as writing:
            secret, row = accounts.create_token(writing, user_id, name, now, policy(request), days)
            token_id = row.id
    except accounts.AccountError as error:
        message = str(error).partition(": ")[2] or str(error)
        return settings_page_with(
            request, templates, session, user_id, status=422,
            token_error=message[0].upper() + message[1:] + ".",
        )  # fmt: skip
    log_event("API token created", request.scope, user_id=user_id, token_id=token_id)
    # Shown once, on this response only: never stored in clear, never put in a URL.
    return settings_page_with(request, templates, session, user_id, new_token=secret)


@router.post("/settings/tokens/{token_id}/revoke", include_in_schema=False)
def revoke_token_form(
    request: Request, token_id: TokenId, database: DatabaseDep, user_id: UserDep
) -> Response:
    with database.write_session() as session:
        revoked = accounts.revoke_token(session, user_id, token_id)
    if revoked:
        log_event("API token revoked", request.scope, user_id=user_id, token_id=token_id)
    return RedirectResponse("/settings#tokens", status_code=303)


def settings_page_with(
    request: Request, templates: Any, session: Any, user_id: int, status: int = 200, **extra: Any
) -> HTMLResponse:
    from app.web.settings import settings_context

    context = settings_context(request, session, user_id)
    context.update(extra)
    return templates.TemplateResponse(request, "settings/show.html", context, status_code=status)  # type: ignore[no-any-return]


def account_of(session: Any, user_id: int) -> User | None:
    return session.scalars(select(User).where(User.id == user_id)).one_or_none()  # type: ignore[no-any-return]

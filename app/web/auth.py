"""Sign-in, registration and sign-out (accounts mode; the password and API tokens are on the
settings page, app.web.settings.account)."""

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.auth import accounts
from app.auth.passwords import PasswordRejected
from app.web.deps import DatabaseDep, NowDep, TemplatesDep, UserDep, WriteSessionDep
from app.web.identity import (
    cookie_name,
    device_cookie,
    policy,
    set_device_cookie,
    set_session_cookie,
)
from app.web.security import AccountsOnly, client_of, log_event, safe_next
from app.web.text import CLEAN

router = APIRouter()
WRONG_PASSWORD = "Wrong username or password."
Text = Annotated[str, Form(max_length=512), CLEAN]


def client_address(request: Request) -> str:
    return client_of(request.scope)


@router.get(
    "/login", response_class=HTMLResponse, include_in_schema=False, dependencies=[AccountsOnly]
)
def login_page(request: Request, templates: TemplatesDep, next: str | None = None) -> HTMLResponse:
    context = {"next": safe_next(next), "error": None, "username": "", "mode": "login"}
    return templates.TemplateResponse(request, "auth/login.html", context)


@router.post("/login", include_in_schema=False, dependencies=[AccountsOnly])
def login(
    request: Request,
    templates: TemplatesDep,
    database: DatabaseDep,
    now: NowDep,
    username: Text,
    password: Text,
    next: Annotated[str, Form(max_length=2048), CLEAN] = "/",
) -> Response:
    address = client_address(request)
    try:
        # The password is checked outside any transaction (argon2 takes a few hundred ms);
        # the attempt is recorded as failed before, so the failure counts towards the limit.
        signed_in = accounts.sign_in(
            database, username, password, address, now, policy(request), device_cookie(request)
        )
    except accounts.TooManyAttempts as error:
        log_event("sign-in throttled", request.scope, username=username)
        context = {"next": safe_next(next), "error": error.message, "username": username,
                   "mode": "login"}  # fmt: skip
        return templates.TemplateResponse(
            request, "auth/login.html", context, status_code=429,
            headers={"Retry-After": str(error.retry_after)},
        )  # fmt: skip
    if signed_in is None:
        log_event("sign-in failed", request.scope, username=username)
        context = {"next": safe_next(next), "error": WRONG_PASSWORD, "username": username,
                   "mode": "login"}  # fmt: skip
        return templates.TemplateResponse(request, "auth/login.html", context, status_code=401)
    user_id, cookie = signed_in
    log_event("signed in", request.scope, user_id=user_id)
    set_session_cookie(request, cookie)
    set_device_cookie(request, accounts.device_token(user_id, policy(request)))
    return RedirectResponse(safe_next(next), status_code=303)


@router.get(
    "/register", response_class=HTMLResponse, include_in_schema=False, dependencies=[AccountsOnly]
)
def register_page(request: Request, templates: TemplatesDep) -> HTMLResponse:
    context = {"error": None, "username": "", "mode": policy(request).registration}
    return templates.TemplateResponse(request, "auth/register.html", context)


@router.post("/register", include_in_schema=False, dependencies=[AccountsOnly])
def register(
    request: Request,
    templates: TemplatesDep,
    database: DatabaseDep,
    now: NowDep,
    username: Text,
    password: Text,
    invite: Annotated[str, Form(max_length=128), CLEAN] = "",
) -> Response:
    rules = policy(request)
    try:
        user_id, cookie = accounts.register_account(
            database, username, password, client_address(request), now, policy=rules,
            invite_code=invite,
        )  # fmt: skip
    except accounts.TooManyAttempts as error:
        log_event("registration throttled", request.scope)
        context = {"error": error.message, "username": username, "mode": rules.registration}
        return templates.TemplateResponse(
            request, "auth/register.html", context, status_code=429,
            headers={"Retry-After": str(error.retry_after)},
        )  # fmt: skip
    except (accounts.AccountError, accounts.RegistrationClosed, PasswordRejected) as error:
        message = error.message[0].upper() + error.message[1:]
        context = {"error": message, "username": username, "mode": rules.registration}
        return templates.TemplateResponse(request, "auth/register.html", context, status_code=422)
    log_event("registered", request.scope, user_id=user_id)
    set_session_cookie(request, cookie)
    set_device_cookie(request, accounts.device_token(user_id, rules))
    return RedirectResponse("/", status_code=303)


@router.post("/logout", include_in_schema=False)
def logout(request: Request, session: WriteSessionDep, user_id: UserDep) -> Response:
    """End the session on the server (ASVS 7.4.1), not only in the browser."""
    cookie = request.cookies.get(cookie_name(request))
    if cookie:
        accounts.end_session(session, cookie, policy(request))
    log_event("signed out", request.scope, user_id=user_id)
    set_session_cookie(request, "", clear=True)
    target = "/login" if request.app.state.settings.auth_mode == "accounts" else "/"
    return RedirectResponse(target, status_code=303)

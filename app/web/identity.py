"""Who is asking: an API token, a session cookie, or (in local mode) the local profile.

`get_user_id` is the dependency every route with user data uses. On a state-changing request
from a signed-in browser it also checks the CSRF synchronizer token (a form field or the
X-CSRF-Token header), so a forged form from another site fails even where the browser sends
no Origin header.
"""

import hmac
from dataclasses import dataclass
from datetime import datetime, timedelta

from fastapi import HTTPException, Request

from app.auth import accounts
from app.srs.days import as_utc
from app.web.security import SAFE_METHODS, cookie_header

COOKIE = "ringside_session"
SECURE_COOKIE = "__Host-ringside_session"
TOUCH_EVERY = timedelta(minutes=1)  # refresh last_seen_at at most this often: fewer writes


@dataclass(frozen=True)
class Identity:
    user_id: int
    via: str  # "session", "token" or "local"
    session_id: int | None = None
    csrf: str | None = None


class SignInRequired(Exception):
    """A page for signed-in users only: the handler redirects to /login."""


def policy(request: Request) -> accounts.Policy:
    return request.app.state.auth_policy  # type: ignore[no-any-return]


def is_https(request: Request) -> bool:
    return request.url.scheme == "https"


def cookie_name(request: Request) -> str:
    return SECURE_COOKIE if is_https(request) else COOKIE


def set_session_cookie(request: Request, value: str, *, clear: bool = False) -> None:
    """Ask the security middleware to send this cookie with the response."""
    max_age = 0 if clear else int(policy(request).absolute.total_seconds())
    request.state.set_cookie = cookie_header(
        cookie_name(request), "" if clear else value, secure=is_https(request), max_age=max_age
    )


def _now(request: Request) -> datetime:
    return request.app.state.clock()  # type: ignore[no-any-return]


def identify(request: Request) -> Identity | None:
    """Resolve the caller once per request (cached on request.state)."""
    if hasattr(request.state, "identity"):
        return request.state.identity  # type: ignore[no-any-return]
    found = _resolve(request)
    request.state.identity = found
    return found


def _resolve(request: Request) -> Identity | None:
    database = request.app.state.database
    now = _now(request)
    rules = policy(request)
    local = request.app.state.settings.auth_mode == "local"

    bearer = request.headers.get("authorization", "")
    if bearer.lower().startswith("bearer "):
        with database.read_session() as session:
            token = accounts.find_token(session, bearer[7:].strip(), rules)
            found_token = (token.id, token.user_id, token.last_used_at) if token else None
        if found_token is None:
            raise HTTPException(status_code=401, detail="Unknown or revoked API token.")
        token_id, token_user, last_used = found_token
        if last_used is None or now - as_utc(last_used) > TOUCH_EVERY:
            with database.write_session() as session:
                accounts.touch_token(session, token_id, now)
        return Identity(token_user, "token")

    cookie = request.cookies.get(cookie_name(request))
    if cookie:
        with database.read_session() as session:
            row = accounts.find_session(session, cookie, now, rules)
            found = (row.id, row.user_id, row.csrf_token, row.last_seen_at) if row else None
        if found:
            session_id, user_id, csrf, last_seen = found
            if now - as_utc(last_seen) > TOUCH_EVERY:
                with database.write_session() as session:
                    accounts.touch(session, session_id, now)
            return Identity(user_id, "session", session_id, csrf)

    if not local:
        return None
    local_id: int = request.app.state.local_user_id
    if request.method == "GET" and "text/html" in request.headers.get("accept", ""):
        # A browser in local mode gets a session too, so its forms carry a CSRF token.
        with database.write_session() as session:
            value, row = accounts.start_session(session, local_id, now, rules)
            set_session_cookie(request, value)
            return Identity(local_id, "session", row.id, row.csrf_token)
    return Identity(local_id, "local")


async def get_user_id(request: Request) -> int:
    """The signed-in user (or the local profile), after the CSRF check on writes."""
    from starlette.concurrency import run_in_threadpool

    identity = await run_in_threadpool(identify, request)
    if identity is None:
        if request.url.path.startswith("/api/"):
            raise HTTPException(
                status_code=401,
                detail="Sign in, or send Authorization: Bearer <token> (see Settings).",
                headers={"WWW-Authenticate": "Bearer"},
            )
        raise SignInRequired()
    if request.method not in SAFE_METHODS and identity.via == "session":
        await _check_csrf(request, identity)
    return identity.user_id


async def _check_csrf(request: Request, identity: Identity) -> None:
    sent = request.headers.get("x-csrf-token")
    kind = request.headers.get("content-type", "")
    if sent is None and kind.startswith(("application/x-www-form-urlencoded", "multipart/")):
        form = await request.form()
        value = form.get("csrf_token")
        sent = value if isinstance(value, str) else None
    if not sent or not identity.csrf or not hmac.compare_digest(sent, identity.csrf):
        raise HTTPException(
            status_code=403,
            detail="The form's security token is missing or out of date: reload the page "
            "and try again.",
        )


def csrf_token(request: Request) -> str:
    """For templates: the token forms and scripts send back (empty when signed out)."""
    identity = identify(request)
    return identity.csrf if identity and identity.csrf else ""


async def require_signed_in(request: Request) -> None:
    """Router dependency in accounts mode: content pages too are for members only."""
    if request.app.state.settings.auth_mode != "accounts":
        return  # decided in the event loop: a thread-pool hop per request costs (bench/)
    from starlette.concurrency import run_in_threadpool

    if await run_in_threadpool(identify, request) is None:
        if request.url.path.startswith("/api/"):
            raise HTTPException(
                status_code=401,
                detail="Sign in, or send Authorization: Bearer <token> (see Settings).",
                headers={"WWW-Authenticate": "Bearer"},
            )
        raise SignInRequired()

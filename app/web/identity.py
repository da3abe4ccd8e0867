"""Who is asking: an API token, a session cookie, or (in local mode) the local profile.

Resolved once per request, by `resolve` (async: the event loop does the one short read a
session cookie needs through Database.read, a worker thread anything that writes), and kept on
request.state. Every feature router depends on `resolve_for_members`, so by the time a route
or a template runs, the identity and its CSRF token are known: `identify` and `csrf_token`
only read what was resolved, and templates get the token in their context
(app.web.templating), never touching the database. Error pages, rendered outside any route,
resolve it the same way first (app.web.errors).

`get_user_id` is the dependency every route with user data uses. On a state-changing request
from a signed-in browser it also checks the CSRF synchronizer token (a form field or the
X-CSRF-Token header), so a forged form from another site fails even where the browser sends
no Origin header.
"""

import hmac
from dataclasses import dataclass
from datetime import datetime, timedelta

from fastapi import Depends, HTTPException, Request
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app.auth import accounts
from app.auth.tokens import digest, new_secret
from app.srs.days import as_utc
from app.web.security import SAFE_METHODS, cookie_header, log_event

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
    _add_cookie(request, cookie_name(request), "" if clear else value, max_age)


DEVICE_COOKIE = "ringside_device"
SECURE_DEVICE_COOKIE = "__Host-ringside_device"
DEVICE_DAYS = 365


def device_cookie(request: Request) -> str | None:
    """The browser's device token (app.auth.accounts.device_token), if it has one."""
    name = SECURE_DEVICE_COOKIE if is_https(request) else DEVICE_COOKIE
    return request.cookies.get(name)


def set_device_cookie(request: Request, value: str) -> None:
    """Remember this browser as one that signed in: lockout then spares it."""
    name = SECURE_DEVICE_COOKIE if is_https(request) else DEVICE_COOKIE
    _add_cookie(request, name, value, DEVICE_DAYS * 86400)


def remember_in_browser(request: Request, name: str, value: str, days: int) -> None:
    """Keep a small choice of this browser's (not a credential) for `days`: sent with the
    response, HttpOnly and SameSite=Lax like every cookie of ours."""
    _add_cookie(request, name, value, days * 86400)


def _add_cookie(request: Request, name: str, value: str, max_age: int) -> None:
    """Ask the security middleware to send this cookie with the response."""
    header = cookie_header(name, value, secure=is_https(request), max_age=max_age)
    cookies = [c for c in getattr(request.state, "set_cookies", []) if not c.startswith(name + "=")]
    request.state.set_cookies = [*cookies, header]


def _now(request: Request) -> datetime:
    return request.app.state.clock()  # type: ignore[no-any-return]


def identify(request: Request) -> Identity | None:
    """The identity `resolve` found for this request, or None if nobody is signed in or it
    was not resolved; reads request.state only, so it is safe anywhere, templates included."""
    found: Identity | None = getattr(request.state, "identity", None)
    return found


async def resolve(request: Request) -> Identity | None:
    """Who is asking, worked out once per request and cached on request.state.

    A thread-pool hop costs more than a small request's own work (bench/suite.py), and most
    callers need none: an API call in local mode or a signed-out visitor needs no database,
    and a session cookie is one short read (on SQLite, in the loop: Database.read).
    Writes (last_seen_at refreshed once a minute) and API tokens go to a worker thread.
    Raises a 401 HTTPException for an unknown API token.
    """
    if hasattr(request.state, "identity"):
        return request.state.identity  # type: ignore[no-any-return]
    if not _needs_database(request):
        found = _resolve(request)
    else:
        found = await _live_session(request) or await run_in_threadpool(_resolve, request)
    request.state.identity = found
    return found


async def resolve_quietly(request: Request) -> Identity | None:
    """`resolve` for pages that show forms but do not need a user: an unknown API token is
    nobody here (the routes that need a user still answer it with 401)."""
    try:
        return await resolve(request)
    except HTTPException:
        return None


def _bearer(request: Request) -> str | None:
    value = request.headers.get("authorization", "")
    return value[7:].strip() if value.lower().startswith("bearer ") else None


def _wants_page(request: Request) -> bool:
    return request.method == "GET" and "text/html" in request.headers.get("accept", "")


def _is_local(request: Request) -> bool:
    return bool(request.app.state.settings.auth_mode == "local")


def _needs_database(request: Request) -> bool:
    return _bearer(request) is not None or bool(request.cookies.get(cookie_name(request)))


async def _live_session(request: Request) -> Identity | None:
    """The caller's session, when a cookie names a live one that needs no write; else None."""
    cookie = request.cookies.get(cookie_name(request))
    if not cookie or _bearer(request) is not None:
        return None
    now, rules = _now(request), policy(request)
    live = await request.app.state.database.read(
        lambda connection: accounts.find_session(connection, cookie, now, rules)
    )
    if live is None and _is_local(request):
        return _local_browser(request, cookie)
    if live is None or now - live.last_seen_at > TOUCH_EVERY:
        return None  # the thread refreshes last_seen_at
    return Identity(live.user_id, "session", live.id, live.csrf_token)


def _resolve(request: Request) -> Identity | None:
    database = request.app.state.database
    now = _now(request)
    rules = policy(request)

    bearer = _bearer(request)
    if bearer is not None:
        with database.read_session() as session:
            token = accounts.find_token(session, bearer, rules, now)
            found_token = (token.id, token.user_id, token.last_used_at) if token else None
        if found_token is None:
            log_event("unknown or revoked API token refused", request.scope)
            raise HTTPException(status_code=401, detail="Unknown or revoked API token.")
        token_id, token_user, last_used = found_token
        if last_used is None or now - as_utc(last_used) > TOUCH_EVERY:
            with database.write_session() as session:
                accounts.touch_token(session, token_id, now)
        return Identity(token_user, "token")

    cookie = request.cookies.get(cookie_name(request))
    if cookie:
        with database.read_session() as session:
            live = accounts.find_session(session, cookie, now, rules)
        if live:
            if now - live.last_seen_at > TOUCH_EVERY:
                with database.write_session() as session:
                    accounts.touch(session, live.id, now)
            return Identity(live.user_id, "session", live.id, live.csrf_token)

    if not _is_local(request):
        return None
    local_id: int = request.app.state.local_user_id
    if not cookie and _wants_page(request):
        # A browser in local mode gets a cookie too, so its forms carry a CSRF token.
        cookie = new_secret()
        set_session_cookie(request, cookie)
    if cookie:
        return _local_browser(request, cookie)
    return Identity(local_id, "local")


def still_signed_in(request: Request, identity: Identity, session: Session) -> bool:
    """Whether `identity`, resolved when a long request began (an event stream), still holds:
    its sign-in session not ended or timed out, its API token not revoked or expired."""
    now, rules = _now(request), policy(request)
    if identity.via == "token":
        bearer = _bearer(request)
        return bearer is not None and accounts.find_token(session, bearer, rules, now) is not None
    if identity.via == "session" and identity.session_id is not None:
        cookie = request.cookies.get(cookie_name(request))
        return cookie is not None and accounts.find_session(session, cookie, now, rules) is not None
    return True  # local mode's profile: nobody signs in or out


def _local_browser(request: Request, cookie: str) -> Identity:
    """A browser in local mode: its cookie is only a secret the CSRF token is derived from,
    so a page view writes nothing (no session row per cookie-less visit)."""
    csrf = digest("csrf:" + cookie, policy(request).key)
    return Identity(request.app.state.local_user_id, "session", None, csrf)


async def _signed_in(request: Request) -> Identity:
    """Who is asking; when nobody is signed in, a 401 for the API and the sign-in page else."""
    identity = await resolve(request)
    if identity is None:
        if request.url.path.startswith("/api/"):
            log_event("access refused: not signed in", request.scope, method=request.method)
            raise HTTPException(
                status_code=401,
                detail="Sign in, or send Authorization: Bearer <token> (see Settings).",
                headers={"WWW-Authenticate": "Bearer"},
            )
        raise SignInRequired()
    return identity


async def get_user_id(request: Request) -> int:
    """The signed-in user (or the local profile), after the CSRF check on writes."""
    identity = await _signed_in(request)
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
        log_event("CSRF token refused", request.scope, user_id=identity.user_id, sent=bool(sent))
        raise HTTPException(
            status_code=403,
            detail="The form's security token is missing or out of date: reload the page "
            "and try again.",
        )


BROWSER_ONLY_DETAIL = (
    "API tokens are for the JSON API under /api/; this is done from a signed-in browser (Settings)."
)


async def browser_only(request: Request) -> None:
    """Refuse a state change that carries an API token (403).

    What a token must never do (make tokens, revoke them, change the password, import over
    the account, change settings) is done from a signed-in browser only: a leaked token then
    cannot make itself a successor that outlives its revocation, nor lock its owner out.
    """
    if request.method in SAFE_METHODS or _bearer(request) is None:
        return
    log_event("API token refused", request.scope, method=request.method)
    raise HTTPException(status_code=403, detail=BROWSER_ONLY_DETAIL)


async def forms_are_for_browsers(request: Request) -> None:
    """Every route outside /api/ is a browser's form: a token may not post to any of them.

    An app-wide dependency, so a form route added later is covered without a word more;
    API routes that are browser-only too declare `BrowserOnly` themselves.
    """
    if not request.url.path.startswith("/api/"):
        await browser_only(request)


#: For a route's `dependencies=[...]`: an API route a token may not use (token management).
BrowserOnly = Depends(browser_only)


def csrf_token(request: Request) -> str:
    """The token forms and scripts send back: empty when signed out or not resolved."""
    identity = identify(request)
    return identity.csrf if identity and identity.csrf else ""


async def resolve_for_members(request: Request) -> None:
    """Every feature router's dependency: who is asking, resolved once for the route and its
    templates. In accounts mode content pages too are for members only, so nobody signed in
    means the sign-in page (or a 401 for the API)."""
    if request.app.state.settings.auth_mode == "accounts":
        await _signed_in(request)
    else:
        await resolve_quietly(request)

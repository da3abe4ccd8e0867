"""Security headers on every response, and no state change from another site.

Pure ASGI middlewares (cheaper than BaseHTTPMiddleware on every request), run outside
Starlette's own error handler (see `EdgeApp`), so that a 500 and the body limit's 413 carry
the headers too. `SecurityMiddleware` adds the headers ASVS 3.4 asks for, sets a session
cookie a dependency asked for, and refuses any state-changing request that a browser marks
as coming from another site (CSRF's first line; the synchronizer token checked in
app.web.identity is the second). `LocalOnlyMiddleware` keeps local mode, which has no
sign-in, to this machine: a loopback client, and a Host header naming a loopback address, so
that a page whose name an attacker re-points at 127.0.0.1 (DNS rebinding) is refused.
`AccountsOnly` is the other side: the routes only accounts mode has are not found in local mode.
"""

import ipaddress
import json
import logging
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Request

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = (
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
_COMMON = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


security_log = logging.getLogger("ringside.security")


def client_of(scope: Scope) -> str:
    """The client's address as the server saw it (or as a trusted proxy forwarded it)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


_LINK_TOKEN = re.compile(r"^(/(?:api/)?pair/)[^/]+")


def loggable_path(path: str) -> str:
    """A request's path for the logs: an interview link's token (app.web.pair), which is its
    only credential, is left out."""
    return _LINK_TOKEN.sub(r"\1…", path)


def log_event(event: str, scope: Scope, **fields: object) -> None:
    """One JSON line for a security event: what, where from, about whom; never a secret.

    The formatter adds the UTC time and the request id (app.web.observability).
    """
    security_log.warning(
        event,
        extra={
            "event": event,
            "client": client_of(scope),
            "path": loggable_path(str(scope.get("path", ""))),
            **fields,
        },
    )


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def cross_site(scope: Scope) -> bool:
    """True when the browser says the request comes from another site or origin."""
    fetch_site = _header(scope, b"sec-fetch-site")
    if fetch_site is not None and fetch_site not in ("same-origin", "none"):
        return True
    origin = _header(scope, b"origin")
    if origin is None:  # not a browser, or a same-origin navigation that sends none
        return False
    host = _header(scope, b"host") or ""
    return origin not in (f"http://{host}", f"https://{host}")


class SecurityMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] not in SAFE_METHODS and cross_site(scope):
            log_event(
                "cross-site request refused",
                scope,
                method=scope["method"],
                origin=_header(scope, b"origin"),
                fetch_site=_header(scope, b"sec-fetch-site"),
            )
            await self._refuse(scope, send)
            return
        https = scope.get("scheme") == "https"
        static = scope["path"].startswith("/static/")
        started = False

        async def with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers", []))
                # A route that set its own policy (a recording: sandboxed) keeps it.
                own = {name.lower() for name, _ in headers}
                headers.extend(h for h in _COMMON if h[0] not in own)
                if not static:
                    headers.append((b"cache-control", b"no-store"))
                if https:
                    headers.append((b"strict-transport-security", b"max-age=63072000"))
                for cookie in scope.get("state", {}).get("set_cookies", []):
                    headers.append((b"set-cookie", cookie.encode("latin-1")))
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, receive, with_headers)
        except Exception:
            # Starlette's error handler has answered (app.web.errors.server_error logged the
            # traceback) and re-raised, for servers to log it a second time: once is enough.
            # If the handler itself failed, nothing was sent: answer a plain 500 here, with
            # the headers, instead of the server's bare one.
            if started:
                return
            logging.getLogger("ringside").exception(
                "unhandled error on %s %s", scope["method"], scope["path"]
            )
            await refuse(scope, send, 500, "Internal server error.")

    async def _refuse(self, scope: Scope, send: Send) -> None:
        await refuse(scope, send, 403, "Refused: this request came from another site.")


async def refuse(scope: Scope, send: Send, status: int, text: str) -> None:
    """A short answer from a middleware, JSON for the API and text else, with the headers."""
    wants_json = scope["path"].startswith("/api/") or "json" in (_header(scope, b"accept") or "")
    if wants_json:
        body, kind = json.dumps({"detail": text}).encode(), b"application/json"
    else:
        body, kind = text.encode(), b"text/plain; charset=utf-8"
    headers = [
        (b"content-type", kind),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers + _COMMON})
    await send({"type": "http.response.body", "body": body})


# A host name and an optional port; an IPv6 address in brackets.
_HOST = re.compile(r"(\[[0-9a-f:.]+\]|[^\[\]:]+)(?::(\d{1,5}))?")


def _loopback_address(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.removeprefix("[").removesuffix("]")).is_loopback
    except ValueError:
        return False


def loopback_host(host: str, port: int | None) -> bool:
    """True when a Host header names this machine: `localhost` or a loopback address
    (`127.0.0.1`, `[::1]`, …), with no port or the port the server listens on.

    A DNS-rebinding page is served under the attacker's own name, which it makes resolve to
    127.0.0.1: its requests carry that name in Host. A loopback address cannot be re-pointed.
    """
    match = _HOST.fullmatch(host.lower())
    if match is None:
        return False
    name, given = match.groups()
    if name != "localhost" and not _loopback_address(name):
        return False
    return given is None or port is None or int(given) == port


class LocalOnlyMiddleware:
    """Local mode only: refuse clients that are not on this machine (403), and any Host
    header that does not name this machine (421, before anything else runs).

    `ringside serve` already refuses to listen beyond loopback in local mode; this keeps the
    promise when the app is served some other way (e.g. `uvicorn --factory --host 0.0.0.0`).
    A request over a Unix socket has no client address and is local by construction.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        if client and not _loopback_address(str(client[0])):
            log_event("non-loopback client refused in local mode", scope)
            await self._refuse(
                scope,
                send,
                403,
                "This server runs in local mode and serves only this machine. To serve "
                "others, enable accounts (RINGSIDE_AUTH_MODE=accounts).",
            )
            return
        host = _header(scope, b"host")
        server = scope.get("server")
        port = int(server[1]) if server and server[1] is not None else None
        if host is None or not loopback_host(host, port):
            log_event("foreign Host header refused in local mode", scope, host=host)
            await self._refuse(
                scope,
                send,
                421,
                "This server runs in local mode: open it as http://127.0.0.1 or "
                "http://localhost with its port.",
            )
            return
        await self.app(scope, receive, send)

    async def _refuse(self, scope: Scope, send: Send, status: int, text: str) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await refuse(scope, send, status, text)


async def accounts_only(request: Request) -> None:
    """Sign-in, registration and the password exist in accounts mode only: local mode has
    nobody to sign in, so they are not found there."""
    if request.app.state.settings.auth_mode != "accounts":
        raise HTTPException(
            status_code=404, detail="This server runs in local mode: there is nobody to sign in."
        )


#: For a route's `dependencies=[...]`: checked before its form is read.
AccountsOnly = Depends(accounts_only)


class EdgeApp(FastAPI):
    """FastAPI with middlewares of ours outside Starlette's own error handler and body limit,
    so that what they add (security headers, the local-mode guard, request ids) reaches
    every response, a 500 or a 413 included. `edge` lists them outermost first."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.edge: list[Callable[[ASGIApp], ASGIApp]] = []

    def build_middleware_stack(self) -> ASGIApp:
        stack: ASGIApp = super().build_middleware_stack()
        for wrap in reversed(self.edge):
            stack = wrap(stack)
        return stack


def safe_next(target: str | None, fallback: str = "/") -> str:
    """Only ever redirect to a path on this site, never to another host."""
    if target and target.startswith("/") and not target.startswith("//"):
        return target
    return fallback


def cookie_header(name: str, value: str, *, secure: bool, max_age: int | None) -> str:
    """HttpOnly, SameSite=Lax, Path=/; Secure (and a __Host- name) over HTTPS: ASVS 3.3."""
    parts = [f"{name}={value}", "Path=/", "HttpOnly", "SameSite=Lax"]
    if secure:
        parts.append("Secure")
    if max_age is not None:
        parts.append(f"Max-Age={max_age}")
    return "; ".join(parts)

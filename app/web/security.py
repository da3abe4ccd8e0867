"""Security headers on every response, and no state change from another site.

A pure ASGI middleware (cheaper than BaseHTTPMiddleware on every request). It adds the
headers ASVS 3.4 asks for, sets a session cookie a dependency asked for, and refuses any
state-changing request that a browser marks as coming from another site (CSRF's first line;
the synchronizer token checked in app.web.identity is the second).
"""

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

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
            await self._refuse(scope, send)
            return
        https = scope.get("scheme") == "https"
        static = scope["path"].startswith("/static/")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers.extend(_COMMON)
                if not static:
                    headers.append((b"cache-control", b"no-store"))
                if https:
                    headers.append((b"strict-transport-security", b"max-age=63072000"))
                cookie = scope.get("state", {}).get("set_cookie")
                if cookie:
                    headers.append((b"set-cookie", cookie.encode("latin-1")))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)

    async def _refuse(self, scope: Scope, send: Send) -> None:
        wants_json = scope["path"].startswith("/api/") or "json" in (
            _header(scope, b"accept") or ""
        )
        text = "Refused: this request came from another site."
        if wants_json:
            body, kind = json.dumps({"detail": text}).encode(), b"application/json"
        else:
            body, kind = text.encode(), b"text/plain; charset=utf-8"
        headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 403, "headers": headers + _COMMON})
        await send({"type": "http.response.body", "body": body})


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

"""Request ids and structured logs: one JSON line per event, warnings and errors unless asked.

Every HTTP request gets an id: the client's (or the proxy's) `X-Request-ID` when it is a sane
token, a fresh one otherwise. It is echoed in the response and attached to every log line
written while the request runs. With RINGSIDE_LOG_LEVEL=info each request also logs one line
with its method, path, status and duration; at the default level (warning) the per-request
cost is a header lookup, an id and a clock read.
"""

import json
import logging
import re
import sys
import time
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.config import Settings
from app.web.security import loggable_path

HEADER = "X-Request-ID"
_HEADER_KEY = b"x-request-id"
# Ids from outside are echoed and logged: accept only short tokens of harmless characters.
_SANE_ID = re.compile(r"[A-Za-z0-9._:@+=/-]{1,128}")

#: The id of the request being served; None outside requests (start-up, shutdown).
request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
request_log = logging.getLogger("ringside.request")

# LogRecord's own attributes; anything else on a record came from `extra=` and is logged
# (except uvicorn's copy of its message with terminal colours).
_STANDARD_FIELDS = frozenset(vars(logging.makeLogRecord({}))) | {
    "message",
    "asctime",
    "color_message",
}


class JsonFormatter(logging.Formatter):
    """A record as one JSON object: time, level, logger, message, request id and extras."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        current = request_id.get()
        if current is not None:
            entry["request_id"] = current
        for key, value in vars(record).items():
            if key not in _STANDARD_FIELDS:
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class StderrHandler(logging.Handler):
    """Writes to whatever sys.stderr is at the time, so a replaced stream is never stale."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            stream = sys.stderr
            stream.write(self.format(record) + "\n")
            stream.flush()
        except Exception:
            self.handleError(record)


def configure_logging(level: str) -> None:
    """JSON lines on stderr for every logger at `level` and above; safe to call again."""
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, StderrHandler)]:
        root.removeHandler(handler)
    handler = StderrHandler()
    handler.setFormatter(JsonFormatter())
    root.addHandler(handler)
    root.setLevel(level.upper())


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """How uvicorn should serve and log: logs through the JSON handler above, no access log.

    The access log costs a third of a small request's throughput (docs/performance.md); the
    request lines above replace it when RINGSIDE_LOG_LEVEL=info. httptools parses HTTP (twice
    h11's speed); the event loop is asyncio's own, not uvloop: the topic page and the queue
    API run in the loop, and under 64 connections uvloop left some of them waiting over a
    second (p99 1.4 s, against asyncio's 0.13-0.18 s at the same requests/s; bench/suite.py).
    """
    return {
        "log_config": None,
        "log_level": settings.log_level,
        "access_log": False,
        "loop": "asyncio",
        "http": "httptools",
    }


class RequestIdMiddleware:
    """Pure ASGI (no per-request task or body buffering): ids, the header, the request line."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        current = None
        for name, value in scope["headers"]:
            if name == _HEADER_KEY:
                text = value.decode("latin-1")
                current = text if _SANE_ID.fullmatch(text) else None
                break
        current = current or uuid.uuid4().hex
        # Not reset on the way out: each request runs in its own task and context, and the
        # outermost error handler, which logs unhandled exceptions, runs after this returns.
        request_id.set(current)
        echoed = (_HEADER_KEY, current.encode("latin-1"))
        status = 500
        start = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), echoed]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            level = logging.WARNING if status >= 500 else logging.INFO
            if request_log.isEnabledFor(level):
                request_log.log(
                    level,
                    "request",
                    extra={
                        "method": scope["method"],
                        "path": loggable_path(scope["path"]),
                        "status": status,
                        "duration_ms": round((time.perf_counter() - start) * 1e3, 3),
                    },
                )


def install(app: FastAPI, settings: Settings) -> None:
    """Configure logging for the process and give every request an id."""
    configure_logging(settings.log_level)
    edge = getattr(app, "edge", None)  # app.web.security.EdgeApp: outside the error handler
    if edge is not None:
        edge.insert(0, RequestIdMiddleware)  # outermost: every line and answer has an id
    else:
        app.add_middleware(RequestIdMiddleware)

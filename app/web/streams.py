"""Server-sent events: a live page's stream of news (app.events), and a server that ends the
streams when it stops.

A stream says only that something changed: `event: change`, its `id` the session's version
(the browser sends it back as Last-Event-ID when it reconnects) and `data` the version and
kind as JSON. The page then fetches the JSON it may see. Before each event, and at every
heartbeat (a comment every HEARTBEAT_S, which also keeps proxies from closing an idle
connection), the stream asks `check` again whether its caller may still watch: when not
(a link revoked or expired, a session deleted, a sign-out) it says `event: gone` and ends.

uvicorn waits for every response to finish before it stops, and a stream never finishes:
`Server` wakes every stream with app.events.CLOSED first, so they end and the browsers
reconnect (to this server once restarted, or to another behind the proxy).
"""

import json
import logging
import math
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime
from typing import Any

import uvicorn
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from app import events
from app.mock import live

log = logging.getLogger("ringside.streams")

HEARTBEAT_S = 15.0
RETRY_MS = 1000  # how soon a browser reconnects after losing the stream
STREAMS_PER_SESSION = 8  # a candidate's tabs and an interviewer's, with room to spare

#: The caller may still watch: the session's state now; None when they may not any more.
Check = Callable[[], Awaitable[live.Watched | None]]


class EventStream(StreamingResponse):
    """A text/event-stream response that lets go of its subscription however it ends."""

    media_type = "text/event-stream"

    def __init__(self, body: AsyncIterator[str], on_close: Callable[[], None]) -> None:
        # no-transform and X-Accel-Buffering: no proxy may hold the events back to compress
        # or buffer them (Caddy, nginx). The security middleware adds no-store.
        headers = {"Cache-Control": "no-transform", "X-Accel-Buffering": "no"}
        super().__init__(body, headers=headers)
        self._on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._on_close()


def last_seen(last_event_id: str | None, since: int | None) -> int | None:
    """The version the page has shown: the browser's Last-Event-ID on a reconnect, else the
    `since` the page was rendered with."""
    if last_event_id and last_event_id.strip().isdigit():
        return int(last_event_id.strip())
    return since


def _event(name: str, data: dict[str, Any], event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {name}\ndata: {json.dumps(data)}\n\n"


def stream(
    hub: events.Hub, watched: live.Watched, seen: int | None, check: Check,
    clock: Callable[[], datetime],
) -> EventStream:  # fmt: skip
    """The stream of `watched`'s news for a caller who has seen version `seen`.

    Raises events.TooManySubscribers (429) past STREAMS_PER_SESSION on the session, and
    events.Stopping (503) while the server stops, before anything is sent."""
    subscription = hub.subscribe(live.topic(watched.mock_id), STREAMS_PER_SESSION)

    async def body() -> AsyncIterator[str]:
        yield f"retry: {RETRY_MS}\n\n"
        sent, kind = seen, "changed"
        state: live.Watched | None = await check()  # subscribed first: nothing falls between
        while True:
            if state is None:
                yield _event("gone", {})
                return
            if state.version != sent:
                yield _event("change", {"version": state.version, "kind": kind}, state.version)
                sent = state.version
            wait = HEARTBEAT_S
            if state.until is not None:  # wake when the link expires, to say so
                left = (state.until - clock()).total_seconds()
                wait = max(0.05, min(wait, math.ceil(left * 10) / 10 + 0.05))
            message = await subscription.next(wait)
            if message == events.CLOSED:
                return
            if message is None:
                yield ": heartbeat\n\n"
            news = live.parse(message) if message else None
            state = await check()
            if state is not None and news is not None and news[0] == state.version:
                kind = news[1]
            else:
                kind = "changed"  # a resync, a heartbeat, or newer news already on its way

    return EventStream(body(), on_close=lambda: hub.unsubscribe(subscription))


class Server(uvicorn.Server):
    """uvicorn's server, which ends the app's event streams before it waits for the
    responses in progress to finish (see the module doc)."""

    def __init__(self, config: uvicorn.Config, hub: events.Hub) -> None:
        super().__init__(config)
        self.hub = hub

    async def shutdown(self, sockets: Any = None) -> None:
        self.hub.close(wait=False)  # in the event loop: the app's lifespan joins the listener
        await super().shutdown(sockets)

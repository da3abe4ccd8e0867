"""Topic pages: the body rendered once per topic; each request fills in only its own values.

A topic page is 150-200 KB of essay and cards, and rendering it through Jinja costs about as
much as forty bare requests (bench/suite.py). So the body is rendered the first time a topic
is asked for, with markers where a request's own values go: the CSRF token of its forms, the
idempotency keys of its grade buttons, its numeric drills. It is kept as UTF-8 bytes (encoding
that much text costs more than the rest of the request). A request renders only the frame
around it and joins the pieces with its own token, fresh keys, and one of DRILL_VARIANTS draws
prepared per drill (a card's own page, /cards/ID, still draws new numbers every time).
Nothing about a user is ever rendered into the shared body: its render sees no request, only
the page's address.
"""

import random
import re
import threading
import uuid
from dataclasses import dataclass
from itertools import count
from types import SimpleNamespace
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, Template
from markupsafe import Markup, escape

from app.content.catalog import CardView, Catalog, Topic
from app.content.render import Renderer
from app.drills.present import DrawView, numeric, present

DRILL_VARIANTS = 8
_CSRF = "\x00csrf\x00"  # markdown-it turns NUL into U+FFFD: content can never contain these
_KEY = "\x00key\x00"
_MARKER = re.compile("\x00(csrf|key|drill:[a-z0-9-]+)\x00")

_BODY = "\x00body\x00"

#: Text, marker name, text, marker name, …, text (what re.split gives with one group), encoded.
Parts = tuple[bytes, ...]


def _parts(html: str) -> Parts:
    return tuple(part.encode() for part in _MARKER.split(html))


@dataclass(frozen=True)
class TopicPage:
    body: Parts
    drills: dict[str, tuple[Parts, ...]]  # drill card id -> its prepared variants
    toc: Markup

    def fill(self, csrf_token: str) -> bytes:
        """The body for one request: its token, fresh grade keys, a variant of each drill."""
        key, token = uuid.uuid4().hex.encode(), str(escape(csrf_token)).encode()
        out: list[bytes] = []

        def emit(parts: Parts) -> None:
            for index, part in enumerate(parts):
                if index % 2 == 0:
                    out.append(part)
                elif part == b"csrf":
                    out.append(token)
                elif part == b"key":
                    out.append(key)
                else:
                    emit(random.choice(self.drills[part.decode().removeprefix("drill:")]))

        emit(self.body)
        return b"".join(out)

    def respond(self, frame: Template, context: dict[str, Any], csrf_token: str) -> HTMLResponse:
        """`frame` rendered with `context`, the filled body in place of its `body` variable."""
        head, tail = frame.render({**context, "body": Markup(_BODY), "toc": self.toc}).split(_BODY)
        return HTMLResponse(head.encode() + self.fill(csrf_token) + tail.encode())


class TopicPages:
    """Every topic's page, rendered the first time it is asked for; one per app."""

    def __init__(self, env: Environment, renderer: Renderer) -> None:
        self.env, self.renderer = env, renderer
        self._pages: dict[str, TopicPage] = {}
        self._lock = threading.Lock()

    def rendered(self, topic: Topic) -> TopicPage | None:
        """The topic's page if it has been rendered already (cheap: for the event loop)."""
        return self._pages.get(topic.slug)

    def page(self, topic: Topic, catalog: Catalog) -> TopicPage:
        """The topic's page, rendered now if this is the first request for it."""
        page = self._pages.get(topic.slug)
        if page is None:
            with self._lock:  # the first requests for a topic wait for one render
                page = self._pages.get(topic.slug) or self._render(topic, catalog)
                self._pages[topic.slug] = page
        return page

    def _render(self, topic: Topic, catalog: Catalog) -> TopicPage:
        keys = count()
        markers: dict[str, Any] = {
            "request": SimpleNamespace(url=SimpleNamespace(path=f"/topics/{topic.slug}")),
            "csrf_token": _CSRF,
            # Numbered, so each card's buttons share one key and no two cards do.
            "new_key": lambda: f"{_KEY}-{next(keys)}",
        }
        drawn: list[CardView] = []
        fixed: dict[str, DrawView] = {}  # numeric cards without a drill: the same every time
        for card in topic.cards:
            model = numeric(card)
            if model is not None and model.drill is not None:
                drawn.append(card)
            elif model is not None:
                fixed[card.id] = present(self.renderer, card)
        variants = {
            card.id: tuple(self._drill(card, markers) for _ in range(DRILL_VARIANTS))
            for card in drawn
        }
        before, after = catalog.neighbours(topic.slug)
        body = self.env.get_template("topics/_body.html").render(
            markers,
            topic=topic,
            cards={card.id: card for card in topic.cards},
            drills=fixed,
            drill_slots={card.id: Markup(f"\x00drill:{card.id}\x00") for card in drawn},
            before=before,
            after=after,
            related=[t for slug in topic.meta.related if (t := catalog.topic(slug))],
        )
        toc = Markup(self.env.get_template("topics/_toc.html").render(topic=topic))
        return TopicPage(_parts(body), variants, toc)

    def _drill(self, card: CardView, markers: dict[str, Any]) -> Parts:
        view = present(self.renderer, card)  # a fresh seed each time
        html = self.env.get_template("cards/_card.html").render(
            markers, card=card, inline=True, drills={card.id: view}
        )
        return _parts(html)


async def get_topic_pages(request: Request) -> TopicPages:
    pages: TopicPages = request.app.state.topic_pages
    return pages


TopicPagesDep = Annotated[TopicPages, Depends(get_topic_pages)]

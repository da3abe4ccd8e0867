"""A Ringside server for load benchmarks, with a bare `GET /bench/hello` as the baseline.

    python bench/server.py PORT DATABASE_URL [CONTENT_DIR]

Production settings, as `ringside serve` runs: one uvicorn worker in this process, the asyncio
loop and httptools, no access log, logs at warning, the start-up heap frozen. Two baselines,
each added after the app's routes and crossing the same middleware:

- `GET /bench/hello`, a plain `def` route returning a small JSON object: it crosses the
  thread pool as most of the app's routes do, and the targets are ratios to it;
- `GET /bench/hello-async`, the same as `async def`: no thread-pool hop, the cheapest route
  the stack serves. The topic page and the queue API are `async` too (app.db's `read`), so
  the suite prints their ratio to this one as well.

And the plain twins of the two fast paths, so that what each buys is measured in the same run:

- `GET /bench/plain/queue`: the queue API's answer built the ordinary way, a `def` route with
  the request's read session (SessionDep), where `/api/review/queue` reads on the event loop;
- `GET /bench/plain/topics/{slug}`: the topic page with its body rendered for each request
  and its mastery read through SessionDep, where `/topics/{slug}` fills a body rendered once.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import uvicorn  # noqa: E402
from fastapi import HTTPException, Request  # noqa: E402
from fastapi.responses import HTMLResponse  # noqa: E402

from app.config import Settings  # noqa: E402
from app.main import create_app, freeze_startup_heap  # noqa: E402
from app.srs import stats  # noqa: E402
from app.web.deps import CatalogDep, NowDep, SessionDep, TemplatesDep, UserDep  # noqa: E402
from app.web.observability import uvicorn_options  # noqa: E402
from app.web.review import queue_out  # noqa: E402
from app.web.review.schemas import QueueOut  # noqa: E402
from app.web.templating import request_context  # noqa: E402
from app.web.topics.pages import TopicPages  # noqa: E402


def main() -> None:
    port, url = int(sys.argv[1]), sys.argv[2]
    settings = Settings(database_url=url, host="127.0.0.1", port=port)
    if len(sys.argv) > 3:
        settings = settings.model_copy(update={"content_dir": Path(sys.argv[3])})
    app = create_app(settings, load_processes=os.cpu_count() or 1)  # as `ringside serve`

    @app.get("/bench/hello")
    def hello() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/bench/hello-async")
    async def hello_async() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/bench/plain/queue")
    def plain_queue(
        request: Request, session: SessionDep, catalog: CatalogDep, user_id: UserDep, now: NowDep
    ) -> QueueOut:
        cache = request.app.state.plan_cache
        return queue_out(session.connection(), catalog, user_id, now, None, 50, cache)

    @app.get("/bench/plain/topics/{slug}", response_class=HTMLResponse)
    def plain_topic(
        request: Request, slug: str, session: SessionDep, catalog: CatalogDep,
        templates: TemplatesDep, user_id: UserDep, now: NowDep,
    ) -> HTMLResponse:  # fmt: skip
        topic = catalog.topic(slug)
        if topic is None:
            raise HTTPException(404)
        mastery = stats.topic_mastery(session, user_id, topic, now)
        fresh = TopicPages(templates.env, request.app.state.renderer)  # nothing kept
        page = fresh.page(topic, catalog)
        context = {"request": request, "topic": topic, "mastery": mastery}
        context |= request_context(request)
        return page.respond(
            templates.get_template("topics/show.html"), context, context["csrf_token"]
        )

    freeze_startup_heap()
    uvicorn.run(app, host=settings.host, port=settings.port, **uvicorn_options(settings))


if __name__ == "__main__":
    main()

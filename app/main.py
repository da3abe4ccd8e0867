"""create_app(settings): the one place that wires content, database and routers together."""

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from functools import partial

import anyio
from fastapi import Depends, FastAPI
from fastapi.staticfiles import StaticFiles

from app import PROJECT_ROOT, __version__, migrate
from app.auth.accounts import Policy, housekeeping
from app.auth.users import ensure_local_user
from app.clock import Clock, utc_now
from app.config import Settings
from app.content.errata import load_errata
from app.content.glossary import load_glossary
from app.content.loader import load_catalog
from app.content.render import Renderer
from app.content.search import SearchIndex
from app.datasafety import startup
from app.db import Database
from app.drills import check as drill_check
from app.events import Hub
from app.grading import Field
from app.labs import catalog as lab_catalog
from app.mock import transcribe, transcripts
from app.plan.service import PlanCache
from app.srs import refit
from app.web import (
    api_docs,
    auth,
    check,
    drills,
    errors,
    health,
    labs,
    mock,
    observability,
    optimize,
    pair,
    plan,
    review,
    search,
    stats,
    topics,
)
from app.web import errata as errata_pages
from app.web import glossary as glossary_pages
from app.web import settings as settings_pages
from app.web.identity import forms_are_for_browsers, resolve_for_members
from app.web.review import offline
from app.web.security import EdgeApp, LocalOnlyMiddleware, SecurityMiddleware
from app.web.settings import account as settings_account
from app.web.settings import data as settings_data
from app.web.templating import build_templates
from app.web.topics.pages import TopicPages

API_DESCRIPTION = """
Everything the pages show is also available as JSON: topics, cards and search.
Errors are JSON objects with a `detail` field.
A grade given offline is sent later with `reviewed_at` (UTC) and scheduled from that time;
grades apply in time order, so one older than the card's latest review is refused with 409.
"""


class ConfigError(ValueError):
    """Settings that cannot run safely; the message says which and how to fix it."""


# Django's check of its SECRET_KEY (security.W009, django/core/checks/security/base.py):
# SECRET_KEY_MIN_LENGTH = 50 and SECRET_KEY_MIN_UNIQUE_CHARACTERS = 5.
MIN_KEY_LENGTH, MIN_KEY_CHARACTERS = 50, 5


def policy_of(settings: Settings) -> Policy:
    """Account rules from settings; accounts mode needs a long, varied secret key."""
    key = settings.secret_key.get_secret_value() if settings.secret_key else ""
    weak = len(key) < MIN_KEY_LENGTH or len(set(key)) < MIN_KEY_CHARACTERS
    if settings.auth_mode == "accounts" and weak:
        raise ConfigError(
            f"accounts mode needs RINGSIDE_SECRET_KEY: at least {MIN_KEY_LENGTH} random "
            f"characters, {MIN_KEY_CHARACTERS} or more of them different, e.g. from "
            "python -c 'import secrets; print(secrets.token_urlsafe(48))'"
        )
    return Policy(
        registration=settings.registration,
        idle=timedelta(minutes=settings.session_idle_minutes),
        absolute=timedelta(hours=settings.session_absolute_hours),
        key=(key or "ringside-local-mode").encode(),
    )


def _housekeeping(database: Database, policy: Policy, now: datetime) -> dict[str, int]:
    """The hourly clean-up as a job of its own: one write transaction."""
    with database.write_session() as session:
        return housekeeping(session, now, policy)


def create_app(
    settings: Settings | None = None, clock: Clock = utc_now, *, load_processes: int = 1
) -> FastAPI:
    """Build the app: load and render the content, migrate the database, mount the routers.

    `load_processes`: how many processes render a large content set (app.content.loader);
    `ringside serve` passes the number of cores.

    Raises ContentError when a content file is broken, and UnusableDatabaseError when the
    SQLite file fails quick_check or cannot be written, before anything listens.
    """
    settings = settings or Settings()
    auth_policy = policy_of(settings)
    renderer = Renderer()
    catalog = load_catalog(
        settings.content_dir,
        renderer,
        load_processes,
        check=drill_check.at_startup(),
        cache_dir=settings.content_cache_dir,
    )
    lab_titles = lab_catalog.titles()
    glossary = load_glossary(settings.content_dir, catalog, lab_titles, renderer)
    errata = load_errata(settings.content_dir, renderer)
    startup.prepare(settings, clock())  # refuses a damaged SQLite file; daily backup
    database = Database(settings.database_url)
    migrate.upgrade(database.engine)
    with database.write_session() as session:
        local_user_id = ensure_local_user(session).id
    hub = Hub(database)  # news of changes, for the live pages' streams (app.web.streams)
    transcribing = transcribe.Config.of(settings)
    # Recorded takes transcribed in the background (app.mock.transcripts); None: off.
    transcriber = (
        transcripts.Worker(database, transcribing, clock) if transcribing is not None else None
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        hub.start()
        if transcriber is not None:
            transcriber.wake()  # takes queued before a restart, or left halfway, are picked up
        async with anyio.create_task_group() as background:
            tidy = partial(_housekeeping, database, auth_policy)
            background.start_soon(partial(startup.keep_backing_up, settings, clock, tidy=tidy))
            background.start_soon(refit.keep_refitting, database, clock)
            yield
            background.cancel_scope.cancel()
        await anyio.to_thread.run_sync(hub.close)  # joins the listener: not in the loop
        database.dispose()

    docs = settings.api_docs if settings.api_docs is not None else settings.auth_mode == "local"
    app = EdgeApp(
        title="Ringside",
        version=__version__,
        description=API_DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # app.web.api_docs serves /docs from the app's own files
        redoc_url=None,
        openapi_url=None,  # served by app.web.api_docs, behind sign-in in accounts mode
        max_body_size=settings.max_body_bytes,
        # A token is for the JSON API: no form route takes one (app.web.identity).
        dependencies=[Depends(forms_are_for_browsers)],
    )
    app.state.auth_policy = auth_policy
    app.state.settings = settings
    app.state.catalog = catalog
    Field.of(catalog)  # the grader's word counts of this catalog: counted here, not on a check
    app.state.glossary = glossary
    app.state.errata = errata
    app.state.search_index = SearchIndex(catalog, glossary)
    app.state.database = database
    app.state.events = hub
    app.state.transcriber = transcriber
    app.state.local_user_id = local_user_id
    app.state.renderer = renderer
    app.state.clock = clock
    app.state.templates = build_templates(catalog)
    app.state.templates.env.globals["api_docs"] = docs  # the footer links to /docs only then
    app.state.topic_pages = TopicPages(app.state.templates.env, renderer)
    app.state.plan_cache = PlanCache()

    app.mount("/static", StaticFiles(directory=PROJECT_ROOT / "static"), name="static")
    app.include_router(health.router)
    app.include_router(offline.public_router)
    if docs:
        app.include_router(api_docs.router, dependencies=[Depends(resolve_for_members)])
    app.include_router(auth.router, responses=errors.ERROR_RESPONSES)
    # Not for members: an interview link's token is its credential, and opens only its view.
    app.include_router(pair.router, responses=errors.ERROR_RESPONSES)
    # In accounts mode every feature, content included, is for signed-in members.
    members = [Depends(resolve_for_members)]
    # Before review's routes: /api/review/sync is not a card id.
    app.include_router(offline.router, dependencies=members, responses=errors.ERROR_RESPONSES)
    features = (topics, check, drills, review, plan, optimize, stats, settings_pages, mock)
    for module in (*features, settings_account, search, labs, settings_data):
        app.include_router(module.router, dependencies=members, responses=errors.ERROR_RESPONSES)
    for pages in (glossary_pages, errata_pages):
        app.include_router(pages.router, dependencies=members, responses=errors.ERROR_RESPONSES)
    errors.install(app)
    # Outermost first, all outside Starlette's error handler (app.web.security.EdgeApp): the
    # local-mode guard before anything else runs, then the headers every response gets.
    if settings.auth_mode == "local":
        app.edge.append(LocalOnlyMiddleware)
    app.edge.append(SecurityMiddleware)
    observability.install(app, settings)
    return app


def freeze_startup_heap() -> None:
    """Exempt what start-up built from the garbage collector; for a server about to serve.

    The content, its rendered pages and the templates live as long as the process, and every
    full collection walked them all: about 120 ms a pause under load, 20 ms once frozen
    (measured with bench/suite.py's load). Not in create_app: tests build many apps in one
    process, and frozen objects are never collected. No collection first: by then start-up
    has left no cyclic garbage (gc.collect() found none), and it would cost 0.1 s.
    """
    gc.freeze()

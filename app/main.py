"""create_app(settings): the one place that wires content, database and routers together."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from app import PROJECT_ROOT, __version__, migrate
from app.auth.users import ensure_local_user
from app.clock import Clock, utc_now
from app.config import Settings
from app.content.glossary import load_glossary
from app.content.loader import load_catalog
from app.content.render import Renderer
from app.content.search import SearchIndex
from app.db import Database
from app.web import drills, errors, health, labs, mock, review, search, stats, topics
from app.web import glossary as glossary_pages
from app.web import settings as settings_pages
from app.web.lab_specs import LABS
from app.web.templating import build_templates

API_DESCRIPTION = """
Everything the pages show is also available as JSON: topics, cards and search.
Errors are JSON objects with a `detail` field.
"""


def create_app(settings: Settings | None = None, clock: Clock = utc_now) -> FastAPI:
    """Build the app: load and render the content, migrate the database, mount the routers.

    Raises ContentError when a content file is broken, before anything listens.
    """
    settings = settings or Settings()
    renderer = Renderer()
    catalog = load_catalog(settings.content_dir, renderer)
    lab_titles = {name: spec.title for name, spec in LABS.items()}
    glossary = load_glossary(settings.content_dir, catalog, lab_titles, renderer)
    database = Database(settings.database_url)
    migrate.upgrade(database.engine)
    with database.write_session() as session:
        local_user_id = ensure_local_user(session).id

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        database.dispose()

    app = FastAPI(
        title="Ringside",
        version=__version__,
        description=API_DESCRIPTION,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.catalog = catalog
    app.state.glossary = glossary
    app.state.search_index = SearchIndex(catalog)
    app.state.database = database
    app.state.local_user_id = local_user_id
    app.state.renderer = renderer
    app.state.clock = clock
    app.state.templates = build_templates(catalog)

    app.mount("/static", StaticFiles(directory=PROJECT_ROOT / "static"), name="static")
    for module in (health, topics, drills, review, stats, settings_pages, mock, search, labs):
        app.include_router(module.router)
    app.include_router(glossary_pages.router)
    errors.install(app)
    return app

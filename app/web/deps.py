"""Dependencies: the catalog, the request's unit of work, and lookups that 404 when absent.

A route takes either a read session (`SessionDep`) or a write session (`WriteSessionDep`): one
unit of work per request. Feature functions take that session and never begin, commit or roll
back; the write is committed when the route returns, rolled back when it raises.

Those that only read app state are `async def`: FastAPI runs a plain `def` dependency in the
thread pool, a hop that costs more than a small request's own work (bench/suite.py).
"""

from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from typing import Annotated

import anyio
from fastapi import Depends, HTTPException, Request
from fastapi.templating import Jinja2Templates
from sqlalchemy.orm import Session

from app.clock import Clock
from app.content.catalog import CardView, Catalog, Topic
from app.content.render import Renderer
from app.content.search import SearchIndex
from app.db import POOL_SIZE, Database
from app.grading import Field
from app.quotas import Quotas
from app.web.identity import get_user_id


async def get_catalog(request: Request) -> Catalog:
    catalog: Catalog = request.app.state.catalog
    return catalog


async def get_grading_field(request: Request) -> Field:
    """The catalog's word counts the grader weighs words by (counted once, at start-up)."""
    return Field.of(await get_catalog(request))


async def get_search_index(request: Request) -> SearchIndex:
    index: SearchIndex = request.app.state.search_index
    return index


async def get_templates(request: Request) -> Jinja2Templates:
    templates: Jinja2Templates = request.app.state.templates
    return templates


async def get_database(request: Request) -> Database:
    database: Database = request.app.state.database
    return database


async def get_session(request: Request) -> AsyncIterator[Session]:
    """A read session for the request: a plain transaction that never takes the write lock."""
    # Opening a session does no I/O. Closing it ends its transaction: on a server database a
    # round trip, so in a thread, but outside the pool's limit, as FastAPI does for `def`
    # dependencies (it returns a connection that threads of the pool may be waiting for).
    database = await get_database(request)
    session = database.read_session()
    try:
        yield session
    finally:
        if database.engine.dialect.name == "sqlite":
            session.close()  # ends a read transaction on a local file: never waits
        else:
            await anyio.to_thread.run_sync(session.close, limiter=anyio.CapacityLimiter(1))


async def get_renderer(request: Request) -> Renderer:
    renderer: Renderer = request.app.state.renderer
    return renderer


async def get_now(request: Request) -> datetime:
    """Now, from the app's clock (tests pass a fixed one)."""
    clock: Clock = request.app.state.clock
    return clock()


async def get_quotas(request: Request) -> Quotas:
    """The per-member caps, from Settings (app.quotas)."""
    return Quotas.of(request.app.state.settings)


async def get_fuzz(request: Request) -> bool:
    """Whether review intervals get FSRS fuzz (Settings.srs_fuzz; tests turn it off)."""
    return bool(request.app.state.settings.srs_fuzz)


CatalogDep = Annotated[Catalog, Depends(get_catalog)]
GradingFieldDep = Annotated[Field, Depends(get_grading_field)]
SearchDep = Annotated[SearchIndex, Depends(get_search_index)]
TemplatesDep = Annotated[Jinja2Templates, Depends(get_templates)]
# A request keeps its session's connection until its response is built, and FastAPI validates
# a `def` endpoint's response in a worker thread: such a request waits for a thread while
# holding a connection. With more of them than the pool has connections, every worker thread
# can end up waiting for a connection (a deadlock until pool_timeout, seen under 64 concurrent
# requests). So fewer requests hold a session at once than the pool has connections; the
# others wait in the event loop, holding neither. scope="function": closed before sending.
SessionDep = Annotated[Session, Depends(get_session, scope="function", max_concurrency=POOL_SIZE)]
DatabaseDep = Annotated[Database, Depends(get_database)]
RendererDep = Annotated[Renderer, Depends(get_renderer)]
UserDep = Annotated[int, Depends(get_user_id)]  # checks CSRF on writes
NowDep = Annotated[datetime, Depends(get_now)]
FuzzDep = Annotated[bool, Depends(get_fuzz)]
QuotasDep = Annotated[Quotas, Depends(get_quotas)]


def get_write_session(database: DatabaseDep, _caller: UserDep) -> Iterator[Session]:
    """The request's one write transaction (app.db.Database.write_session): committed when the
    route returns, rolled back when it raises, before the response is sent (scope="function").

    It depends on the caller so that identity, which may itself write (the local profile, a
    session's last use), is settled first: SQLite's write lock is not re-entrant."""
    yield from get_link_write_session(database)


WriteSessionDep = Annotated[
    Session, Depends(get_write_session, scope="function", max_concurrency=POOL_SIZE)
]


def get_link_write_session(database: DatabaseDep) -> Iterator[Session]:
    """The write transaction of a route whose credential is a link in its path, not a member
    (app.web.pair): no identity is resolved for it, so nothing else of the request writes."""
    with database.write_session() as session:
        yield session


LinkWriteSessionDep = Annotated[
    Session, Depends(get_link_write_session, scope="function", max_concurrency=POOL_SIZE)
]


async def get_topic(slug: str, catalog: CatalogDep) -> Topic:
    topic = catalog.topic(slug)
    if topic is None:
        raise HTTPException(status_code=404, detail=f"No topic with slug '{slug}'.")
    return topic


async def get_card(card_id: str, catalog: CatalogDep) -> CardView:
    card = catalog.card(card_id)
    if card is None:
        raise HTTPException(status_code=404, detail=f"No card with id '{card_id}'.")
    return card


TopicDep = Annotated[Topic, Depends(get_topic)]
CardDep = Annotated[CardView, Depends(get_card)]

"""Dependencies: the catalog, the database session, and lookups that 404 when absent."""

from collections.abc import Iterator
from datetime import datetime
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.templating import Jinja2Templates
from sqlalchemy.orm import Session

from app.clock import Clock
from app.content.catalog import CardView, Catalog, Topic
from app.content.render import Renderer
from app.content.search import SearchIndex
from app.db import Database
from app.web.identity import get_user_id


def get_catalog(request: Request) -> Catalog:
    catalog: Catalog = request.app.state.catalog
    return catalog


def get_search_index(request: Request) -> SearchIndex:
    index: SearchIndex = request.app.state.search_index
    return index


def get_templates(request: Request) -> Jinja2Templates:
    templates: Jinja2Templates = request.app.state.templates
    return templates


def get_database(request: Request) -> Database:
    database: Database = request.app.state.database
    return database


def get_session(request: Request) -> Iterator[Session]:
    """A read session for the request; writes open `database.write_session()` themselves."""
    with get_database(request).read_session() as session:
        yield session


def get_renderer(request: Request) -> Renderer:
    renderer: Renderer = request.app.state.renderer
    return renderer


def get_now(request: Request) -> datetime:
    """Now, from the app's clock (tests pass a fixed one)."""
    clock: Clock = request.app.state.clock
    return clock()


def get_fuzz(request: Request) -> bool:
    """Whether review intervals get FSRS fuzz (Settings.srs_fuzz; tests turn it off)."""
    return bool(request.app.state.settings.srs_fuzz)


CatalogDep = Annotated[Catalog, Depends(get_catalog)]
SearchDep = Annotated[SearchIndex, Depends(get_search_index)]
TemplatesDep = Annotated[Jinja2Templates, Depends(get_templates)]
SessionDep = Annotated[Session, Depends(get_session)]
DatabaseDep = Annotated[Database, Depends(get_database)]
RendererDep = Annotated[Renderer, Depends(get_renderer)]
UserDep = Annotated[int, Depends(get_user_id)]  # checks CSRF on writes
NowDep = Annotated[datetime, Depends(get_now)]
FuzzDep = Annotated[bool, Depends(get_fuzz)]


def get_topic(slug: str, catalog: CatalogDep) -> Topic:
    topic = catalog.topic(slug)
    if topic is None:
        raise HTTPException(status_code=404, detail=f"No topic with slug '{slug}'.")
    return topic


def get_card(card_id: str, catalog: CatalogDep) -> CardView:
    card = catalog.card(card_id)
    if card is None:
        raise HTTPException(status_code=404, detail=f"No card with id '{card_id}'.")
    return card


TopicDep = Annotated[Topic, Depends(get_topic)]
CardDep = Annotated[CardView, Depends(get_card)]

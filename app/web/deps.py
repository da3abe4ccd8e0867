"""Dependencies: the catalog, the database session, and lookups that 404 when absent."""

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.templating import Jinja2Templates
from sqlalchemy.orm import Session

from app.content.catalog import CardView, Catalog, Topic
from app.content.search import SearchIndex
from app.db import Database


def get_catalog(request: Request) -> Catalog:
    catalog: Catalog = request.app.state.catalog
    return catalog


def get_search_index(request: Request) -> SearchIndex:
    index: SearchIndex = request.app.state.search_index
    return index


def get_templates(request: Request) -> Jinja2Templates:
    templates: Jinja2Templates = request.app.state.templates
    return templates


def get_session(request: Request) -> Iterator[Session]:
    database: Database = request.app.state.database
    with database.read_session() as session:
        yield session


CatalogDep = Annotated[Catalog, Depends(get_catalog)]
SearchDep = Annotated[SearchIndex, Depends(get_search_index)]
TemplatesDep = Annotated[Jinja2Templates, Depends(get_templates)]
SessionDep = Annotated[Session, Depends(get_session)]


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

"""Topic and card pages, and their JSON."""

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from starlette.concurrency import run_in_threadpool

from app.drills.engine import MAX_SEED
from app.drills.present import numeric, present
from app.mock import sessions as mock_sessions
from app.plan import first_week
from app.plan import service as plan_service
from app.srs import settings as srs_settings
from app.srs import stats
from app.web.deps import (
    CardDep,
    CatalogDep,
    DatabaseDep,
    NowDep,
    RendererDep,
    SessionDep,
    TemplatesDep,
    TopicDep,
    UserDep,
)
from app.web.identity import remember_in_browser
from app.web.plan.panel import plan_context
from app.web.templating import request_context
from app.web.topics.pages import TopicPagesDep
from app.web.topics.schemas import CardOut, TopicOut, TopicSummaryOut

router = APIRouter()
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"description": "No such topic or card", "content": {"application/json": {}}}
}


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def home(
    request: Request,
    catalog: CatalogDep,
    templates: TemplatesDep,
    session: SessionDep,
    user_id: UserDep,
    now: NowDep,
) -> HTMLResponse:
    total_cards = sum(len(t.cards) for t in catalog.topics)
    settings = srs_settings.load(session, user_id)
    cache = request.app.state.plan_cache
    # One queue for the counts on the page and the plan's first row: they cannot disagree.
    work = plan_service.todays_work(session, user_id, catalog, now, cache, settings, limit=0)
    plan = plan_context(request, session, catalog, user_id, now, settings, work)
    path = first_week.first_week(session, user_id, catalog, now, settings)
    context = {
        **plan,
        "topics": catalog.topics,
        "total_cards": total_cards,
        "mastery": stats.mastery(session, user_id, catalog, now),
        "unfinished_mock": mock_sessions.unfinished(session, user_id),
        "has_plan": work.planned,
        "more_error": request.query_params.get("more_error") == "1",
        "today": work.queue,
        "first_week": None if first_week_hidden(request, user_id) else path,
    }
    return templates.TemplateResponse(request, "home.html", context)


FIRST_WEEK_COOKIE = "ringside_first_week_hidden"  # the users (ids) who hid it in this browser


def first_week_hidden(request: Request, user_id: int) -> bool:
    return str(user_id) in request.cookies.get(FIRST_WEEK_COOKIE, "").split(".")


@router.post("/first-week/hide", include_in_schema=False)
def hide_first_week(request: Request, user_id: UserDep) -> RedirectResponse:
    """ "Hide this" on the home page's first steps: kept in this browser for a year."""
    hidden = [i for i in request.cookies.get(FIRST_WEEK_COOKIE, "").split(".") if i.isdigit()]
    if str(user_id) not in hidden:
        hidden = [*hidden[-19:], str(user_id)]  # a shared browser's few accounts, no more
    remember_in_browser(request, FIRST_WEEK_COOKIE, ".".join(hidden), days=365)
    return RedirectResponse("/", status_code=303)


@router.get("/topics", include_in_schema=False)
def topics_index() -> RedirectResponse:
    return RedirectResponse("/", status_code=308)


@router.get("/topics/{slug}", response_class=HTMLResponse, include_in_schema=False)
async def topic_page(
    request: Request,
    topic: TopicDep,
    catalog: CatalogDep,
    templates: TemplatesDep,
    pages: TopicPagesDep,
    database: DatabaseDep,
    user_id: UserDep,
    now: NowDep,
) -> HTMLResponse:
    """The essay and cards come pre-rendered (app.web.topics.pages); only the frame is new.

    The most visited page, and its own work is small: one short read and the frame. So it
    is `async`: on SQLite it needs no thread-pool hop at all (Database.read).
    """
    mastery = await database.read(lambda db: stats.topic_mastery(db, user_id, topic, now))
    # The first request for a topic renders its body: tens of milliseconds, so in a thread.
    page = pages.rendered(topic)
    if page is None:
        page = await run_in_threadpool(pages.page, topic, catalog)
    # Rendered outside TemplateResponse, so the request's own values are added here.
    context = {"request": request, "topic": topic, "mastery": mastery, **request_context(request)}
    frame = templates.get_template("topics/show.html")
    return page.respond(frame, context, context["csrf_token"])


@router.get("/cards/{card_id}", response_class=HTMLResponse, include_in_schema=False)
def card_page(
    request: Request,
    card: CardDep,
    catalog: CatalogDep,
    templates: TemplatesDep,
    renderer: RendererDep,
    seed: Annotated[int | None, Query(ge=0, le=MAX_SEED)] = None,
) -> HTMLResponse:
    """One card; a numeric drill shows fresh numbers, or the draw `seed` names."""
    topic = catalog.topic(card.topic_slug)
    drill = {card.id: present(renderer, card, seed)} if numeric(card) else {}
    context = {"card": card, "topic": topic, "drills": drill}
    return templates.TemplateResponse(request, "cards/show.html", context)


@router.get("/api/topics", tags=["content"])
def list_topics(catalog: CatalogDep) -> list[TopicSummaryOut]:
    """Every topic in reading order, with its card count."""
    return [TopicSummaryOut.of(t) for t in catalog.topics]


@router.get("/api/topics/{slug}", tags=["content"], responses=NOT_FOUND)
def get_topic(topic: TopicDep) -> TopicOut:
    """One topic with its references and all its cards (markdown source)."""
    return TopicOut.of(topic)


@router.get("/api/cards/{card_id}", tags=["content"], responses=NOT_FOUND)
def get_card(card: CardDep) -> CardOut:
    """One card by its stable id."""
    return CardOut.of(card)

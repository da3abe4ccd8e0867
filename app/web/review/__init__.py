"""Review over HTTP: the queue page, grading (keyboard, forms, JSON), undo."""

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from app.content.catalog import Catalog
from app.content.render import Renderer
from app.drills.present import present_all
from app.plan import service as plan_service
from app.plan.service import PlanCache
from app.srs import buttons, extra, review, submit
from app.srs import settings as srs_settings
from app.srs.days import as_utc, study_day
from app.srs.scheduling import HIGHEST_RATING, LOWEST_RATING
from app.web.deps import (
    CardDep,
    CatalogDep,
    DatabaseDep,
    FuzzDep,
    NowDep,
    RendererDep,
    SessionDep,
    TemplatesDep,
    UserDep,
    WriteSessionDep,
)
from app.web.review.schemas import (
    ExtraIn,
    ExtraOut,
    GradeIn,
    GradeOut,
    QueueCardOut,
    QueueOut,
    UndoOut,
)
from app.web.security import safe_next
from app.web.text import CLEAN

router = APIRouter()
TopicsQuery = Annotated[list[str], Query(description="Only cards from these topic slugs.")]
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "No such card"}}
GRADE_RESPONSES: dict[int | str, dict[str, Any]] = {
    **NOT_FOUND,
    409: {"description": "The card was reviewed after `reviewed_at`: the grade is not applied"},
}


def check_topics(catalog: Catalog, topics: list[str]) -> set[str] | None:
    unknown = [slug for slug in topics if catalog.topic(slug) is None]
    if unknown:
        detail = [
            {"loc": ["query", "topic"], "msg": f"no topic '{unknown[0]}'", "type": "value_error"}
        ]
        raise HTTPException(status_code=422, detail=detail)
    return set(topics) or None


@router.get("/api/review/queue", tags=["review"])
async def queue_api(
    request: Request,
    catalog: CatalogDep,
    database: DatabaseDep,
    user_id: UserDep,
    now: NowDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
    topic: TopicsQuery = [],  # noqa: B006 - FastAPI copies defaults per request
) -> QueueOut:
    """Today's queue: due learning cards, due reviews (lowest recall first), then new cards."""
    topics = check_topics(catalog, topic)
    # Asked for before every review: `async`, so on SQLite no thread-pool hop (Database.read)
    # and the answer is checked in the event loop (a `def` route hops again for that).
    cache = request.app.state.plan_cache
    return await database.read(
        lambda connection: queue_out(connection, catalog, user_id, now, topics, limit, cache)
    )


def queue_out(
    connection: Connection,
    catalog: Catalog,
    user_id: int,
    now: datetime,
    topics: set[str] | None,
    limit: int,
    cache: PlanCache,
) -> QueueOut:
    work = plan_service.todays_work(
        connection, user_id, catalog, now, cache, topics=topics, limit=limit
    )
    built = work.queue
    cards = []
    for item in built.items:
        view = catalog.card(item.card_id)
        assert view is not None
        cards.append(
            QueueCardOut(
                card_id=item.card_id,
                topic=item.topic,
                kind=item.kind,
                prompt_html=view.question_html,
                due=item.due.isoformat() if item.due else None,
            )
        )
    return QueueOut(cards=cards, due_count=built.due_count, new_count=built.new_count)


@router.post("/api/review/undo", tags=["review"], responses={404: {"description": "Nothing"}})
def undo_api(session: WriteSessionDep, user_id: UserDep) -> UndoOut:
    """Take back your latest grade: the card's state and the log are restored."""
    undone = review.undo(session, user_id)
    if undone is None:
        raise HTTPException(status_code=404, detail="Nothing to undo.")
    return UndoOut(card_id=undone.card_id, rating=undone.rating)


def learn_more(
    request: Request,
    session: Session,
    catalog: Catalog,
    user_id: int,
    now: datetime,
    count: int,
) -> ExtraOut:
    """Add `count` unseen cards to today's queue; the day's extra total and the new count."""
    settings = srs_settings.load(session, user_id)
    day = study_day(now, settings.timezone, settings.day_boundary_hour)
    total = extra.add(session, user_id, day, count)
    cache = request.app.state.plan_cache
    work = plan_service.todays_work(session, user_id, catalog, now, cache, settings, limit=0)
    return ExtraOut(extra_today=total, new_count=work.queue.new_count)


@router.post("/api/review/extra", tags=["review"])
def extra_api(
    request: Request,
    body: ExtraIn,
    session: WriteSessionDep,
    catalog: CatalogDep,
    user_id: UserDep,
    now: NowDep,
) -> ExtraOut:
    """Learn more today: add `new_cards` unseen cards (1 to 50) to today's queue, with or
    without a plan, on top of the daily limit or the plan's share. Requests add up for the
    day; the answer gives the day's extra total and the new cards now in the queue."""
    return learn_more(request, session, catalog, user_id, now, body.new_cards)


@router.post("/review-extra", include_in_schema=False)
def extra_form(
    request: Request,
    session: WriteSessionDep,
    catalog: CatalogDep,
    user_id: UserDep,
    now: NowDep,
    new_cards: Annotated[str, Form(max_length=10)] = "",
    next: Annotated[str, Form(), CLEAN] = "/review",
) -> RedirectResponse:
    """The "Learn more today" form on the home and review pages."""
    target = safe_next(next, "/review").split("#")[0]
    try:
        count = int(new_cards.strip())
    except ValueError:
        count = 0
    low, high = extra.PER_REQUEST
    if not low <= count <= high:
        joiner = "&" if "?" in target else "?"
        return RedirectResponse(f"{target}{joiner}more_error=1#learn-more", status_code=303)
    learn_more(request, session, catalog, user_id, now, count)
    return RedirectResponse(target, status_code=303)


@router.post("/api/review/{card_id}", tags=["review"], responses=GRADE_RESPONSES)
def grade_api(
    card: CardDep,
    body: GradeIn,
    session: WriteSessionDep,
    user_id: UserDep,
    now: NowDep,
    fuzz: FuzzDep,
) -> GradeOut:
    """Grade a card. Sending the same idempotency key again returns the first result.

    A grade given offline is sent later with `reviewed_at`, the time it was given: the card's
    new state and due date are computed from that time, and statistics count it on that day
    in your time zone. Grades apply in time order: one older than the card's latest review
    is refused with 409 and changes nothing (the card already reflects a later review).
    """
    result = submit.submit(session, user_id, card.id, body.to_grade(), now, fuzz=fuzz)
    return GradeOut.of(result)


def session_context(
    request: Request,
    session: Session,
    user_id: int,
    catalog: Catalog,
    renderer: Renderer,
    now: datetime,
    fuzz: bool,
    topics: set[str] | None,
    first: str | None = None,
) -> dict[str, Any]:
    """What the review page shows: the current card, its four buttons, and today's progress."""
    settings = srs_settings.load(session, user_id)
    cache = request.app.state.plan_cache
    work = plan_service.todays_work(session, user_id, catalog, now, cache, settings, topics=topics)
    built = work.queue
    ids = [item.card_id for item in built.items]
    if first and first in ids:
        ids.remove(first)
        ids.insert(0, first)
    current = catalog.card(ids[0]) if ids else None
    choices = (
        buttons.choices(session, user_id, current.id, now, settings, fuzz=fuzz)
        if current is not None
        else buttons.Choices(buttons=[], damaged=None)
    )
    remaining = built.due_count + built.new_count
    return {
        "current": current,
        "buttons": choices.buttons,
        "damaged": choices.damaged,
        "idempotency_key": uuid.uuid4().hex,
        "queue": built,
        "remaining": remaining,
        "progress_total": built.done_today + remaining,
        "topics": sorted(topics or []),
        "drills": present_all(renderer, [current]) if current else {},
        "next_due": as_utc(built.next_due) if built.next_due else None,
        "now": now,
        "has_plan": work.planned,
        "more_error": request.query_params.get("more_error") == "1",
    }


@router.get("/review", response_class=HTMLResponse, include_in_schema=False)
def review_page(
    request: Request,
    catalog: CatalogDep,
    session: SessionDep,
    templates: TemplatesDep,
    renderer: RendererDep,
    user_id: UserDep,
    now: NowDep,
    fuzz: FuzzDep,
    topic: TopicsQuery = [],  # noqa: B006
    card: str | None = None,
    fragment: bool = False,
) -> HTMLResponse:
    """The review session; `fragment=1` returns only the card area, for the page's script."""
    topics = check_topics(catalog, topic)
    context = session_context(request, session, user_id, catalog, renderer, now, fuzz, topics, card)
    context["all_topics"] = catalog.topics
    name = "review/_session.html" if fragment else "review/show.html"
    return templates.TemplateResponse(request, name, context)


@router.post("/review/{card_id}", include_in_schema=False, responses=NOT_FOUND)
def grade_form(
    card: CardDep,
    session: WriteSessionDep,
    user_id: UserDep,
    now: NowDep,
    fuzz: FuzzDep,
    rating: Annotated[int, Form(ge=LOWEST_RATING, le=HIGHEST_RATING)],
    idempotency_key: Annotated[str, Form(min_length=1, max_length=100), CLEAN],
    source: Annotated[Literal["review", "embedded"], Form()] = "review",
    next: Annotated[str, Form(), CLEAN] = "/review",
) -> RedirectResponse:
    """The grade buttons without JavaScript: grade, then back to where the user was."""
    grade = submit.Grade(rating=rating, idempotency_key=idempotency_key, source=source)
    submit.submit(session, user_id, card.id, grade, now, fuzz=fuzz)
    return RedirectResponse(safe_next(next, "/review"), status_code=303)


@router.post("/review-undo", include_in_schema=False)
def undo_form(session: WriteSessionDep, user_id: UserDep) -> RedirectResponse:
    undone = review.undo(session, user_id)
    target = f"/review?card={undone.card_id}" if undone else "/review"
    return RedirectResponse(target, status_code=303)

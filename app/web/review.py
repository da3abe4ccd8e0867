"""Review over HTTP: the queue page, grading (keyboard, forms, JSON), undo."""

import uuid
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy import select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from app.content.catalog import Catalog
from app.drills.present import present_all
from app.models import CardState
from app.plan import service as plan_service
from app.plan.service import PlanCache
from app.srs import queue, review, scheduling
from app.srs import settings as srs_settings
from app.srs.days import as_utc
from app.web.deps import (
    CardDep,
    CatalogDep,
    DatabaseDep,
    NowDep,
    RendererDep,
    SessionDep,
    TemplatesDep,
    UserDep,
)
from app.web.security import safe_next
from app.web.text import CLEAN, CleanText

router = APIRouter()
TopicsQuery = Annotated[list[str], Query(description="Only cards from these topic slugs.")]
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "No such card"}}
GRADE_RESPONSES: dict[int | str, dict[str, Any]] = {
    **NOT_FOUND,
    409: {"description": "The card was reviewed after `reviewed_at`: the grade is not applied"},
}
# How old an offline grade may be, and how far ahead of the server a device's clock may run.
MAX_GRADE_AGE = timedelta(days=7)
CLOCK_SKEW = timedelta(minutes=5)


class GradeIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # no silent coercion

    rating: int = Field(ge=1, le=4, description="1 Again, 2 Hard, 3 Good, 4 Easy.")
    idempotency_key: CleanText = Field(
        min_length=1,
        max_length=100,
        description="A fresh random string per grade; resending it records nothing new.",
    )
    duration_ms: int | None = Field(default=None, ge=0, le=86_400_000)
    source: Literal["review", "embedded"] = "review"
    reviewed_at: datetime | None = Field(
        default=None,
        strict=False,
        description="When the grade was given, in UTC (ISO 8601, e.g. 2026-03-02T12:00:00Z),"
        " for a grade sent later; at most 7 days ago and not in the future. Default: now.",
    )

    @field_validator("reviewed_at", mode="before")
    @classmethod
    def _iso_text(cls, value: object) -> object:
        if value is not None and not isinstance(value, str | datetime):
            raise ValueError("must be an ISO 8601 date and time, e.g. 2026-03-02T12:00:00Z")
        return value

    @field_validator("reviewed_at")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        if value is None:
            return None
        if value.utcoffset() is None:
            raise ValueError("needs a time zone: send UTC, e.g. 2026-03-02T12:00:00Z")
        try:
            return value.astimezone(UTC)
        except OverflowError:
            raise ValueError("is out of range") from None


class GradeOut(BaseModel):
    card_id: str
    state: str
    due: str
    stability: float | None
    difficulty: float | None
    interval_days: float


class QueueCardOut(BaseModel):
    card_id: str
    topic: str
    kind: str
    prompt_html: str
    due: str | None


class QueueOut(BaseModel):
    cards: list[QueueCardOut]
    due_count: int
    new_count: int


class UndoOut(BaseModel):
    card_id: str
    rating: int


def check_topics(catalog: Catalog, topics: list[str]) -> set[str] | None:
    unknown = [slug for slug in topics if catalog.topic(slug) is None]
    if unknown:
        detail = [
            {"loc": ["query", "topic"], "msg": f"no topic '{unknown[0]}'", "type": "value_error"}
        ]
        raise HTTPException(status_code=422, detail=detail)
    return set(topics) or None


def review_time(reviewed_at: datetime | None, now: datetime) -> datetime:
    """When a grade counts as given: `reviewed_at` within the last 7 days (a device's clock
    up to 5 minutes ahead is taken as now), else 422 naming the field."""
    if reviewed_at is None:
        return now
    moment = reviewed_at.astimezone(UTC)  # already UTC from GradeIn; a caller may pass any zone
    if moment > now + CLOCK_SKEW:
        problem = f"is in the future (the server's time is {now.isoformat()})"
    elif moment < now - MAX_GRADE_AGE:
        problem = "is more than 7 days ago: a grade that old is not applied"
    else:
        return min(moment, now)
    detail = [{"loc": ["body", "reviewed_at"], "msg": problem, "type": "value_error"}]
    raise HTTPException(status_code=422, detail=detail)


def grade_card(
    request: Request, user_id: int, card_id: str, body: GradeIn, now: Any
) -> review.GradeResult:
    """One grade in one write transaction; a concurrent duplicate key returns the first result.

    A resent key returns the first result whatever its `reviewed_at`; a grade older than the
    card's latest review is refused with 409.
    """
    when = review_time(body.reviewed_at, now)
    database = request.app.state.database
    fuzz = request.app.state.settings.srs_fuzz
    try:
        with database.write_session() as session:
            settings = srs_settings.load(session, user_id)
            return review.grade(
                session,
                user_id,
                card_id,
                body.rating,
                when,
                desired_retention=settings.desired_retention,
                idempotency_key=body.idempotency_key,
                duration_ms=body.duration_ms,
                source=body.source,
                fuzz=fuzz,
                parameters=settings.fsrs_parameters,
                in_order=body.reviewed_at is not None,
            )
    except review.OutOfOrderError as error:
        raise HTTPException(status_code=409, detail=str(error)) from error
    except IntegrityError:
        with database.read_session() as session:
            earlier = review.find_by_key(session, user_id, body.idempotency_key)
        if earlier is None:
            raise
        return _same_card(earlier, card_id)
    except review.KeyReused as error:
        raise _key_reused(error) from None


def _same_card(earlier: review.GradeResult, card_id: str) -> review.GradeResult:
    try:
        return review.same_card(earlier, card_id)
    except review.KeyReused as error:
        raise _key_reused(error) from None


def _key_reused(error: review.KeyReused) -> HTTPException:
    message = str(error).partition(": ")[2]
    detail = [{"loc": ["body", "idempotency_key"], "msg": message, "type": "value_error"}]
    return HTTPException(status_code=422, detail=detail)


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
    settings = srs_settings.load(connection, user_id)
    planned = plan_service.today(connection, user_id, catalog, now, cache, settings)
    built = queue.build(
        connection, user_id, catalog, settings, now, topics=topics, limit=limit, planned=planned
    )
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
def undo_api(database: DatabaseDep, user_id: UserDep) -> UndoOut:
    """Take back your latest grade: the card's state and the log are restored."""
    with database.write_session() as session:
        undone = review.undo(session, user_id)
    if undone is None:
        raise HTTPException(status_code=404, detail="Nothing to undo.")
    return UndoOut(card_id=undone.card_id, rating=undone.rating)


def grade_out(result: review.GradeResult) -> GradeOut:
    return GradeOut(
        card_id=result.card_id,
        state=result.state,
        due=result.due.isoformat(),
        stability=result.stability,
        difficulty=result.difficulty,
        interval_days=result.interval_days,
    )


@router.post("/api/review/{card_id}", tags=["review"], responses=GRADE_RESPONSES)
def grade_api(
    request: Request, card: CardDep, body: GradeIn, user_id: UserDep, now: NowDep
) -> GradeOut:
    """Grade a card. Sending the same idempotency key again returns the first result.

    A grade given offline is sent later with `reviewed_at`, the time it was given: the card's
    new state and due date are computed from that time, and statistics count it on that day
    in your time zone. Grades apply in time order: one older than the card's latest review
    is refused with 409 and changes nothing (the card already reflects a later review).
    """
    return grade_out(grade_card(request, user_id, card.id, body, now))


def session_context(
    request: Request,
    session: Any,
    user_id: int,
    catalog: Catalog,
    renderer: Any,
    now: Any,
    topics: set[str] | None,
    first: str | None = None,
) -> dict[str, Any]:
    """What the review page shows: the current card, its four buttons, and today's progress."""
    settings = srs_settings.load(session, user_id)
    cache = request.app.state.plan_cache
    planned = plan_service.today(session, user_id, catalog, now, cache, settings)
    built = queue.build(session, user_id, catalog, settings, now, topics=topics, planned=planned)
    ids = [item.card_id for item in built.items]
    if first and first in ids:
        ids.remove(first)
        ids.insert(0, first)
    current = catalog.card(ids[0]) if ids else None
    buttons, damaged = [], None
    if current is not None:
        row = session.scalars(
            select(CardState).where(CardState.user_id == user_id, CardState.card_id == current.id)
        ).one_or_none()
        seed = scheduling.fuzz_seed(user_id, current.id, row.reps if row else 0)
        fuzz = request.app.state.settings.srs_fuzz
        if row is not None:  # a damaged state: say so, and offer a fresh start
            damaged = scheduling.damage(row.state, row.stability, row.difficulty)
        for rating, outcome in scheduling.outcomes(
            scheduling.usable(row),
            now,
            settings.desired_retention,
            seed,
            fuzz,
            settings.fsrs_parameters,
        ).items():
            label = scheduling.describe_interval(outcome.interval)
            buttons.append((rating, scheduling.RATING_NAMES[rating], label))
    remaining = built.due_count + built.new_count
    return {
        "current": current,
        "buttons": buttons,
        "damaged": damaged,
        "idempotency_key": uuid.uuid4().hex,
        "queue": built,
        "remaining": remaining,
        "progress_total": built.done_today + remaining,
        "topics": sorted(topics or []),
        "drills": present_all(renderer, [current]) if current else {},
        "next_due": as_utc(built.next_due) if built.next_due else None,
        "now": now,
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
    topic: TopicsQuery = [],  # noqa: B006
    card: str | None = None,
    fragment: bool = False,
) -> HTMLResponse:
    """The review session; `fragment=1` returns only the card area, for the page's script."""
    topics = check_topics(catalog, topic)
    context = session_context(request, session, user_id, catalog, renderer, now, topics, card)
    context["all_topics"] = catalog.topics
    name = "review/_session.html" if fragment else "review/show.html"
    return templates.TemplateResponse(request, name, context)


@router.post("/review/{card_id}", include_in_schema=False, responses=NOT_FOUND)
def grade_form(
    request: Request,
    card: CardDep,
    user_id: UserDep,
    now: NowDep,
    rating: Annotated[int, Form(ge=1, le=4)],
    idempotency_key: Annotated[str, Form(min_length=1, max_length=100), CLEAN],
    source: Annotated[Literal["review", "embedded"], Form()] = "review",
    next: Annotated[str, Form(), CLEAN] = "/review",
) -> RedirectResponse:
    """The grade buttons without JavaScript: grade, then back to where the user was."""
    body = GradeIn(rating=rating, idempotency_key=idempotency_key, source=source)
    grade_card(request, user_id, card.id, body, now)
    return RedirectResponse(safe_next(next, "/review"), status_code=303)


@router.post("/review-undo", include_in_schema=False)
def undo_form(database: DatabaseDep, user_id: UserDep) -> RedirectResponse:
    with database.write_session() as session:
        undone = review.undo(session, user_id)
    target = f"/review?card={undone.card_id}" if undone else "/review"
    return RedirectResponse(target, status_code=303)

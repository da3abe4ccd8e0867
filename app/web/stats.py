"""Statistics: the page with its charts, and the same numbers as JSON."""

from datetime import date

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel

from app.srs import settings as srs_settings
from app.srs import stats
from app.web.deps import CatalogDep, NowDep, SessionDep, TemplatesDep, UserDep
from app.web.plan.panel import plan_context

router = APIRouter()


class RetentionOut(BaseModel):
    passed: int
    total: int
    rate: float | None


class DayCountOut(BaseModel):
    day: date
    count: int


class StatsOut(BaseModel):
    today: date
    streak: int
    total_reviews: int
    counts: dict[str, int]
    retention: dict[str, RetentionOut]
    reviews_per_day: list[DayCountOut]
    forecast: list[DayCountOut]
    mastery: dict[str, float]
    heatmap: list[DayCountOut]


@router.get("/api/stats", tags=["review"])
def stats_api(catalog: CatalogDep, session: SessionDep, user_id: UserDep, now: NowDep) -> StatsOut:
    """Reviews per day, true retention (young/mature), due forecast, counts, mastery, streak."""
    result = stats.compute(session, user_id, catalog, srs_settings.load(session, user_id), now)

    def days(series: list[tuple[date, int]]) -> list[DayCountOut]:
        return [DayCountOut(day=d, count=c) for d, c in series]

    return StatsOut(
        today=result.today,
        streak=result.streak,
        total_reviews=result.total_reviews,
        counts=result.counts,
        retention={
            k: RetentionOut(passed=r.passed, total=r.total, rate=r.rate)
            for k, r in result.retention.items()
        },
        reviews_per_day=days(result.reviews_per_day),
        forecast=days(result.forecast),
        mastery=result.mastery,
        heatmap=days(result.heatmap),
    )


@router.get("/stats", response_class=HTMLResponse, include_in_schema=False)
def stats_page(
    request: Request,
    catalog: CatalogDep,
    session: SessionDep,
    templates: TemplatesDep,
    user_id: UserDep,
    now: NowDep,
) -> HTMLResponse:
    settings = srs_settings.load(session, user_id)
    result = stats.compute(session, user_id, catalog, settings, now)
    heat_max = max((c for _d, c in result.heatmap), default=0)
    offset = result.heatmap[0][0].weekday()  # Monday on the top row, as most calendars do
    cells = [
        (day, count, (i + offset) // 7, (i + offset) % 7, level(count, heat_max))
        for i, (day, count) in enumerate(result.heatmap)
    ]
    context = {
        "stats": result,
        "cells": cells,
        "heat_weeks": cells[-1][2] + 1,
        "per_day_max": max((c for _d, c in result.reviews_per_day), default=0),
        "forecast_max": max((c for _d, c in result.forecast), default=0),
        "topics": catalog.topics,
        **plan_context(request, session, catalog, user_id, now, settings),
    }
    return templates.TemplateResponse(request, "stats/show.html", context)


def level(count: int, most: int) -> int:
    """0 for no reviews, then 1–4 by share of the busiest day."""
    return 0 if count == 0 else min(4, 1 + (4 * count - 1) // max(most, 1))

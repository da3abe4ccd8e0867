"""The loop date and the plan to it: JSON at /api/plan, and the form on home and settings."""

from datetime import date, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request, Response
from fastapi.responses import RedirectResponse
from markupsafe import Markup
from pydantic import BaseModel, ConfigDict, Field

from app.charts import svg
from app.errors import FieldError
from app.plan import service
from app.plan.planner import Plan, ReadinessPoint
from app.plan.service import PlanCache, StoredPlan
from app.srs import settings as srs_settings
from app.srs.days import study_day
from app.web.deps import CatalogDep, DatabaseDep, NowDep, SessionDep, UserDep

router = APIRouter()
NO_PLAN = "No loop date is set: PUT /api/plan with loop_date and daily_minutes."
_BACK = {"/", "/settings"}  # where the form may send the reader back to


def plan_cache(request: Request) -> PlanCache:
    cache: PlanCache = request.app.state.plan_cache
    return cache


class PlanIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    loop_date: date = Field(description="The day of the interview loop (YYYY-MM-DD), in the future")
    daily_minutes: int = Field(description="Minutes a day to study, 10 to 600", strict=True)
    topics: list[Annotated[str, Field(max_length=80)]] | None = Field(
        default=None, max_length=50, description="Topic slugs to study; all of them if left out"
    )


class PlanDayOut(BaseModel):
    date: date
    new_cards: int
    reviews: int = Field(description="Reviews due that day, with the early ones of the last days")
    minutes: int = Field(description="Study time, the mock included, within daily_minutes")
    mock: str | None = Field(description='The mock preset to sit that day ("lightning", "infra")')


class TopicReadinessOut(BaseModel):
    slug: str
    now: float
    if_followed: float


class ReadinessOut(BaseModel):
    now: float = Field(description="Mean predicted recall of the chosen cards now (unseen: 0)")
    if_followed: float = Field(description="Mean predicted recall on the loop day, plan followed")
    if_stopped: float = Field(description="Mean predicted recall on the loop day, no more study")
    by_topic: list[TopicReadinessOut]


class PaceOut(BaseModel):
    seconds_per_review: float
    seconds_per_new: float
    source: str = Field(description='"your reviews" once there are enough of them, else "default"')


class DroppedOut(BaseModel):
    card_id: str
    topic: str


class PlanOut(BaseModel):
    loop_date: date
    days_left: int = Field(description="Whole days from your today (time zone, day boundary)")
    daily_minutes: int
    topics: list[str] = Field(description="The topics studied; empty means all")
    days: list[PlanDayOut]
    readiness: ReadinessOut
    pace: PaceOut
    dropped: list[DroppedOut] = Field(description="Unseen cards the time left cannot cover")
    notes: list[str]

    @classmethod
    def of(cls, stored: StoredPlan, plan: Plan) -> "PlanOut":
        readiness = plan.readiness
        return cls(
            loop_date=stored.loop_date,
            days_left=len(plan.days),
            daily_minutes=stored.daily_minutes,
            topics=list(stored.topics),
            days=[
                PlanDayOut(
                    date=d.date,
                    new_cards=d.new_cards,
                    reviews=d.reviews,
                    minutes=d.minutes,
                    mock=d.mock,
                )
                for d in plan.days
            ],
            readiness=ReadinessOut(
                now=round(readiness.now, 4),
                if_followed=round(readiness.if_followed, 4),
                if_stopped=round(readiness.if_stopped, 4),
                by_topic=[
                    TopicReadinessOut(
                        slug=t.slug, now=round(t.now, 4), if_followed=round(t.if_followed, 4)
                    )
                    for t in readiness.by_topic
                ],
            ),
            pace=PaceOut(
                seconds_per_review=plan.pace.seconds_per_review,
                seconds_per_new=plan.pace.seconds_per_new,
                source="your reviews" if plan.pace.measured else "default",
            ),
            dropped=[DroppedOut(card_id=c.card_id, topic=c.topic) for c in plan.dropped],
            notes=list(plan.notes),
        )


@router.get(
    "/api/plan",
    tags=["plan"],
    responses={404: {"description": "No loop date set", "content": {"application/json": {}}}},
)
def get_plan(
    request: Request, session: SessionDep, catalog: CatalogDep, user_id: UserDep, now: NowDep
) -> PlanOut:
    """The plan from today to the loop: each day's work, readiness, and what does not fit."""
    found = service.compute(session, user_id, catalog, now, plan_cache(request))
    if found is None:
        raise HTTPException(404, NO_PLAN)
    return PlanOut.of(*found)


@router.put("/api/plan", tags=["plan"])
def put_plan(
    request: Request,
    body: PlanIn,
    database: DatabaseDep,
    catalog: CatalogDep,
    user_id: UserDep,
    now: NowDep,
) -> PlanOut:
    """Set or move the loop date; 422 names a date not in the future, bad minutes or topics."""
    with database.write_session() as session:
        service.save(session, user_id, catalog, now, **body.model_dump())
    with database.read_session() as session:
        found = service.compute(session, user_id, catalog, now, plan_cache(request))
    assert found is not None  # just saved, in the future
    return PlanOut.of(*found)


@router.delete("/api/plan", status_code=204, tags=["plan"])
def delete_plan(database: DatabaseDep, user_id: UserDep) -> Response:
    """Forget the loop date; reviews go back to the daily limits of the settings."""
    with database.write_session() as session:
        service.delete(session, user_id)
    return Response(status_code=204)


@router.post("/plan", include_in_schema=False)
def plan_form(
    database: DatabaseDep,
    catalog: CatalogDep,
    user_id: UserDep,
    now: NowDep,
    loop_date: Annotated[str, Form(max_length=20)] = "",
    daily_minutes: Annotated[str, Form(max_length=10)] = "",
    back: Annotated[str, Form(max_length=20)] = "/",
    clear: Annotated[str, Form(max_length=5)] = "",
) -> RedirectResponse:
    """The form on the home and settings pages: save (or clear) and go back, with a code."""
    target = back if back in _BACK else "/"
    with database.write_session() as session:
        if clear:
            service.delete(session, user_id)
            return RedirectResponse(f"{target}?plan=cleared#plan", status_code=303)
        try:
            day = date.fromisoformat(loop_date.strip())
        except ValueError:
            return RedirectResponse(f"{target}?plan_error=date#plan", status_code=303)
        try:
            minutes = int(daily_minutes.strip())
        except ValueError:
            return RedirectResponse(f"{target}?plan_error=daily_minutes#plan", status_code=303)
        try:
            service.save(session, user_id, catalog, now, loop_date=day, daily_minutes=minutes,
                         topics=None)  # fmt: skip
        except FieldError as error:
            code = error.code if error.field == "loop_date" else error.field
            return RedirectResponse(f"{target}?plan_error={code}#plan", status_code=303)
    return RedirectResponse(f"{target}?plan=saved#plan", status_code=303)


#: What a form's error code says; the code, never free text, travels in the address.
PLAN_ERRORS = {
    "date": "Give the loop date as a day (YYYY-MM-DD).",
    "past": "The loop date must be after today.",
    "too_far": "The loop date must be within a year.",
    "daily_minutes": "Daily minutes must be a whole number from 10 to 600.",
    "topics": "Choose topics that exist.",
}


def plan_context(
    request: Request, session: Any, catalog: Any, user_id: int, now: Any
) -> dict[str, Any]:
    """What the home and settings pages show of the plan: the plan, or the form's defaults."""
    found = service.compute(session, user_id, catalog, now, plan_cache(request))
    settings = srs_settings.load(session, user_id)
    today = study_day(now, settings.timezone, settings.day_boundary_hour)
    code = request.query_params.get("plan_error")
    return {
        "plan": PlanOut.of(*found) if found else None,
        "plan_chart": readiness_chart(found[1].trajectory) if found else None,
        "plan_min_date": today + timedelta(days=1),
        "plan_behind": service.overdue(session, user_id, now) if found else 0,
        "plan_error": PLAN_ERRORS.get(code or ""),
        "plan_saved": request.query_params.get("plan"),
    }


def readiness_chart(trajectory: tuple[ReadinessPoint, ...]) -> Markup:
    """Predicted recall against the days left: following the plan, and stopping now."""
    last = trajectory[-1].date
    left = [-(last - point.date).days for point in trajectory]  # counts down to 0 on the right
    followed = [(x, p.if_followed * 100) for x, p in zip(left, trajectory, strict=True)]
    stopped = [(x, p.if_stopped * 100) for x, p in zip(left, trajectory, strict=True)]
    days = -left[0]
    step = 7 if days > 14 else 2 if days > 6 else 1
    ticks = sorted({0.0, float(left[0]), *(-float(d) for d in range(0, days + 1, step))})
    desc = (
        f"Over the {len(trajectory) - 1} days left, mean predicted recall of the chosen cards "
        f"rises to {followed[-1][1]:.0f}% on the loop day if the plan is followed, and is "
        f"{stopped[-1][1]:.0f}% on the day if nothing more is studied."
    )
    return Markup(
        svg.line_chart(
            [
                svg.Series("If you follow the plan", followed, "c1"),
                svg.Series("If you stop now", stopped, "c2"),
            ],
            chart_id="plan-readiness",
            title="Readiness on the loop day",
            desc=desc,
            x_label="days left",
            y_label="predicted recall (%)",
            fmt_x=lambda value: f"{abs(value):g}",
            x_ticks=ticks,
            width=560,
            height=300,
        )
    )

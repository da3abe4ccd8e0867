"""The plan panel the home, settings and stats pages show: the plan and its readiness chart,
or the form to set a loop date; and where today stands (calendar day, study day, time zone).
A page piece, not a router, so the pages that show it import it instead of importing each
other."""

from datetime import timedelta
from typing import Any

from fastapi import Request
from markupsafe import Markup

from app.charts import svg
from app.plan import service
from app.plan.readiness import ReadinessPoint
from app.plan.service import PlanCache
from app.srs import settings as srs_settings
from app.web.plan.schemas import PlanOut
from app.wording import plural


def plan_cache(request: Request) -> PlanCache:
    cache: PlanCache = request.app.state.plan_cache
    return cache


#: What a form's error code says; the code, never free text, travels in the address.
PLAN_ERRORS = {
    "date": "Give the loop date as a day (YYYY-MM-DD).",
    "past": "The loop date must be after today.",
    "too_far": "The loop date must be within a year.",
    "daily_minutes": "Daily minutes must be a whole number from 10 to 600.",
    "topics": "Choose topics that exist.",
}


def plan_context(
    request: Request,
    session: Any,
    catalog: Any,
    user_id: int,
    now: Any,
    settings: srs_settings.Settings,
    work: service.TodaysWork | None = None,
) -> dict[str, Any]:
    """What the home, settings and stats pages show of the plan: the plan, or the form's
    defaults. `settings`: the user's review settings, which the page has read already;
    `work`: today's queue, when the page has built it already (home)."""
    cache = plan_cache(request)
    found = service.compute(session, user_id, catalog, now, cache, settings)
    if work is None:
        work = service.todays_work(session, user_id, catalog, now, cache, settings, limit=0)
    code = request.query_params.get("plan_error")
    return {
        "plan": PlanOut.of(*found, work) if found else None,
        "plan_chart": readiness_chart(found[1].trajectory) if found else None,
        "day": work.today,
        # For the page's script: the stored zone, and whether it is still the untouched
        # default (then the browser's own is taken; otherwise a difference is only offered).
        "zone": settings.timezone,
        "zone_chosen": srs_settings.chosen(session, user_id),
        "plan_min_date": work.today.calendar + timedelta(days=1),
        "plan_behind": service.overdue(session, user_id, now, settings) if found else 0,
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
        f"Over the {plural(len(trajectory) - 1, 'day')} left, mean predicted recall of the "
        f"chosen cards rises to {followed[-1][1]:.0f}% on the loop day if the plan is "
        f"followed, and is {stopped[-1][1]:.0f}% on the day if nothing more is studied."
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

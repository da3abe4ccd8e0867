"""The plan's JSON: what PUT /api/plan takes and what the plan routes and panel answer."""

from datetime import date, datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from app.plan.planner import Plan
from app.plan.service import StoredPlan, TodaysWork, rows


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
    days_left: int = Field(
        description="Whole calendar days from today in your time zone to the loop date"
    )
    today: date = Field(description="Today's date on the calendar, in your time zone")
    study_day: date = Field(
        description="The study day the first row is: before the day boundary hour it is still "
        "yesterday's, and today's reviews count for it"
    )
    study_day_ends: datetime = Field(description="When the study day ends, in your time zone")
    daily_minutes: int
    topics: list[str] = Field(description="The topics studied; empty means all")
    days: list[PlanDayOut] = Field(
        description="One row per study day to the loop; the first is what is left of today, "
        "the same counts as the review queue's"
    )
    readiness: ReadinessOut
    pace: PaceOut
    dropped: list[DroppedOut] = Field(description="Unseen cards the time left cannot cover")
    notes: list[str]

    @classmethod
    def of(cls, stored: StoredPlan, plan: Plan, work: TodaysWork) -> "PlanOut":
        readiness = plan.readiness
        today = work.today
        return cls(
            loop_date=stored.loop_date,
            days_left=today.days_to(stored.loop_date),
            today=today.calendar,
            study_day=today.study,
            study_day_ends=today.ends,
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
                for d in rows(plan, work)
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

"""Interview a friend: the interviewer's view of one mock session, opened by a link's token.

The token in the path is the only credential (app.mock.pairing): these routes are mounted
without the members' sign-in, in accounts mode too, and never read a cookie or an API token,
so the link opens this view and nothing else. Writes need no CSRF token: a forged request
from another site is refused by app.web.security's Origin check, and could not know the
token anyway. The page polls GET /api/pair/<token> every 2 seconds for the clock and the
candidate's notes.
"""

from datetime import datetime
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Header, Path, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session

from app.auth.tokens import digest
from app.content.catalog import Catalog
from app.db import Database
from app.mock import live, pairing
from app.mock import sessions as mocks
from app.srs.days import as_utc
from app.srs.scheduling import HIGHEST_RATING, LOWEST_RATING, RATING_HELP, RATING_NAMES
from app.web import streams
from app.web.deps import CatalogDep, LinkWriteSessionDep, NowDep, SessionDep, TemplatesDep
from app.web.identity import policy

router = APIRouter()

Token = Annotated[str, Path(min_length=1, max_length=200, description="The link's token.")]
Position = Field(ge=1, le=100, description="The question (1-based).")
GONE: dict[int | str, dict[str, Any]] = {404: {"description": pairing.NOT_FOUND}}


def _hash(request: Request, token: str) -> str:
    return digest(token, policy(request).key)


# --- JSON ----------------------------------------------------------------------------------


class RubricPointOut(BaseModel):
    index: int
    point_html: str
    marked: bool = Field(description="Whether the interviewer marked it made.")


class FollowupOut(BaseModel):
    index: int
    question_html: str
    probes: list[int] = Field(description="The rubric points (0-based) it probes.")
    answer_html: str = Field(description="Its reference answer.")
    chosen: bool = Field(description="Whether the interviewer chose it.")


class InterviewQuestionOut(BaseModel):
    position: int
    phase: str
    topic: str
    question_html: str
    answer_html: str | None = Field(description="The model answer.")
    steps_html: list[str]
    rubric: list[RubricPointOut]
    followups: list[FollowupOut]
    mistakes_html: list[str] = Field(description="The common mistakes.")
    answer: str = Field(description="The candidate's typed notes, as last autosaved.")
    followup_asked: str | None = Field(description="The follow-up asked, once it is.")
    followup_answer: str
    saved_at: datetime | None
    interviewer_rating: int | None


class InterviewOut(BaseModel):
    step: str = Field(description="start, answer, followup, grade or finished.")
    questions: int
    remaining_seconds: float = Field(description="On the clock running now; 0 when none runs.")
    expires_at: datetime = Field(description="When the link ends, if the session has not.")
    current: InterviewQuestionOut | None
    version: int = Field(
        default=0,
        description="Bumped by every change to the session; GET /api/pair/<token>/events"
        "?since=<version> tells of newer ones.",
    )

    @classmethod
    def of(cls, view: pairing.Interview) -> "InterviewOut":
        question, card = view.step.question, view.card
        current = None
        if question is not None and card is not None:
            marked = set(question.interviewer_points or [])
            asked = question.followup if question.submitted_at else None
            current = InterviewQuestionOut(
                position=question.position,
                phase=mocks.phase(question),
                topic=card.topic_title,
                question_html=card.question_html,
                answer_html=card.answer_html,
                steps_html=list(card.steps_html),
                rubric=[
                    RubricPointOut(index=i, point_html=p.point_html, marked=i in marked)
                    for i, p in enumerate(card.rubric)
                ],
                followups=[
                    FollowupOut(
                        index=i,
                        question_html=card.followups_html[i],
                        probes=list(f.probes),
                        answer_html=card.followup_answers_html[i],
                        chosen=question.interviewer_followup == i,
                    )  # fmt: skip
                    for i, f in enumerate(card.card.followups)
                ],
                mistakes_html=list(card.mistakes_html),
                answer=question.answer,
                followup_asked=asked,
                followup_answer=question.followup_answer or "",
                saved_at=question.saved_at and as_utc(question.saved_at),
                interviewer_rating=question.interviewer_rating,
            )
        return cls(
            step=view.step.kind,
            questions=view.questions,
            remaining_seconds=view.remaining,
            expires_at=view.expires_at,
            current=current,
            version=view.mock.version,
        )


class PointsIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    position: int = Position
    points: list[int] = Field(max_length=100, description="Every rubric point heard made.")


class FollowupIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    position: int = Position
    index: int = Field(ge=0, le=100, description="The follow-up to ask (0-based).")


class RatingIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    position: int = Position
    rating: int = Field(ge=LOWEST_RATING, le=HIGHEST_RATING, description=RATING_HELP)


@router.get("/api/pair/{token}", tags=["pair"], responses=GONE)
def interview_api(
    token: Token, request: Request, session: SessionDep, catalog: CatalogDep, now: NowDep
) -> InterviewOut:
    """The interviewer's view: the current question with its model answer, rubric,
    follow-ups and common mistakes, the clock, and the candidate's notes as autosaved.

    404, the same for every cause, when the link is wrong, expired, revoked or its session
    has ended."""
    return InterviewOut.of(pairing.interview(session, _hash(request, token), catalog, now))


def _after(
    session: Session, request: Request, token: str, catalog: Catalog, now: datetime
) -> InterviewOut:
    """The view as the write left it, for the page to show at once."""
    return InterviewOut.of(pairing.interview(session, _hash(request, token), catalog, now))


@router.post("/api/pair/{token}/points", tags=["pair"], responses=GONE)
def points_api(
    token: Token, body: PointsIn, request: Request, session: LinkWriteSessionDep,
    catalog: CatalogDep, now: NowDep,
) -> InterviewOut:  # fmt: skip
    """Mark the rubric points heard made so far (all of them: this replaces the last mark)."""
    pairing.mark_points(session, _hash(request, token), catalog, now, body.position, body.points)
    return _after(session, request, token, catalog, now)


@router.post("/api/pair/{token}/followup", tags=["pair"], responses=GONE)
def followup_api(
    token: Token, body: FollowupIn, request: Request, session: LinkWriteSessionDep,
    catalog: CatalogDep, now: NowDep,
) -> InterviewOut:  # fmt: skip
    """Choose the follow-up to ask when the main answer is in; 409 once it is in."""
    pairing.choose_followup(session, _hash(request, token), catalog, now, body.position, body.index)
    return _after(session, request, token, catalog, now)


@router.post("/api/pair/{token}/rating", tags=["pair"], responses=GONE)
def rating_api(
    token: Token, body: RatingIn, request: Request, session: LinkWriteSessionDep,
    catalog: CatalogDep, now: NowDep,
) -> InterviewOut:  # fmt: skip
    """Propose a rating; the candidate sees it when grading and still decides."""
    pairing.propose_rating(session, _hash(request, token), catalog, now, body.position, body.rating)
    return _after(session, request, token, catalog, now)


@router.get("/api/pair/{token}/events", include_in_schema=False)
async def interview_events(
    token: Token,
    request: Request,
    since: Annotated[int | None, Query(ge=0, le=2**31, description="The version shown.")] = None,
    last_event_id: Annotated[str | None, Header(max_length=20)] = None,
) -> streams.EventStream:
    """News of the session the link opens, as server-sent events: `change` (fetch the view
    again) and, once the link opens nothing any more, `gone`. 404 as for the view."""
    database: Database = request.app.state.database
    clock = request.app.state.clock
    hashed = _hash(request, token)

    def watch() -> live.Watched:
        with database.read_session() as session:
            return pairing.watch(session, hashed, clock())

    async def check() -> live.Watched | None:
        try:
            return await anyio.to_thread.run_sync(watch)
        except pairing.LinkNotFound:
            return None

    watched = await anyio.to_thread.run_sync(watch)  # LinkNotFound: 404, nothing streamed
    seen = streams.last_seen(last_event_id, since)
    return streams.stream(request.app.state.events, watched, seen, check, clock)


# --- the page ------------------------------------------------------------------------------


@router.get("/pair/{token}", response_class=HTMLResponse, include_in_schema=False)
def interview_page(
    token: Token, request: Request, session: SessionDep, catalog: CatalogDep, now: NowDep,
    templates: TemplatesDep,
) -> HTMLResponse:  # fmt: skip
    view = InterviewOut.of(pairing.interview(session, _hash(request, token), catalog, now))
    context = {"view": view, "ratings": RATING_NAMES}
    return templates.TemplateResponse(request, "pair/show.html", context)

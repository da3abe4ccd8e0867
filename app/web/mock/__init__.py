"""Mock interviews over HTTP: JSON for scripts and the page's script, forms for everything.

The session's rules are app.mock.flow's; a refused step is an app.errors type, which the
JSON routes leave to the app's handler and the page's forms turn into a message code.
"""

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Literal

import anyio
from fastapi import APIRouter, Body, Form, Header, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError
from sqlalchemy.orm import Session

from app import quotas
from app.auth.tokens import digest, new_secret
from app.content.catalog import Catalog
from app.errors import DomainError
from app.grading import interviewer
from app.mock import audio as voice
from app.mock import flow, live, pairing, transcripts
from app.mock import report as reports
from app.mock import sessions as mocks
from app.models import MockQuestion, MockSession
from app.srs.days import as_utc
from app.srs.scheduling import HIGHEST_RATING, LOWEST_RATING, RATING_NAMES
from app.web import streams
from app.web.deps import (
    CatalogDep,
    FuzzDep,
    GradingFieldDep,
    NowDep,
    QuotasDep,
    SessionDep,
    TemplatesDep,
    UserDep,
    WriteSessionDep,
)
from app.web.identity import identify, policy, still_signed_in
from app.web.mock import audio
from app.web.mock.deps import NOT_FOUND, MockId, MockToChangeDep, OwnMockDep, not_yours
from app.web.mock.schemas import (
    AnswerIn,
    GradeIn,
    HistoryOut,
    MockIn,
    MockOut,
    PairLinkOut,
    ReportOut,
    SavedOut,
    StartIn,
    SubmitIn,
)
from app.web.text import CleanText

router = APIRouter()

# --- JSON ----------------------------------------------------------------------------------


def _out(
    session: Session, mock: MockSession, qs: list[MockQuestion], catalog: Catalog,
    now: datetime,
) -> MockOut:  # fmt: skip
    """The session as JSON, with its takes' transcripts (they count in the suggestions)."""
    return MockOut.of(mock, qs, catalog, now, transcripts.of_questions(session, qs))


@router.post("/api/mock", status_code=201, tags=["mock"])
def create_api(
    body: MockIn, session: WriteSessionDep, catalog: CatalogDep, user_id: UserDep, now: NowDep,
    limits: QuotasDep,
) -> MockOut:  # fmt: skip
    """Start a session: a preset ("infra": 4 × 10 min; "lightning": 6 × 3 min) or custom.

    429 past the server's mock interviews per user per 24 hours."""
    quotas.check_mock_session(session, user_id, now, limits)
    mock = mocks.create(session, user_id, catalog, now, **body.model_dump())
    return _out(session, mock, mocks.questions(session, mock), catalog, now)


@router.get("/api/mock", tags=["mock"])
def history_api(session: SessionDep, user_id: UserDep, catalog: CatalogDep) -> list[HistoryOut]:
    """Your sessions, newest first, with their scores."""
    return [HistoryOut.of(row) for row in reports.history(session, user_id, catalog)]


@router.get("/api/mock/{mock_id}", tags=["mock"], responses=NOT_FOUND)
def get_api(mock: OwnMockDep, session: SessionDep, catalog: CatalogDep, now: NowDep) -> MockOut:
    return _out(session, mock, mocks.questions(session, mock), catalog, now)


@router.post("/api/mock/{mock_id}/start", tags=["mock"], responses=NOT_FOUND)
def start_api(
    mock: MockToChangeDep, session: WriteSessionDep, catalog: CatalogDep, now: NowDep,
    body: Annotated[StartIn | None, Body()] = None,
) -> MockOut:  # fmt: skip
    """Start the next question: its deadline is fixed now, on the server."""
    qs = flow.start(session, mock, catalog, now, body.position if body else None)
    return _out(session, mock, qs, catalog, now)


@router.put("/api/mock/{mock_id}/answer", tags=["mock"], responses=NOT_FOUND)
def save_api(
    mock: MockToChangeDep, body: AnswerIn, session: WriteSessionDep,
    catalog: CatalogDep, now: NowDep,
) -> SavedOut:  # fmt: skip
    """Autosave the answer being written.

    409 once the deadline and a short grace have passed: the last saved text is kept.
    """
    question = flow.autosave(session, mock, catalog, now, body.part, body.text)
    return SavedOut.of(question, now)


@router.post("/api/mock/{mock_id}/submit", tags=["mock"], responses=NOT_FOUND)
def submit_api(
    mock: MockToChangeDep, body: SubmitIn, session: WriteSessionDep,
    catalog: CatalogDep, now: NowDep,
) -> MockOut:  # fmt: skip
    """Hand in the current answer; the follow-up, if any, starts with its own clock."""
    qs = flow.submit(session, mock, catalog, now, body.position, body.part, body.text)
    return _out(session, mock, qs, catalog, now)


@router.post("/api/mock/{mock_id}/grade", tags=["mock"], responses=NOT_FOUND)
def grade_api(
    mock: MockToChangeDep, body: GradeIn, session: WriteSessionDep,
    catalog: CatalogDep, now: NowDep, fuzz: FuzzDep,
) -> MockOut:  # fmt: skip
    """Confirm the rubric points made and rate the answer (an FSRS review, source "mock")."""
    qs = flow.grade(session, mock, catalog, now, body.points, body.rating, body.position, fuzz=fuzz)
    return _out(session, mock, qs, catalog, now)


@router.post("/api/mock/{mock_id}/abandon", tags=["mock"], responses=NOT_FOUND)
def abandon_api(
    mock: MockToChangeDep, session: WriteSessionDep, catalog: CatalogDep, now: NowDep
) -> MockOut:
    qs = flow.abandon(session, mock, catalog, now)
    return _out(session, mock, qs, catalog, now)


@router.delete("/api/mock/{mock_id}", status_code=204, tags=["mock"], responses=NOT_FOUND)
def delete_api(mock: MockToChangeDep, session: WriteSessionDep) -> Response:
    """Delete a session with its answers and their recordings; its reviews stay in the log."""
    voice.delete_session(session, mock)
    return Response(status_code=204)


@router.post("/api/mock/{mock_id}/pair", status_code=201, tags=["mock"], responses=NOT_FOUND)
def pair_api(
    mock: MockToChangeDep, request: Request, session: WriteSessionDep, now: NowDep
) -> PairLinkOut:
    """Open a link for a friend to interview you: it shows them the current question with its
    model answer, rubric and follow-ups, and lets them mark points, choose the follow-up and
    propose a rating. It works until the session ends, for 24 hours at most, or until
    revoked; a new link replaces the old. 409 once the session has ended."""
    secret = new_secret()
    link = pairing.open_link(session, mock, digest(secret, policy(request).key), now)
    expires_at = as_utc(link.expires_at)
    return PairLinkOut(invite_url=f"/pair/{secret}", expires_at=expires_at)


@router.delete("/api/mock/{mock_id}/pair", status_code=204, tags=["mock"], responses=NOT_FOUND)
def unpair_api(mock: MockToChangeDep, session: WriteSessionDep) -> Response:
    """Revoke the session's interviewer link, if it has one: it opens nothing any more."""
    pairing.revoke(session, mock)
    return Response(status_code=204)


@router.get("/api/mock/{mock_id}/events", include_in_schema=False)
async def events_api(
    mock_id: MockId,
    request: Request,
    user_id: UserDep,
    since: Annotated[int | None, Query(ge=0, le=2**31, description="The version shown.")] = None,
    last_event_id: Annotated[str | None, Header(max_length=20)] = None,
) -> streams.EventStream:
    """News of your session, as server-sent events: `change` with the kind of change (fetch
    GET /api/mock/{id} again) and `gone` when it is deleted or you are signed out."""
    database = request.app.state.database
    identity = identify(request)
    assert identity is not None  # UserDep resolved it

    def watch() -> live.Watched | None:
        with database.read_session() as session:
            if not still_signed_in(request, identity, session):
                return None
            return live.for_candidate(session, user_id, mock_id)

    async def check() -> live.Watched | None:
        return await anyio.to_thread.run_sync(watch)

    watched = await check()
    if watched is None:
        raise not_yours(mock_id)
    seen = streams.last_seen(last_event_id, since)
    return streams.stream(request.app.state.events, watched, seen, check, request.app.state.clock)


@router.get("/api/mock/{mock_id}/report", tags=["mock"], responses=NOT_FOUND)
def report_api(mock: OwnMockDep, session: SessionDep, catalog: CatalogDep) -> ReportOut:
    """Per question: time used, rubric coverage, rating; the session score; weak spots."""
    return ReportOut.of(reports.build(mock, mocks.questions(session, mock), catalog))


router.include_router(audio.router)


# --- pages ---------------------------------------------------------------------------------


@router.get("/mock", response_class=HTMLResponse, include_in_schema=False)
def start_page(
    request: Request, templates: TemplatesDep, catalog: CatalogDep, session: SessionDep,
    user_id: UserDep,
) -> HTMLResponse:  # fmt: skip
    unfinished = mocks.unfinished(session, user_id)
    return _new_page(request, templates, catalog, unfinished=unfinished)


def _new_page(
    request: Request, templates: TemplatesDep, catalog: CatalogDep, *,
    unfinished: MockSession | None = None, errors: dict[str, str] | None = None,
    values: Mapping[str, object] | None = None, status: int | None = None,
) -> HTMLResponse:  # fmt: skip
    """The new-session form; with errors, as sent back (422, or the refusal's own status)
    with what was typed."""
    context = {
        "presets": mocks.PRESETS,
        "question_range": mocks.QUESTIONS,
        "minute_range": mocks.MINUTES,
        "topics": catalog.topics,
        "unfinished": unfinished,
        "errors": errors or {},
        "values": values or {},
    }
    status = status or (422 if errors else 200)
    response = templates.TemplateResponse(request, "mock/new.html", context, status_code=status)
    return response


#: What the new-session form says beside a field MockIn refused.
FORM_ERRORS = {
    "questions": f"Choose a whole number from {mocks.QUESTIONS[0]} to {mocks.QUESTIONS[-1]}.",
    "minutes": f"Choose a whole number from {mocks.MINUTES[0]} to {mocks.MINUTES[-1]}.",
    "preset": "Choose one of the presets or a custom session.",
}


@router.post("/mock", include_in_schema=False)
def create_page(
    request: Request,
    templates: TemplatesDep,
    session: WriteSessionDep,
    catalog: CatalogDep,
    user_id: UserDep,
    now: NowDep,
    limits: QuotasDep,
    preset: Annotated[str, Form()] = "custom",
    questions: Annotated[str, Form()] = "",
    minutes: Annotated[str, Form()] = "",
    followups: Annotated[str | None, Form()] = None,
    grading: Annotated[str, Form()] = "each",
    topic: Annotated[list[CleanText] | None, Form()] = None,
) -> Response:
    custom = preset == "custom"  # a preset's own numbers win: the form's are not read
    form = {
        "preset": preset,
        "questions": questions if custom else None,
        "minutes": minutes if custom else None,
        "followups": not custom or followups is not None,
        "grade_after_each": grading != "end",
        "topics": topic or [],
    }
    errors: dict[str, str] = {}
    status = None
    try:
        body = MockIn.model_validate(form, strict=False)  # form fields arrive as text
        quotas.check_mock_session(session, user_id, now, limits)  # refused before any write
        mock = mocks.create(session, user_id, catalog, now, **body.model_dump())
        return RedirectResponse(f"/mock/{mock.id}", status_code=303)
    except ValidationError as error:
        for problem in error.errors():
            field = str(problem["loc"][0])
            errors.setdefault(field, FORM_ERRORS.get(field, problem["msg"]))
    except DomainError as error:
        errors["form"] = error.message
        status = error.status
    values = {"questions": questions, "minutes": minutes, "topic": topic or []}
    return _new_page(request, templates, catalog, errors=errors, values=values, status=status)


@router.get("/mock/history", response_class=HTMLResponse, include_in_schema=False)
def history_page(
    request: Request, templates: TemplatesDep, session: SessionDep, user_id: UserDep,
    catalog: CatalogDep,
) -> HTMLResponse:  # fmt: skip
    rows = reports.history(session, user_id, catalog)
    scored = [r for r in reversed(rows) if r.score is not None]
    return templates.TemplateResponse(
        request, "mock/history.html", {"rows": rows, "scored": scored}
    )


@router.get("/mock/{mock_id}", response_class=HTMLResponse, include_in_schema=False)
def session_page(
    request: Request,
    mock: OwnMockDep,
    templates: TemplatesDep,
    session: SessionDep,
    catalog: CatalogDep,
    field: GradingFieldDep,
    now: NowDep,
    error: str | None = None,
) -> Response:
    qs = mocks.as_of_all(mocks.questions(session, mock), now, catalog)  # a read: no writes
    step = mocks.current_step(mock, qs, now, catalog)
    if mock.status != "active" or step.kind == "finished":
        return RedirectResponse(f"/mock/{mock.id}/report", status_code=303)
    question = step.question
    card = catalog.card(question.card_id) if question else None
    grading = step.kind == "grade" and question is not None and card is not None
    said = transcripts.of_questions(session, [question]).get(question.id, []) if question else []
    spoken = transcripts.spoken(said)
    suggested = (
        mocks.suggestions(question, card, field, spoken) if grading and question and card else None
    )
    part = "followup" if step.kind == "followup" else "main"
    context = {
        "mock": mock,
        "questions": qs,
        "step": step,
        "question": question,
        "card": card,
        "remaining": mocks.remaining_seconds(question, now) if question else 0,
        "suggested": suggested.points if suggested else [],
        "reasons": suggested.reasons if suggested else {},
        "mistakes": suggested.mistakes if suggested else [],
        "mistake_reasons": suggested.mistake_reasons if suggested else {},
        "withheld": suggested.withheld if suggested else {},
        "undecided": suggested.unsure if suggested else [],
        "model_available": interviewer.Config.of(request.app.state.settings) is not None,
        "max_answer": mocks.MAX_ANSWER,
        "next_take": voice.next_take(session, question.id, part) if question else 1,
        "audio_max_mb": voice.MAX_BYTES // 2**20,
        "recordings": voice.by_question(session, mock).get(question.position, {})
        if question
        else {},
        # Beside each take: its transcript, when the server transcribes (else nothing).
        "transcribing": request.app.state.transcriber is not None,
        "transcripts": transcripts.by_take(said),
        "transcript_max": transcripts.MAX_TEXT,
        "followup_minutes": mocks.followup_minutes(mock.minutes_per_question),
        "pair_link": pairing.live_link(session, mock, now),
        # What a friend interviewing by link marked, beside the grader's suggestions.
        "interviewer_points": question.interviewer_points if grading and question else None,
        "interviewer_rating": question.interviewer_rating if grading and question else None,
        "rating_names": RATING_NAMES,
        "error": PAGE_ERRORS.get(error or ""),  # a code: a link cannot put words on the page
    }
    return templates.TemplateResponse(request, "mock/session.html", context)


@router.post("/mock/{mock_id}/delete", include_in_schema=False)
def delete_page(mock: MockToChangeDep, session: WriteSessionDep) -> RedirectResponse:
    voice.delete_session(session, mock)
    return RedirectResponse("/mock/history", status_code=303)


@router.post("/mock/{mock_id}/{action}", include_in_schema=False)
def act_page(
    mock_id: MockId,
    action: Literal["start", "submit", "grade", "abandon"],
    mock: MockToChangeDep,
    session: WriteSessionDep,
    catalog: CatalogDep,
    now: NowDep,
    fuzz: FuzzDep,
    text: Annotated[CleanText | None, Form()] = None,
    position: Annotated[int | None, Form(ge=1, le=100)] = None,
    part: Annotated[Literal["main", "followup"] | None, Form()] = None,
    point: Annotated[list[int] | None, Form()] = None,
    rating: Annotated[int | None, Form(ge=LOWEST_RATING, le=HIGHEST_RATING)] = None,
) -> RedirectResponse:
    """The page's forms; errors come back as a message on the session page."""
    if action == "submit" and (position is None or part is None):
        raise HTTPException(status_code=422, detail="Say which answer is submitted.")
    if action == "grade" and rating is None:
        return RedirectResponse(f"/mock/{mock_id}?error=rating", status_code=303)
    try:  # a refused step is rolled back whole (its savepoint), and the page says why
        with session.begin_nested():
            if action == "start":
                flow.start(session, mock, catalog, now, position)
            elif action == "submit":
                assert position is not None and part is not None  # checked above
                flow.submit(session, mock, catalog, now, position, part, text)
            elif action == "grade":
                assert rating is not None  # checked above
                flow.grade(session, mock, catalog, now, point or [], rating, position, fuzz=fuzz)
            else:
                flow.abandon(session, mock, catalog, now)
    except DomainError as error:
        return RedirectResponse(f"/mock/{mock_id}?error={page_error(error)}", status_code=303)
    target = f"/mock/{mock_id}/report" if action == "abandon" else f"/mock/{mock_id}"
    return RedirectResponse(target, status_code=303)


#: What the session page can say after a form failed, by the code in its ?error=.
PAGE_ERRORS = {
    "rating": "Choose a rating.",
    "time-up": "Time is up for this answer; the last saved text was kept.",
    "too-long": f"An answer can be at most {mocks.MAX_ANSWER:,} characters; nothing was cut "
    "and the last saved version is kept.",
    "invalid": "That could not be recorded: check the rubric points and the rating.",
    "card-gone": "This question's card is no longer in the content, so it cannot be graded: "
    "abandon this session and start a new one.",
    "not-now": "That cannot be done at this point of the session; the page shows where it is.",
}


def page_error(error: DomainError) -> str:
    """The PAGE_ERRORS code for a refused step."""
    if error.status == 422:
        return "too-long" if error.field == "text" else "invalid"
    return {"time_up": "time-up", "card_gone": "card-gone"}.get(error.code, "not-now")


@router.get("/mock/{mock_id}/report", response_class=HTMLResponse, include_in_schema=False)
def report_page(
    request: Request, mock: OwnMockDep, templates: TemplatesDep, session: SessionDep,
    catalog: CatalogDep,
) -> HTMLResponse:  # fmt: skip
    qs = mocks.questions(session, mock)
    built = reports.build(mock, qs, catalog)
    context = {
        "report": built,
        "recordings": voice.by_question(session, mock),
        "said": transcripts.said_by_position(session, qs),
    }
    return templates.TemplateResponse(request, "mock/report.html", context)

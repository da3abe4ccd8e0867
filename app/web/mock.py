"""Mock interviews over HTTP: JSON for scripts and the page's script, forms for everything."""

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Form, Header, HTTPException, Path, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app import locks
from app.content.catalog import Catalog
from app.mock import audio as voice
from app.mock import followup as followups
from app.mock import report as reports
from app.mock import sessions as mocks
from app.models import MockQuestion, MockSession
from app.srs import settings as srs_settings
from app.srs.days import as_utc
from app.web.deps import (
    CatalogDep,
    DatabaseDep,
    FuzzDep,
    NowDep,
    SessionDep,
    TemplatesDep,
    UserDep,
)
from app.web.text import CleanText

router = APIRouter()
MockId = Annotated[int, Path(ge=1, le=2**31 - 1, description="A mock session's number.")]
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "No such session of yours"}}


class MockIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # no silent coercion

    preset: Literal["infra", "lightning", "custom"] = "custom"
    questions: int | None = Field(default=None, ge=1, le=10)
    minutes: int | None = Field(default=None, ge=1, le=60)
    followups: bool = True
    grade_after_each: bool = True
    topics: list[CleanText] = []


class AnswerIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # no silent coercion

    part: Literal["main", "followup"]
    text: CleanText


class SubmitIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # no silent coercion

    position: int = Field(ge=1, le=100, description="The question submitted (1-based).")
    part: Literal["main", "followup"] = Field(description="The answer submitted.")
    text: CleanText | None = Field(
        default=None, description="The final text, saved before submitting."
    )


class StartIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # no silent coercion

    position: int | None = Field(
        default=None, ge=1, le=100,
        description="The question started; naming it makes a resent start change nothing.",
    )  # fmt: skip


class GradeIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # no silent coercion

    points: list[int] = Field(description="Indexes of the rubric points the answer made.")
    rating: int = Field(ge=1, le=4, description="1 Again, 2 Hard, 3 Good, 4 Easy.")
    position: int | None = Field(
        default=None, ge=1, le=100,
        description="The question graded; naming it makes a resent grade change nothing.",
    )  # fmt: skip


class QuestionOut(BaseModel):
    """One question; one not yet started shows nothing of itself, so it stays a surprise."""

    position: int
    card_id: str | None
    topic: str | None
    phase: str
    question_html: str
    answer: str
    followup: str | None
    followup_probes: list[int] | None = Field(
        description="The rubric points (0-based) the follow-up asked probes, once it is asked."
    )
    followup_reason: str | None = Field(
        description="Why this follow-up was asked: the first point the main answer missed "
        "that a follow-up probes, or the hardest follow-up when none was missed."
    )
    followup_answer: str
    started_at: datetime | None
    deadline: datetime | None
    followup_deadline: datetime | None
    suggested_points: list[int] | None = Field(
        description="The rubric points the answers seem to make: while the question waits to "
        "be graded, from the main and follow-up answers; afterwards, as they were suggested."
    )
    suggested_reasons: dict[int, str] | None = Field(
        description="While the question waits to be graded: for each suggested point, the "
        "words of the answers that made it."
    )
    confirmed_points: list[int] | None
    rating: int | None


class MockOut(BaseModel):
    id: int
    preset: str
    status: str
    step: str
    current: int | None
    remaining_seconds: float | None
    minutes_per_question: int
    followups: bool
    grade_after_each: bool
    questions: list[QuestionOut]


class SavedOut(BaseModel):
    saved_at: datetime
    remaining_seconds: float


def _fail(error: mocks.MockError) -> HTTPException:
    if isinstance(error, voice.TooLarge):
        return HTTPException(status_code=413, detail=str(error).removeprefix("audio: "))
    if isinstance(error, voice.AudioRefused):
        message = str(error).removeprefix("audio: ")
        detail = [{"loc": ["body"], "msg": message, "type": "value_error"}]
        return HTTPException(status_code=422, detail=detail)
    if isinstance(error, mocks.TooLate):
        return HTTPException(status_code=409, detail=str(error))
    field, _, message = str(error).partition(": ")
    if message and field in {"questions", "minutes", "topics", "points", "rating", "text"}:
        detail = [{"loc": ["body", field], "msg": message, "type": "value_error"}]
        return HTTPException(status_code=422, detail=detail)
    return HTTPException(status_code=409, detail=str(error))


@contextmanager
def _writing(database: Any, user_id: int, mock_id: int) -> Iterator[tuple[Session, MockSession]]:
    with database.write_session() as session:
        locks.take_turn(session, user_id)  # on PostgreSQL, one change to a user's mocks at a time
        mock = mocks.load(session, user_id, mock_id)
        if mock is None:
            raise HTTPException(status_code=404, detail=f"No mock session {mock_id} of yours.")
        yield session, mock


def _out(mock: MockSession, qs: list[MockQuestion], catalog: Catalog, now: datetime) -> MockOut:
    step = mocks.current_step(mock, qs, now, catalog)
    items = []
    for q in qs:
        asked = q.started_at is not None
        card = catalog.card(q.card_id) if asked else None
        followup = q.followup if q.submitted_at else None
        probes, reason = (
            followups.explain(card, q.answer, followup) if card and followup else (None, None)
        )
        suggested, reasons = q.suggested_points, None
        if card and mocks.phase(q) == "grading":
            check = mocks.suggestions(q, card)
            suggested, reasons = check.points, check.reasons
        items.append(
            QuestionOut(
                position=q.position,
                card_id=q.card_id if asked else None,
                topic=card.topic_slug if card else None,
                phase=mocks.phase(q),
                question_html=card.question_html if card else "",
                answer=q.answer,
                followup=followup,
                followup_probes=probes,
                followup_reason=reason,
                followup_answer=q.followup_answer or "",
                started_at=q.started_at and as_utc(q.started_at),
                deadline=q.deadline and as_utc(q.deadline),
                followup_deadline=q.followup_deadline and as_utc(q.followup_deadline),
                suggested_points=suggested,
                suggested_reasons=reasons,
                confirmed_points=q.confirmed_points,
                rating=q.rating,
            )
        )
    current = step.question
    status = mock.status
    return MockOut(
        id=mock.id,
        preset=mock.preset,
        status=status,
        step=step.kind if status == "active" else status,
        current=current.position if current and status == "active" else None,
        remaining_seconds=mocks.remaining_seconds(current, now) if current else None,
        minutes_per_question=mock.minutes_per_question,
        followups=mock.followups,
        grade_after_each=mock.grade_after_each,
        questions=items,
    )


def _create(
    database: Any, user_id: int, catalog: Catalog, now: datetime, body: MockIn
) -> MockSession:
    preset = mocks.PRESETS.get(body.preset)
    count = preset.questions if preset else body.questions
    minutes = preset.minutes if preset else body.minutes
    if count is None or minutes is None:
        detail = [
            {"loc": ["body", "questions" if count is None else "minutes"],
             "msg": "a custom session needs questions and minutes", "type": "missing"}
        ]  # fmt: skip
        raise HTTPException(status_code=422, detail=detail)
    try:
        with database.write_session() as session:
            return mocks.create(
                session, user_id, catalog, now, preset=body.preset, count=count,
                minutes=minutes, followups=body.followups,
                grade_after_each=body.grade_after_each, topics=body.topics,
            )  # fmt: skip
    except mocks.MockError as error:
        raise _fail(error) from None


# --- JSON ----------------------------------------------------------------------------------


@router.post("/api/mock", status_code=201, tags=["mock"])
def create_api(
    body: MockIn, database: DatabaseDep, catalog: CatalogDep, user_id: UserDep, now: NowDep
) -> MockOut:
    """Start a session: a preset ("infra": 4 × 10 min; "lightning": 6 × 3 min) or custom."""
    mock = _create(database, user_id, catalog, now, body)
    with database.read_session() as session:
        return _out(mock, mocks.questions(session, mock), catalog, now)


@router.get("/api/mock", tags=["mock"])
def history_api(session: SessionDep, user_id: UserDep, catalog: CatalogDep) -> list[dict[str, Any]]:
    """Your sessions, newest first, with their scores."""
    return [
        {
            "id": row.mock.id,
            "preset": row.mock.preset,
            "status": row.mock.status,
            "created_at": as_utc(row.mock.created_at).isoformat(),
            "score": row.score,
            "questions": row.planned,
        }
        for row in _history(session, user_id, catalog)
    ]


@router.get("/api/mock/{mock_id}", tags=["mock"], responses=NOT_FOUND)
def get_api(
    mock_id: MockId, session: SessionDep, user_id: UserDep, catalog: CatalogDep, now: NowDep
) -> MockOut:
    mock = mocks.load(session, user_id, mock_id)
    if mock is None:
        raise HTTPException(status_code=404, detail=f"No mock session {mock_id} of yours.")
    return _out(mock, mocks.questions(session, mock), catalog, now)


def _act(
    database: Any, user_id: int, mock_id: int, catalog: Catalog, now: datetime, action: str,
    body: Any = None, fuzz: bool = True,
) -> MockOut:  # fmt: skip
    """Apply one action to the session's current question, in one write transaction."""
    try:
        with _writing(database, user_id, mock_id) as (session, mock):
            qs = mocks.questions(session, mock)
            step = mocks.current_step(mock, qs, now, catalog)
            question = step.question
            # A resent submit or grade (a double click, a retry) returns the session as the
            # first one left it; one naming another question or part than the waiting one
            # is refused rather than applied to the wrong one.
            position, part = getattr(body, "position", None), getattr(body, "part", None)
            if mocks.already_done(qs, action, position, part) or (
                action == "abandon" and mock.status == "abandoned"
            ):
                return _out(mock, qs, catalog, now)
            mocks.check_target(step, action, position, part)
            if mock.status != "active":
                raise mocks.MockError(f"this session is {mock.status}")
            if action == "abandon":
                mocks.abandon(mock, now)
            elif question is None:
                raise mocks.MockError("every question is done: see the report")
            elif action == "start":
                if step.kind != "start":
                    raise mocks.MockError(f"finish question {question.position} first")
                mocks.start(question, mock.minutes_per_question, now)
            elif action == "submit":
                if body is not None and body.text is not None:
                    mocks.save(question, body.part, body.text, now)
                mocks.submit(question, now, catalog.card(question.card_id))
            elif action == "grade":
                if step.kind != "grade":
                    raise mocks.MockError("no question is waiting to be graded")
                card = catalog.card(question.card_id)
                if card is None:  # removed from the content since the session began
                    raise mocks.MockError(
                        f"question {question.position} asks card {question.card_id!r}, which "
                        "is no longer in the content, so it cannot be graded: abandon this "
                        "session and start a new one"
                    )
                review_settings = srs_settings.load(session, user_id)
                mocks.grade(
                    session, mock, question, card, body.points, body.rating, now,
                    desired_retention=review_settings.desired_retention, fuzz=fuzz,
                    parameters=review_settings.fsrs_parameters,
                )  # fmt: skip
            session.flush()
            return _out(mock, mocks.questions(session, mock), catalog, now)
    except mocks.MockError as error:
        raise _fail(error) from None


@router.post("/api/mock/{mock_id}/start", tags=["mock"], responses=NOT_FOUND)
def start_api(
    mock_id: MockId, database: DatabaseDep, user_id: UserDep, catalog: CatalogDep, now: NowDep,
    body: Annotated[StartIn | None, Body()] = None,
) -> MockOut:  # fmt: skip
    """Start the next question: its deadline is fixed now, on the server."""
    return _act(database, user_id, mock_id, catalog, now, "start", body)


@router.put("/api/mock/{mock_id}/answer", tags=["mock"], responses=NOT_FOUND)
def save_api(
    mock_id: MockId, body: AnswerIn, database: DatabaseDep, user_id: UserDep,
    catalog: CatalogDep, now: NowDep,
) -> SavedOut:  # fmt: skip
    """Autosave the answer being written.

    409 once the deadline and a short grace have passed: the last saved text is kept.
    """
    try:
        with _writing(database, user_id, mock_id) as (session, mock):
            qs = mocks.questions(session, mock)
            step = mocks.current_step(mock, qs, now, catalog)
            if step.question is None or step.kind not in ("answer", "followup"):
                raise mocks.TooLate("nothing is being answered now; the last saved text was kept")
            mocks.save(step.question, body.part, body.text, now)
            return SavedOut(
                saved_at=now, remaining_seconds=mocks.remaining_seconds(step.question, now)
            )
    except mocks.MockError as error:
        raise _fail(error) from None


@router.post("/api/mock/{mock_id}/submit", tags=["mock"], responses=NOT_FOUND)
def submit_api(
    mock_id: MockId,
    body: SubmitIn,
    database: DatabaseDep,
    user_id: UserDep,
    catalog: CatalogDep,
    now: NowDep,
) -> MockOut:
    """Hand in the current answer; the follow-up, if any, starts with its own clock."""
    return _act(database, user_id, mock_id, catalog, now, "submit", body)


@router.post("/api/mock/{mock_id}/grade", tags=["mock"], responses=NOT_FOUND)
def grade_api(
    mock_id: MockId,
    body: GradeIn,
    database: DatabaseDep,
    user_id: UserDep,
    catalog: CatalogDep,
    now: NowDep,
    fuzz: FuzzDep,
) -> MockOut:
    """Confirm the rubric points made and rate the answer (an FSRS review, source "mock")."""
    return _act(database, user_id, mock_id, catalog, now, "grade", body, fuzz)


@router.post("/api/mock/{mock_id}/abandon", tags=["mock"], responses=NOT_FOUND)
def abandon_api(
    mock_id: MockId, database: DatabaseDep, user_id: UserDep, catalog: CatalogDep, now: NowDep
) -> MockOut:
    return _act(database, user_id, mock_id, catalog, now, "abandon")


@router.delete("/api/mock/{mock_id}", status_code=204, tags=["mock"], responses=NOT_FOUND)
def delete_api(mock_id: MockId, database: DatabaseDep, user_id: UserDep) -> Response:
    """Delete a session with its answers and their recordings; its reviews stay in the log."""
    with _writing(database, user_id, mock_id) as (session, mock):
        voice.delete_session(session, mock)
    return Response(status_code=204)


# --- spoken answers -------------------------------------------------------------------------

Position = Annotated[int, Path(ge=1, le=100, description="The question (1-based).")]
Part = Annotated[Literal["main", "followup"], Path(description="The answer recorded.")]
TakeNo = Annotated[int, Path(ge=1, le=voice.MAX_TAKES, description="One recording, 1-based.")]
Seq = Annotated[int, Path(ge=0, le=voice.MAX_SEQ, description="The chunk's number, from 0.")]
AUDIO_ERRORS: dict[int | str, dict[str, Any]] = {
    **NOT_FOUND,
    409: {"description": "No such question in this session"},
    413: {"description": "Past the size cap of an answer's audio, or of one chunk"},
    415: {"description": "Not audio/webm, audio/ogg or audio/mp4"},
}


class ChunkOut(BaseModel):
    stored: bool = Field(description="False when this chunk was already here (a resend).")
    bytes_total: int = Field(description="The answer's audio so far, every take together.")
    chunks: int
    max_bytes: int


def _store_chunk(
    database: Any, user_id: int, mock_id: int, position: int, part: str, take: int, seq: int,
    mime: str, data: bytes, now: datetime, catalog: Catalog,
) -> ChunkOut:  # fmt: skip
    try:
        with _writing(database, user_id, mock_id) as (session, mock):
            question = next((q for q in mocks.questions(session, mock) if q.position == position),
                            None)  # fmt: skip
            if question is None:
                raise HTTPException(
                    status_code=409, detail=f"This session has no question {position}."
                )
            mocks.settle(question, now, catalog.card(question.card_id))
            stored = voice.add_chunk(session, question, part, take, seq, mime, data, now)
            return ChunkOut(
                stored=stored.stored, bytes_total=stored.bytes_total, chunks=stored.chunks,
                max_bytes=voice.MAX_BYTES,
            )  # fmt: skip
    except mocks.MockError as error:
        raise _fail(error) from None


@router.put(
    "/api/mock/{mock_id}/audio/{position}/{part}/{take}/{seq}",
    tags=["mock"],
    responses=AUDIO_ERRORS,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {t: {"schema": {"type": "string", "format": "binary"}} for t in voice.TYPES},
        }
    },
)
async def audio_chunk_api(
    request: Request, mock_id: MockId, position: Position, part: Part, take: TakeNo, seq: Seq,
    database: DatabaseDep, user_id: UserDep, now: NowDep, catalog: CatalogDep,
) -> ChunkOut:  # fmt: skip
    """Upload one chunk of a spoken answer, as the recorder produced it.

    Chunks of a take are numbered from 0 and joined in order; a chunk resent with a number
    already stored changes nothing (`stored` is false). 413 past the answer's size cap, 422
    once the answer's time (plus a short grace) is over: what was stored before is kept.
    """
    mime = voice.media_type(request.headers.get("content-type"))
    if mime is None:
        raise HTTPException(status_code=415, detail="Send audio/webm, audio/ogg or audio/mp4.")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > voice.MAX_CHUNK_BYTES:
        raise HTTPException(
            status_code=413, detail=f"A chunk may hold at most {voice.MAX_CHUNK_BYTES // 2**20} MB."
        )
    data = bytearray()
    async for piece in request.stream():
        data.extend(piece)
        if len(data) > voice.MAX_CHUNK_BYTES:
            raise HTTPException(
                status_code=413,
                detail=f"A chunk may hold at most {voice.MAX_CHUNK_BYTES // 2**20} MB.",
            )
    return await run_in_threadpool(
        _store_chunk, database, user_id, mock_id, position, part, take, seq, mime, bytes(data),
        now, catalog,
    )  # fmt: skip


@router.get(
    "/api/mock/{mock_id}/audio/{position}/{part}/{take}",
    tags=["mock"],
    response_class=Response,
    responses={
        200: {"content": {t: {} for t in voice.TYPES}, "description": "The recording."},
        206: {"content": {t: {} for t in voice.TYPES}, "description": "The range asked for."},
        404: {"description": "No such recording of yours"},
        416: {"description": "A range outside the recording"},
    },
)
def audio_api(
    mock_id: MockId, position: Position, part: Part, take: TakeNo, session: SessionDep,
    user_id: UserDep,
    range_: Annotated[str | None, Header(alias="range", max_length=100)] = None,
) -> Response:  # fmt: skip
    """A recorded answer, to play back; only its owner gets it (anyone else: 404).

    One byte range (`Range: bytes=0-1023`) is honoured, as Safari's player asks for it.
    """
    mock = mocks.load(session, user_id, mock_id)
    question = (
        next((q for q in mocks.questions(session, mock) if q.position == position), None)
        if mock
        else None
    )
    mime, data = voice.take_audio(session, question.id, part, take) if question else ("", b"")
    if not data:
        raise HTTPException(status_code=404, detail="No such recording of yours.")
    headers = {"Content-Disposition": "inline", "Accept-Ranges": "bytes"}
    wanted = voice.byte_range(range_, len(data)) if range_ else None
    if wanted is None:
        return Response(data, media_type=mime, headers=headers)
    if wanted == (-1, -1):
        return Response(
            status_code=416, headers={**headers, "Content-Range": f"bytes */{len(data)}"}
        )
    first, last = wanted
    headers["Content-Range"] = f"bytes {first}-{last}/{len(data)}"
    return Response(data[first : last + 1], status_code=206, media_type=mime, headers=headers)


# --- pages ---------------------------------------------------------------------------------


def _history(session: Session, user_id: int, catalog: Catalog) -> list[reports.Report]:
    rows = session.scalars(
        select(MockSession)
        .where(MockSession.user_id == user_id)
        .order_by(MockSession.created_at.desc(), MockSession.id.desc())
    )
    return [reports.build(m, mocks.questions(session, m), catalog) for m in rows]


@router.get("/mock", response_class=HTMLResponse, include_in_schema=False)
def start_page(
    request: Request, templates: TemplatesDep, catalog: CatalogDep, session: SessionDep,
    user_id: UserDep,
) -> HTMLResponse:  # fmt: skip
    context = {
        "presets": mocks.PRESETS,
        "topics": catalog.topics,
        "unfinished": mocks.unfinished(session, user_id),
        "errors": {},
        "values": {},
    }
    return templates.TemplateResponse(request, "mock/new.html", context)


@router.post("/mock", include_in_schema=False)
def create_page(
    request: Request,
    templates: TemplatesDep,
    database: DatabaseDep,
    catalog: CatalogDep,
    user_id: UserDep,
    now: NowDep,
    preset: Annotated[str, Form()] = "custom",
    questions: Annotated[str, Form()] = "",
    minutes: Annotated[str, Form()] = "",
    followups: Annotated[str | None, Form()] = None,
    grading: Annotated[str, Form()] = "each",
    topic: Annotated[list[CleanText] | None, Form()] = None,
) -> Response:
    values = {"questions": questions, "minutes": minutes, "topic": topic or []}
    errors: dict[str, str] = {}
    numbers: dict[str, int] = {}
    if preset == "custom":
        for name, text, top in (("questions", questions, 10), ("minutes", minutes, 60)):
            if not text.strip().isdigit() or not 1 <= int(text) <= top:
                errors[name] = f"Choose a whole number from 1 to {top}."
            else:
                numbers[name] = int(text)
    elif preset not in mocks.PRESETS:
        errors["preset"] = "Choose one of the presets or a custom session."
    if not errors:
        body = MockIn.model_validate(
            {
                "preset": preset if preset in mocks.PRESETS else "custom",
                "questions": numbers.get("questions"),
                "minutes": numbers.get("minutes"),
                "followups": preset != "custom" or followups is not None,
                "grade_after_each": grading != "end",
                "topics": topic or [],
            }
        )
        try:
            mock = _create(database, user_id, catalog, now, body)
            return RedirectResponse(f"/mock/{mock.id}", status_code=303)
        except HTTPException as error:
            errors["form"] = _message(error)
    context = {
        "presets": mocks.PRESETS,
        "topics": catalog.topics,
        "unfinished": None,
        "errors": errors,
        "values": values,
    }
    return templates.TemplateResponse(request, "mock/new.html", context, status_code=422)


def _message(error: HTTPException) -> str:
    detail = error.detail
    if isinstance(detail, list):
        return "; ".join(str(d.get("msg", "")) for d in detail)
    return str(detail)


@router.get("/mock/history", response_class=HTMLResponse, include_in_schema=False)
def history_page(
    request: Request, templates: TemplatesDep, session: SessionDep, user_id: UserDep,
    catalog: CatalogDep,
) -> HTMLResponse:  # fmt: skip
    rows = _history(session, user_id, catalog)
    scored = [r for r in reversed(rows) if r.score is not None]
    return templates.TemplateResponse(
        request, "mock/history.html", {"rows": rows, "scored": scored}
    )


def _recordings(session: Session, mock: MockSession) -> dict[int, dict[str, list[voice.Take]]]:
    """The session's recordings by question position, then part."""
    out: dict[int, dict[str, list[voice.Take]]] = {}
    for take in voice.takes(session, mock):
        out.setdefault(take.position, {}).setdefault(take.part, []).append(take)
    return out


@router.get("/mock/{mock_id}", response_class=HTMLResponse, include_in_schema=False)
def session_page(
    request: Request,
    mock_id: MockId,
    templates: TemplatesDep,
    session: SessionDep,
    user_id: UserDep,
    catalog: CatalogDep,
    now: NowDep,
    error: str | None = None,
) -> Response:
    mock = mocks.load(session, user_id, mock_id)
    if mock is None:
        raise HTTPException(status_code=404, detail=f"No mock session {mock_id} of yours.")
    qs = mocks.questions(session, mock)
    step = mocks.current_step(mock, qs, now, catalog)
    if mock.status != "active" or step.kind == "finished":
        return RedirectResponse(f"/mock/{mock.id}/report", status_code=303)
    question = step.question
    card = catalog.card(question.card_id) if question else None
    grading = step.kind == "grade" and question is not None and card is not None
    suggested = mocks.suggestions(question, card) if grading and question and card else None
    context = {
        "mock": mock,
        "questions": qs,
        "step": step,
        "question": question,
        "card": card,
        "remaining": mocks.remaining_seconds(question, now) if question else 0,
        "suggested": suggested.points if suggested else [],
        "reasons": suggested.reasons if suggested else {},
        "max_answer": mocks.MAX_ANSWER,
        "next_take": voice.next_take(
            session, question.id, "followup" if step.kind == "followup" else "main"
        )
        if question
        else 1,
        "audio_max_mb": voice.MAX_BYTES // 2**20,
        "recordings": _recordings(session, mock).get(question.position, {}) if question else {},
        "followup_minutes": mocks.followup_minutes(mock.minutes_per_question),
        "error": PAGE_ERRORS.get(error or ""),  # a code: a link cannot put words on the page
    }
    return templates.TemplateResponse(request, "mock/session.html", context)


@router.post("/mock/{mock_id}/delete", include_in_schema=False)
def delete_page(mock_id: MockId, database: DatabaseDep, user_id: UserDep) -> RedirectResponse:
    with _writing(database, user_id, mock_id) as (session, mock):
        voice.delete_session(session, mock)
    return RedirectResponse("/mock/history", status_code=303)


@router.post("/mock/{mock_id}/{action}", include_in_schema=False)
def act_page(
    mock_id: MockId,
    action: Literal["start", "submit", "grade", "abandon"],
    database: DatabaseDep,
    user_id: UserDep,
    catalog: CatalogDep,
    now: NowDep,
    fuzz: FuzzDep,
    text: Annotated[CleanText | None, Form()] = None,
    position: Annotated[int | None, Form(ge=1, le=100)] = None,
    part: Annotated[Literal["main", "followup"] | None, Form()] = None,
    point: Annotated[list[int] | None, Form()] = None,
    rating: Annotated[int | None, Form(ge=1, le=4)] = None,
) -> RedirectResponse:
    """The page's forms; errors come back as a message on the session page."""
    body: Any = StartIn(position=position) if action == "start" else None
    if action == "submit":
        if position is None or part is None:
            raise HTTPException(status_code=422, detail="Say which answer is submitted.")
        body = SubmitIn(position=position, part=part, text=text)
    elif action == "grade":
        if rating is None:
            return RedirectResponse(f"/mock/{mock_id}?error=rating", status_code=303)
        body = GradeIn(points=point or [], rating=rating, position=position)
    try:
        _act(database, user_id, mock_id, catalog, now, action, body, fuzz)
    except HTTPException as error:
        if error.status_code == 404:
            raise
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


def page_error(error: HTTPException) -> str:
    """The PAGE_ERRORS code for a refused action."""
    text = _message(error)
    if error.status_code == 422:
        return "too-long" if "characters" in text else "invalid"
    if "last saved text was kept" in text:
        return "time-up"
    return "card-gone" if "no longer in the content" in text else "not-now"


@router.get("/mock/{mock_id}/report", response_class=HTMLResponse, include_in_schema=False)
def report_page(
    request: Request, mock_id: MockId, templates: TemplatesDep, session: SessionDep,
    user_id: UserDep, catalog: CatalogDep,
) -> HTMLResponse:  # fmt: skip
    mock = mocks.load(session, user_id, mock_id)
    if mock is None:
        raise HTTPException(status_code=404, detail=f"No mock session {mock_id} of yours.")
    built = reports.build(mock, mocks.questions(session, mock), catalog)
    return templates.TemplateResponse(
        request, "mock/report.html", {"report": built, "recordings": _recordings(session, mock)}
    )


@router.get("/api/mock/{mock_id}/report", tags=["mock"], responses=NOT_FOUND)
def report_api(
    mock_id: MockId, session: SessionDep, user_id: UserDep, catalog: CatalogDep
) -> dict[str, Any]:
    """Per question: time used, rubric coverage, rating; the session score; weak spots."""
    mock = mocks.load(session, user_id, mock_id)
    if mock is None:
        raise HTTPException(status_code=404, detail=f"No mock session {mock_id} of yours.")
    built = reports.build(mock, mocks.questions(session, mock), catalog)
    return {
        "id": mock.id,
        "status": mock.status,
        "score": built.score,
        "questions": [
            {
                "position": q.position,
                "card_id": q.card.id,
                "topic": q.card.topic_slug,
                "seconds_used": q.seconds_used,
                "followup_seconds_used": q.followup_seconds_used,
                "followup": q.followup,
                "followup_probes": q.followup_probes,
                "followup_reason": q.followup_reason,
                "points_made": q.points_made,
                "points_total": q.points_total,
                "coverage": q.coverage,
                "rating": q.rating,
            }
            for q in built.questions
        ],
        "weakest_topics": [
            {"topic": slug, "title": title, "coverage": cov}
            for slug, title, cov in built.weakest_topics
        ],
    }

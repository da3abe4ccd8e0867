"""Spoken mock answers over HTTP: chunks uploaded as the recorder makes them, playback, and
what was said (each take's transcript, when the server transcribes)."""

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, HTTPException, Path, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app import quotas
from app.content.catalog import Catalog
from app.db import Database
from app.mock import audio as voice
from app.mock import flow, transcripts
from app.mock import sessions as mocks
from app.models import MockQuestion, MockSession
from app.quotas import Quotas
from app.web.deps import (
    CatalogDep,
    DatabaseDep,
    NowDep,
    QuotasDep,
    SessionDep,
    UserDep,
    WriteSessionDep,
)
from app.web.mock.deps import NOT_FOUND, MockId, MockToChangeDep, OwnMockDep, writing
from app.web.mock.schemas import TranscriptIn, TranscriptOut

router = APIRouter()

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
CHUNK_TOO_LARGE = f"A chunk may hold at most {voice.MAX_CHUNK_BYTES // 2**20} MB."


class ChunkOut(BaseModel):
    stored: bool = Field(description="False when this chunk was already here (a resend).")
    bytes_total: int = Field(description="The answer's audio so far, every take together.")
    chunks: int
    max_bytes: int


def _store_chunk(
    database: Database, user_id: int, mock_id: int, position: int, part: str, take: int,
    seq: int, mime: str, data: bytes, now: datetime, catalog: Catalog, limits: Quotas,
) -> ChunkOut:  # fmt: skip
    with writing(database, user_id, mock_id) as (session, mock):
        quotas.check_audio(session, user_id, len(data), limits)
        stored = flow.record(session, mock, catalog, now, position, part, take, seq, mime, data)
    return ChunkOut(
        stored=stored.stored, bytes_total=stored.bytes_total, chunks=stored.chunks,
        max_bytes=voice.MAX_BYTES,
    )  # fmt: skip


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
    database: DatabaseDep, user_id: UserDep, now: NowDep, catalog: CatalogDep, limits: QuotasDep,
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
        raise HTTPException(status_code=413, detail=CHUNK_TOO_LARGE)
    data = bytearray()
    async for piece in request.stream():
        data.extend(piece)
        if len(data) > voice.MAX_CHUNK_BYTES:
            raise HTTPException(status_code=413, detail=CHUNK_TOO_LARGE)
    return await run_in_threadpool(
        _store_chunk, database, user_id, mock_id, position, part, take, seq, mime, bytes(data),
        now, catalog, limits,
    )  # fmt: skip


# A recording is media, never a document: even opened on its own, it runs nothing and loads
# nothing (the sandbox), and no other site may embed it.
MEDIA_HEADERS = {
    "Content-Security-Policy": "sandbox; default-src 'none'",
    "Cross-Origin-Resource-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
}


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
    mime, data = voice.recording(session, user_id, mock_id, position, part, take)
    if not data:
        raise HTTPException(status_code=404, detail="No such recording of yours.")
    mime = voice.media_type(mime) or "application/octet-stream"  # a row stored before the
    # strict grammar is served as bytes, never as a type a browser would run
    headers = {"Content-Disposition": "inline", "Accept-Ranges": "bytes", **MEDIA_HEADERS}
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


# --- transcripts ----------------------------------------------------------------------------

TRANSCRIPT_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"description": "No such session, question or recording of yours"},
    409: {"description": "This server transcribes nothing (RINGSIDE_TRANSCRIBE_URL is unset)"},
}
# Beside the audio's path, not under it: PUT …/audio/{position}/{part}/{take}/{seq} is a chunk.
TRANSCRIPT_PATH = "/api/mock/{mock_id}/transcripts/{position}/{part}/{take}"


def _queue(
    request: Request, database: Database, user_id: int, mock_id: int, position: int, part: str,
    take: int, now: datetime,
) -> TranscriptOut:  # fmt: skip
    worker: transcripts.Worker | None = request.app.state.transcriber
    if worker is None:
        raise HTTPException(
            status_code=409,
            detail="This server transcribes nothing: RINGSIDE_TRANSCRIBE_URL is unset.",
        )
    with writing(database, user_id, mock_id) as (session, mock):
        row = transcripts.request(session, mock, position, part, take, now)
        out = TranscriptOut.of(row)
    worker.wake()  # committed: the worker sees the row; this request does not wait for it
    return out


@router.post(TRANSCRIPT_PATH, status_code=202, tags=["mock"], responses=TRANSCRIPT_ERRORS)
def transcribe_api(
    request: Request, mock_id: MockId, position: Position, part: Part, take: TakeNo,
    database: DatabaseDep, user_id: UserDep, now: NowDep,
) -> TranscriptOut:  # fmt: skip
    """Transcribe a take, once its last chunk is uploaded: it is queued ("pending") and
    transcribed in the background; GET it to see when it is done. A take already queued or
    transcribed is left as it is; a failed one is queued again."""
    return _queue(request, database, user_id, mock_id, position, part, take, now)


@router.post(
    TRANSCRIPT_PATH + "/retry", status_code=202, tags=["mock"], responses=TRANSCRIPT_ERRORS
)
def retry_transcript_api(
    request: Request, mock_id: MockId, position: Position, part: Part, take: TakeNo,
    database: DatabaseDep, user_id: UserDep, now: NowDep,
) -> TranscriptOut:  # fmt: skip
    """Try a failed transcription again: the same as POST on the transcript itself."""
    return _queue(request, database, user_id, mock_id, position, part, take, now)


@router.get(TRANSCRIPT_PATH, tags=["mock"], responses=TRANSCRIPT_ERRORS)
def transcript_api(
    mock: OwnMockDep, position: Position, part: Part, take: TakeNo, session: SessionDep
) -> TranscriptOut:
    """A take's transcript and its state (pending, done, failed)."""
    question = voice_question(session, mock, position)
    rows = transcripts.of_questions(session, [question]).get(question.id, [])
    row = transcripts.by_take(rows).get((part, take))
    if row is None:
        raise HTTPException(status_code=404, detail="This recording has no transcript.")
    return TranscriptOut.of(row)


@router.put(TRANSCRIPT_PATH, tags=["mock"], responses=TRANSCRIPT_ERRORS)
def edit_transcript_api(
    body: TranscriptIn, mock: MockToChangeDep, position: Position, part: Part, take: TakeNo,
    session: WriteSessionDep, now: NowDep,
) -> TranscriptOut:  # fmt: skip
    """Correct what was said: your text replaces the transcript (a transcription still under
    way is dropped) and is graded with the typed answer. 422 past the answer's length."""
    return TranscriptOut.of(transcripts.edit(session, mock, position, part, take, body.text, now))


def voice_question(session: Session, mock: MockSession, position: int) -> MockQuestion:
    question = mocks.question_at(session, mock, position)
    if question is None:
        raise HTTPException(status_code=404, detail=f"This session has no question {position}.")
    return question

"""Spoken answers: the browser records a mock answer and uploads it in chunks as it goes.

Where the audio lives: in the database (table mock_audio_chunks), not under the data folder.
With PostgreSQL several app processes may serve one user; a file written under one
process's data folder is not there for the replica that serves the report, while a row is
seen by all of them, is backed up with everything else, and goes with its mock session by a
foreign-key cascade (deleting the session, or the user, deletes the audio). Opus at the
bitrate the page asks for is about 4 kB a second, so a ten-minute answer is ~2.4 MB: small
enough for a bytea or BLOB column.

How it arrives: a take (one recording, start to stop) of one part (main or follow-up) is sent
as numbered chunks every few seconds, so a closed tab or a dropped connection loses at most
the last few seconds. A chunk resent with a number already stored changes nothing. The take's
audio is its chunks joined in order: the recorder's first chunk carries the container's
header and the rest continue it.

Limits, per answer (one part of one question, all its takes together):
- size: MAX_BYTES (413 past it), and MAX_CHUNK_BYTES per chunk;
- duration: the answer's own clock. A chunk is taken from the moment the part starts until
  its deadline (or its submission, if sooner) plus the same grace the typed answer gets;
  later chunks are refused (422) and what was recorded before is kept.

An abandoned session keeps its audio, as it keeps its typed answers: its report still shows
what was said. The audio goes when the session is deleted.
"""

import base64
import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.errors import DomainError, FieldError, TooLargeError
from app.mock import live, webm
from app.mock import sessions as mocks
from app.models import MockAudioChunk, MockQuestion, MockSession
from app.srs.days import as_utc

MAX_BYTES = 20 * 1024 * 1024  # per answer (question and part), every take together
MAX_CHUNK_BYTES = 2 * 1024 * 1024
MAX_TAKES = 20  # per answer: a reload or a second thought starts a new take
MAX_SEQ = 100_000
TYPES = ("audio/webm", "audio/ogg", "audio/mp4")  # what MediaRecorder produces in browsers
PARTS = ("main", "followup")
_RANGE = re.compile(r"bytes=([0-9]{0,15})-([0-9]{0,15})", re.IGNORECASE)


def size_text(n: int) -> str:
    """A byte count for people: "20 MB", "512 kB", "10 bytes"."""
    if n >= 2**20:
        return f"{n / 2**20:.3g} MB"
    return f"{n / 1024:.3g} kB" if n >= 1024 else f"{n} bytes"


class TooLarge(TooLargeError):
    """Past the size cap: 413."""

    def __init__(self, message: str) -> None:
        super().__init__(message, field="audio")


class AudioRefused(DomainError):
    """Past the answer's time, or not an answer being given: 422, about the body as a whole
    (it is the audio itself, not a field of it, that comes at the wrong time)."""

    status = 422

    def __init__(self, message: str) -> None:
        super().__init__(None, message, "value_error")


# One codec name as RFC 6381 writes them ("opus", "vorbis", "mp4a.40.2", "avc1.42E01E"):
# no slash, no quote, no space, so nothing after it can be read as another MIME type.
_CODEC = r"[A-Za-z0-9]+(?:\.[A-Za-z0-9]+)*"
_CODECS = re.compile(rf'codecs=(?P<q>"?)(?P<list>{_CODEC}(?:,{_CODEC}){{0,3}})(?P=q)', re.I)


def media_type(content_type: str | None) -> str | None:
    """The stored type, e.g. "audio/webm;codecs=opus", or None when it is not audio we keep.

    Only audio/webm, audio/ogg and audio/mp4, with at most a `codecs=` parameter of codec
    names: anything else is refused, never trimmed, because a browser reads the last type of a
    comma list ("audio/webm;codecs=x,text/html" is HTML to it). A list of several codecs is
    stored quoted, so it stays one parameter.
    """
    if not content_type or len(content_type) > 100:
        return None
    kind, _, params = content_type.partition(";")
    kind = kind.strip().lower()
    if kind not in TYPES:
        return None
    params = params.strip()
    if not params:
        return kind
    found = _CODECS.fullmatch(params)
    if found is None:
        return None
    codecs = found["list"]
    return f'{kind};codecs="{codecs}"' if "," in codecs else f"{kind};codecs={codecs}"


def _window(question: MockQuestion, part: str) -> tuple[datetime, datetime] | None:
    """When a chunk of this part may arrive: from its start to its deadline (or submission)
    plus the grace; None when the part has not started."""
    if part == "main":
        start, deadline, done = question.started_at, question.deadline, question.submitted_at
    else:
        start = question.followup_started_at
        deadline, done = question.followup_deadline, question.followup_submitted_at
    if start is None or deadline is None:
        return None
    end = min(as_utc(deadline), as_utc(done)) if done is not None else as_utc(deadline)
    return as_utc(start), end + mocks.GRACE


@dataclass(frozen=True)
class Stored:
    """What a chunk upload leaves: the answer's bytes so far, and whether this one was new."""

    stored: bool
    bytes_total: int
    chunks: int


def add_chunk(
    session: Session,
    question: MockQuestion,
    part: str,
    take: int,
    seq: int,
    mime: str,
    data: bytes,
    now: datetime,
) -> Stored:
    """Keep one chunk; a chunk whose number is already stored changes nothing."""
    if part not in PARTS:
        raise FieldError("part", f"main or followup, not '{part}'", "value_error")
    existing = session.scalars(
        select(MockAudioChunk.id).where(
            MockAudioChunk.question_id == question.id,
            MockAudioChunk.part == part,
            MockAudioChunk.take == take,
            MockAudioChunk.seq == seq,
        )
    ).first()
    total, count = _totals(session, question.id, part)
    if existing is not None:  # a resent chunk (a retry, a double send): already here
        return Stored(False, total, count)
    if not data:
        raise AudioRefused("the chunk is empty")
    if len(data) > MAX_CHUNK_BYTES:
        raise TooLarge(f"a chunk may hold at most {size_text(MAX_CHUNK_BYTES)}")
    if total + len(data) > MAX_BYTES:
        raise TooLarge(
            f"an answer may hold at most {size_text(MAX_BYTES)} of audio; "
            "what was recorded so far is kept"
        )
    window = _window(question, part)
    if window is None:
        raise AudioRefused(f"the {part} answer of this question has not started")
    if not window[0] <= now <= window[1]:
        raise AudioRefused(f"time is up for the {part} answer; what was recorded before is kept")
    takes = session.scalars(
        select(MockAudioChunk.take)
        .where(MockAudioChunk.question_id == question.id, MockAudioChunk.part == part)
        .distinct()
    ).all()
    if take not in takes and len(takes) >= MAX_TAKES:
        raise AudioRefused(f"at most {MAX_TAKES} recordings per answer")
    session.add(
        MockAudioChunk(
            question_id=question.id, part=part, take=take, seq=seq, mime=mime, data=data,
            received_at=now,
        )
    )  # fmt: skip
    session.flush()
    return Stored(True, total + len(data), count + 1)


def _totals(session: Session, question_id: int, part: str) -> tuple[int, int]:
    total, count = session.execute(
        select(func.coalesce(func.sum(func.length(MockAudioChunk.data)), 0), func.count()).where(
            MockAudioChunk.question_id == question_id, MockAudioChunk.part == part
        )
    ).one()
    return int(total), int(count)


@dataclass(frozen=True)
class Take:
    """One recording of one answer, as the report and the export see it."""

    position: int
    part: str
    take: int
    mime: str
    size: int


def takes(session: Session, mock: MockSession) -> list[Take]:
    """Every recording of the session, by question, part and take."""
    rows = session.execute(
        select(
            MockQuestion.position,
            MockAudioChunk.part,
            MockAudioChunk.take,
            func.min(MockAudioChunk.mime),
            func.sum(func.length(MockAudioChunk.data)),
        )
        .join(MockQuestion, MockQuestion.id == MockAudioChunk.question_id)
        .where(MockQuestion.session_id == mock.id)
        .group_by(MockQuestion.position, MockAudioChunk.part, MockAudioChunk.take)
        .order_by(MockQuestion.position, MockAudioChunk.part.desc(), MockAudioChunk.take)
    )
    return [Take(p, part, t, mime, int(size)) for p, part, t, mime, size in rows]


def by_question(session: Session, mock: MockSession) -> dict[int, dict[str, list[Take]]]:
    """The session's recordings by question position, then part."""
    out: dict[int, dict[str, list[Take]]] = {}
    for take in takes(session, mock):
        out.setdefault(take.position, {}).setdefault(take.part, []).append(take)
    return out


def recording(
    session: Session, user_id: int, mock_id: int, position: int, part: str, take: int
) -> tuple[str, bytes]:
    """A take of one of this user's sessions, to play: as `take_audio`, a WebM file given the
    duration its recorder could not write (app.mock.webm); nothing when it is not theirs."""
    question_id = session.scalar(
        select(MockQuestion.id)
        .join(MockSession, MockSession.id == MockQuestion.session_id)
        .where(
            MockSession.id == mock_id,
            MockSession.user_id == user_id,
            MockQuestion.position == position,
        )
    )
    if not question_id:
        return "", b""
    mime, data = take_audio(session, question_id, part, take)
    return mime, webm.with_duration(data) if mime.startswith("audio/webm") else data


def take_audio(session: Session, question_id: int, part: str, take: int) -> tuple[str, bytes]:
    """The take's type and its audio (its chunks in order); empty bytes when there is none."""
    rows = session.execute(
        select(MockAudioChunk.mime, MockAudioChunk.data)
        .where(
            MockAudioChunk.question_id == question_id,
            MockAudioChunk.part == part,
            MockAudioChunk.take == take,
        )
        .order_by(MockAudioChunk.seq)
    ).all()
    if not rows:
        return "", b""
    return rows[0][0], b"".join(bytes(data) for _, data in rows)


def byte_range(header: str, size: int) -> tuple[int, int] | None:
    """The one range of `Range: bytes=…` as (first, last), inclusive; None to send it all
    (no usable single byte range: several ranges, another unit, a malformed header);
    (-1, -1) when the range lies outside the `size` bytes (416)."""
    match = _RANGE.fullmatch(header.strip())
    if match is None or not (match[1] or match[2]):
        return None
    if not match[1]:  # the last N bytes
        count = int(match[2])
        return (max(0, size - count), size - 1) if count else (-1, -1)
    first = int(match[1])
    last = min(int(match[2]), size - 1) if match[2] else size - 1
    if first >= size or last < first:
        return (-1, -1)
    return first, last


def next_take(session: Session, question_id: int, part: str) -> int:
    last = session.scalar(
        select(func.max(MockAudioChunk.take)).where(
            MockAudioChunk.question_id == question_id, MockAudioChunk.part == part
        )
    )
    return (last or 0) + 1


def delete_session(session: Session, mock: MockSession) -> None:
    """Delete a mock session; its questions and their audio go with it (foreign-key cascade)."""
    live.deleted(session, mock)
    session.execute(delete(MockSession).where(MockSession.id == mock.id))


# --- export ---------------------------------------------------------------------------------


def export_takes(session: Session, question_id: int) -> list[dict[str, object]]:
    """The question's recordings for the export document: one base64 string per take."""
    numbers = session.execute(
        select(MockAudioChunk.part, MockAudioChunk.take)
        .where(MockAudioChunk.question_id == question_id)
        .distinct()
        .order_by(MockAudioChunk.part.desc(), MockAudioChunk.take)
    ).all()
    out: list[dict[str, object]] = []
    for part, take in numbers:
        mime, data = take_audio(session, question_id, part, take)
        out.append(
            {"part": part, "take": take, "mime": mime, "data": base64.b64encode(data).decode()}
        )
    return out


def import_take(
    session: Session, question_id: int, part: str, take: int, mime: str, data: bytes,
    when: datetime,
) -> None:  # fmt: skip
    """A take from an export, stored as one chunk (it was already joined)."""
    session.add(
        MockAudioChunk(
            question_id=question_id, part=part, take=take, seq=0, mime=mime, data=data,
            received_at=when,
        )
    )  # fmt: skip

"""What was said: each recorded take transcribed in the background, shown, edited, graded.

Off unless the server names a transcription endpoint (RINGSIDE_TRANSCRIBE_URL; the call
itself is app.mock.transcribe's). Once a take's last chunk is in, the page asks for its
transcript (`request`): a row in state "pending" is stored, and the Worker, a thread of this
process, transcribes it after the request has been answered. No request ever waits for a
transcription server.

The table is the queue. A pending row is claimed (claimed_at) before it is sent, by one
conditional UPDATE, so two processes (PostgreSQL, several replicas) never both send it; a
claim older than the timeout plus a margin is taken again, so a process that stopped halfway
leaves nothing stuck. On start-up the Worker looks for pending rows, so a restart picks up
what was queued or in flight. A failure is stored with its short reason ("failed"); retrying
makes it pending again.

The speaker may correct a transcript at any time (`edit`); the corrected text is what the
grader reads with the typed answer (`spoken`). The server's text never overwrites an edit: it
is written only to a row still pending.
"""

import logging
import threading
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.db import Database
from app.errors import FieldError, NotFoundError
from app.mock import audio
from app.mock import sessions as mocks
from app.mock.transcribe import Config, TranscribeError, transcribe
from app.models import MockAudioChunk, MockQuestion, MockSession, MockTranscript

PENDING, DONE, FAILED = "pending", "done", "failed"
MAX_TEXT = mocks.MAX_ANSWER  # a transcript is an answer, and has an answer's limit
ERROR_CHARS = 200
CLAIM_MARGIN = timedelta(seconds=60)

log = logging.getLogger(__name__)


def _take_exists(session: Session, question_id: int, part: str, take: int) -> bool:
    found = session.scalar(
        select(MockAudioChunk.id)
        .where(
            MockAudioChunk.question_id == question_id,
            MockAudioChunk.part == part,
            MockAudioChunk.take == take,
        )
        .limit(1)
    )
    return found is not None


def _row(session: Session, question_id: int, part: str, take: int) -> MockTranscript | None:
    return session.scalar(
        select(MockTranscript).where(
            MockTranscript.question_id == question_id,
            MockTranscript.part == part,
            MockTranscript.take == take,
        )
    )


def _question(session: Session, mock: MockSession, position: int) -> MockQuestion:
    question = mocks.question_at(session, mock, position)
    if question is None:
        raise NotFoundError(f"this session has no question {position}")
    return question


def request(
    session: Session, mock: MockSession, position: int, part: str, take: int, now: datetime
) -> MockTranscript:
    """Queue a take for transcription: after its last chunk, or again after a failure. A take
    already queued or transcribed (or edited) is left as it is."""
    question = _question(session, mock, position)
    if not _take_exists(session, question.id, part, take):
        raise NotFoundError(f"no recording {take} of the {part} answer to question {position}")
    row = _row(session, question.id, part, take)
    if row is None:
        row = MockTranscript(
            question_id=question.id, part=part, take=take, state=PENDING, text="", edited=False,
            updated_at=now,
        )  # fmt: skip
        session.add(row)
    elif row.state == FAILED:
        row.state, row.error, row.claimed_at, row.updated_at = PENDING, None, None, now
    session.flush()
    return row


def edit(
    session: Session, mock: MockSession, position: int, part: str, take: int, text: str,
    now: datetime,
) -> MockTranscript:  # fmt: skip
    """The speaker's own words for the take, kept as they wrote them; a transcription still
    under way is then dropped, not written over them."""
    if len(text) > MAX_TEXT:
        raise FieldError("text", f"a transcript can be at most {MAX_TEXT:,} characters")
    question = _question(session, mock, position)
    if not _take_exists(session, question.id, part, take):
        raise NotFoundError(f"no recording {take} of the {part} answer to question {position}")
    row = _row(session, question.id, part, take)
    if row is None:
        row = MockTranscript(question_id=question.id, part=part, take=take)
        session.add(row)
    row.state, row.text, row.error, row.edited, row.updated_at = DONE, text, None, True, now
    session.flush()
    return row


def of_questions(
    session: Session, questions: Iterable[MockQuestion]
) -> dict[int, list[MockTranscript]]:
    """The transcripts of these questions, by question id, in part and take order."""
    ids = [q.id for q in questions]
    out: dict[int, list[MockTranscript]] = {}
    if not ids:
        return out
    rows = session.scalars(
        select(MockTranscript)
        .where(MockTranscript.question_id.in_(ids))
        .order_by(MockTranscript.question_id, MockTranscript.part.desc(), MockTranscript.take)
    )
    for row in rows:
        out.setdefault(row.question_id, []).append(row)
    return out


def said_by_position(
    session: Session, questions: list[MockQuestion]
) -> dict[int, dict[tuple[str, int], str]]:
    """What was said in each finished take, by question position, then (part, take): what
    the report shows under each recording."""
    rows = of_questions(session, questions)
    return {
        q.position: {
            (row.part, row.take): row.text
            for row in rows.get(q.id, [])
            if row.state == DONE and row.text.strip()
        }
        for q in questions
    }


def by_take(rows: Iterable[MockTranscript]) -> dict[tuple[str, int], MockTranscript]:
    """A question's transcripts by (part, take), as the page looks them up."""
    return {(row.part, row.take): row for row in rows}


def spoken(rows: Iterable[MockTranscript]) -> dict[str, str]:
    """What was said in each part (main, followup), every finished take in order: what the
    grader reads beside the typed answer."""
    out: dict[str, list[str]] = {}
    for row in rows:
        if row.state == DONE and row.text.strip():
            out.setdefault(row.part, []).append(row.text.strip())
    return {part: "\n\n".join(texts) for part, texts in out.items()}


def export_texts(session: Session, question_id: int) -> dict[tuple[str, int], str]:
    """The question's finished transcripts by (part, take), for the export document."""
    rows = session.scalars(
        select(MockTranscript).where(
            MockTranscript.question_id == question_id, MockTranscript.state == DONE
        )
    )
    return {(row.part, row.take): row.text for row in rows}


def import_text(
    session: Session, question_id: int, part: str, take: int, text: str, when: datetime
) -> None:
    """A transcript from an export: finished, and never sent to a server again."""
    session.add(
        MockTranscript(
            question_id=question_id, part=part, take=take, state=DONE, text=text[:MAX_TEXT],
            edited=False, updated_at=when,
        )
    )  # fmt: skip


# --- the background work -------------------------------------------------------------------


def claim(session: Session, now: datetime, timeout_s: float) -> int | None:
    """Take the oldest pending transcript nobody is working on (or whose worker stopped
    long ago); its id, or None when there is none. Atomic: one conditional UPDATE."""
    stale = now - timedelta(seconds=timeout_s) - CLAIM_MARGIN
    candidates = session.scalars(
        select(MockTranscript.id)
        .where(
            MockTranscript.state == PENDING,
            (MockTranscript.claimed_at.is_(None)) | (MockTranscript.claimed_at < stale),
        )
        .order_by(MockTranscript.updated_at, MockTranscript.id)
        .limit(5)
    ).all()
    for row_id in candidates:
        taken = session.execute(
            update(MockTranscript)
            .where(
                MockTranscript.id == row_id,
                MockTranscript.state == PENDING,
                (MockTranscript.claimed_at.is_(None)) | (MockTranscript.claimed_at < stale),
            )
            .values(claimed_at=now),
            execution_options={"synchronize_session": False},
        )
        if getattr(taken, "rowcount", 0) == 1:
            return row_id
    return None


def audio_of(session: Session, row_id: int) -> tuple[str, bytes]:
    """The claimed take's type and audio; empty when it (or its session) has gone."""
    row = session.get(MockTranscript, row_id)
    if row is None:
        return "", b""
    return audio.take_audio(session, row.question_id, row.part, row.take)


def settle(
    session: Session, row_id: int, now: datetime, *, text: str | None, error: str | None
) -> None:
    """Store what the server said, unless the speaker has edited the take meanwhile (the row
    is no longer pending): their words win."""
    values: dict[str, object] = {"claimed_at": None, "updated_at": now}
    if error is not None:
        values |= {"state": FAILED, "error": error[:ERROR_CHARS]}
    else:
        values |= {"state": DONE, "text": (text or "")[:MAX_TEXT], "error": None}
    session.execute(
        update(MockTranscript)
        .where(MockTranscript.id == row_id, MockTranscript.state == PENDING)
        .values(**values),
        execution_options={"synchronize_session": False},
    )


class Worker:
    """Transcribes pending takes, one at a time, on a thread of its own.

    `wake()` after a commit that queued one: a thread starts if none is running, works until
    no pending row is left, and ends; a wake that arrives while it works makes it look again,
    so none is missed. Nothing runs, and no thread exists, while there is nothing to do.
    """

    def __init__(
        self, database: Database, config: Config, clock: Callable[[], datetime],
        send: Callable[[Config, str, bytes], str] = transcribe,
    ) -> None:  # fmt: skip
        self.database = database
        self.config = config
        self.clock = clock
        self._send = send
        self._lock = threading.Lock()
        self._again = False
        self._thread: threading.Thread | None = None

    def wake(self) -> None:
        with self._lock:
            self._again = True
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="ringside-transcribe", daemon=True
                )
                self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        """Wait for the work under way (tests, and a clean shutdown)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._lock:
                if not self._again:
                    self._thread = None
                    return
                self._again = False
            try:
                while self.one():
                    pass
            except Exception:  # a database hiccup: log it; the next wake or start-up retries
                log.exception("transcription worker stopped")

    def one(self) -> bool:
        """Transcribe one pending take; False when there was none."""
        with self.database.write_session() as session:
            row_id = claim(session, self.clock(), self.config.timeout_s)
        if row_id is None:
            return False
        with self.database.read_session() as session:
            mime, data = audio_of(session, row_id)
        text: str | None = None
        error: str | None = None
        if not data:
            error = "the recording is empty"
        else:
            try:
                text = self._send(self.config, mime, data)
            except TranscribeError as failed:
                error = str(failed)
        with self.database.write_session() as session:
            settle(session, row_id, self.clock(), text=text, error=error)
        return True

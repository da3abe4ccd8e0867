"""Per-member limits on what an account can store or start: audio, mock sessions, imports.

A server shared by a team must not be filled by one member (or one leaked token): each user
may keep `audio_bytes` of recordings, start `mock_sessions_per_day` mock interviews and import
`imports_per_day` files in any 24 hours. The numbers come from Settings (RINGSIDE_QUOTA_*).
Past a cap the request is refused with a message that names the limit: 413 for storage,
429 (with Retry-After) for the daily counts. Nothing already stored is touched.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.clock import as_utc
from app.config import Settings
from app.errors import DomainError
from app.models import ImportRecord, MockAudioChunk, MockQuestion, MockSession
from app.wording import plural

DAY = timedelta(hours=24)


@dataclass(frozen=True)
class Quotas:
    audio_bytes: int
    mock_sessions_per_day: int
    imports_per_day: int

    @classmethod
    def of(cls, settings: Settings) -> "Quotas":
        return cls(
            audio_bytes=settings.quota_audio_mb * 1_000_000,
            mock_sessions_per_day=settings.quota_mock_sessions_per_day,
            imports_per_day=settings.quota_imports_per_day,
        )


@dataclass(frozen=True)
class Usage:
    """What a user has used of each quota, for the settings page and GET /api/usage."""

    audio_bytes: int
    mock_sessions_today: int
    imports_today: int
    quotas: Quotas


class QuotaExceeded(DomainError):
    """Past a member's cap: 413 for storage, 429 with Retry-After for a daily count."""

    def __init__(self, message: str, status: int, retry_after: int | None = None) -> None:
        super().__init__(None, message, code="quota_exceeded")
        self.status = status
        self.retry_after = retry_after


def megabytes(n: int) -> str:
    return f"{n / 1_000_000:.3g} MB"


def audio_bytes(session: Session, user_id: int) -> int:
    query = (
        select(func.coalesce(func.sum(func.length(MockAudioChunk.data)), 0))
        .join(MockQuestion, MockQuestion.id == MockAudioChunk.question_id)
        .join(MockSession, MockSession.id == MockQuestion.session_id)
        .where(MockSession.user_id == user_id)
    )
    return int(session.scalar(query) or 0)


def check_audio(session: Session, user_id: int, adding: int, quotas: Quotas) -> None:
    """Refuse `adding` more bytes of audio when the user's recordings would pass the cap."""
    used = audio_bytes(session, user_id)
    if used + adding > quotas.audio_bytes:
        raise QuotaExceeded(
            f"Your recordings may take at most {megabytes(quotas.audio_bytes)} on this server, and "
            f"{megabytes(used)} are used: delete old mock sessions to record more (what was "
            "recorded so far is kept).",
            413,
        )


def _within_daily_limit(
    times: list[datetime], limit: int, what: str, noun: str, now: datetime
) -> None:
    """Refuse (429, with when to retry) once `limit` of `what` happened in the last 24 hours."""
    if len(times) >= limit:
        oldest = sorted(times)[-limit]
        raise QuotaExceeded(
            f"You can {what.format(limit=plural(limit, noun))} in 24 hours on this server; "
            "try again later.",
            429,
            max(1, int((oldest + DAY - now).total_seconds())),
        )


def _mock_sessions_since(session: Session, user_id: int, now: datetime) -> list[datetime]:
    query = select(MockSession.created_at).where(
        MockSession.user_id == user_id, MockSession.created_at >= now - DAY
    )
    return [as_utc(t) for t in session.scalars(query)]


def _imports_since(session: Session, user_id: int, now: datetime) -> list[datetime]:
    query = select(ImportRecord.at).where(
        ImportRecord.user_id == user_id, ImportRecord.at >= now - DAY
    )
    return [as_utc(t) for t in session.scalars(query)]


def check_mock_session(session: Session, user_id: int, now: datetime, quotas: Quotas) -> None:
    created = _mock_sessions_since(session, user_id, now)
    limit = quotas.mock_sessions_per_day
    _within_daily_limit(created, limit, "start at most {limit}", "mock interview", now)


def claim_import(session: Session, user_id: int, now: datetime, quotas: Quotas) -> None:
    """Count one import (in the caller's transaction: a refused file is not counted)."""
    done = _imports_since(session, user_id, now)
    _within_daily_limit(done, quotas.imports_per_day, "import at most {limit}", "file", now)
    session.add(ImportRecord(user_id=user_id, at=now))


def usage(session: Session, user_id: int, now: datetime, quotas: Quotas) -> Usage:
    return Usage(
        audio_bytes=audio_bytes(session, user_id),
        mock_sessions_today=len(_mock_sessions_since(session, user_id, now)),
        imports_today=len(_imports_since(session, user_id, now)),
        quotas=quotas,
    )

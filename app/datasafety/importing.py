"""Import an export document into a user's data, merging by natural keys.

Nothing is ever deleted or overwritten with older data, so importing the same file twice, or
an older export, changes nothing. What "already here" means, per kind of record:

- review settings: the user's saved settings win; the file's apply only if none were saved;
- the study plan (loop date, minutes a day): likewise, the user's own plan wins;
- card states: a card's state comes from whichever side reviewed it last;
- review logs: the same card graded at the same instant;
- attempts: the same card answered at the same instant;
- mock interviews: one started at the same instant (its questions, and their recordings,
  come with it).

Callers pass an open write session (one transaction); nothing here commits.
"""

import base64
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from pydantic import BaseModel
from sqlalchemy import Table, delete, insert, select
from sqlalchemy.orm import Session

from app import locks
from app.datasafety.document import ExportDocument
from app.mock import audio as voice
from app.mock import transcripts
from app.models import (
    Attempt,
    CardState,
    MockQuestion,
    MockSession,
    ReviewLog,
    ReviewSettings,
    StudyPlan,
)
from app.srs.days import as_utc

KINDS = {
    "review_settings": ("review settings", "review settings"),
    "study_plan": ("the study plan", "study plans"),
    "card_states": ("card state", "card states"),
    "review_logs": ("review", "reviews"),
    "attempts": ("drill attempt", "drill attempts"),
    "mock_sessions": ("mock interview", "mock interviews"),
}


@dataclass
class ImportSummary:
    """How many records of each kind were added, and how many were already here."""

    added: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    kept: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))

    def describe(self) -> str:
        """One sentence for people: "Imported 12 reviews and 3 card states; 2 already here." """
        parts = [_count(kind, n) for kind, n in self.added.items() if n]
        imported = "Imported " + _join(parts) if parts else "Nothing new to import"
        already = sum(self.kept.values())
        return imported + (f"; {already} already here, kept as they were." if already else ".")


def _count(kind: str, n: int) -> str:
    one, many = KINDS[kind]
    return one if kind in ("review_settings", "study_plan") else f"{n} {one if n == 1 else many}"


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def import_document(session: Session, user_id: int, document: ExportDocument) -> ImportSummary:
    """Merge `document` into the user's data (see the module docstring for the rules)."""
    summary = ImportSummary()
    locks.take_turn(session, user_id)  # merging reads, then writes: one import at a time
    _one_per_user(
        session, user_id, "review_settings", document.review_settings, ReviewSettings, summary
    )
    _one_per_user(session, user_id, "study_plan", document.study_plan, StudyPlan, summary)
    _card_states(session, user_id, document, summary)
    _review_logs(session, user_id, document, summary)
    _attempts(session, user_id, document, summary)
    _mock_sessions(session, user_id, document, summary)
    session.flush()
    return summary


def _one_per_user(
    session: Session, user_id: int, section: str, doc: BaseModel | None, row: type[Any],
    out: ImportSummary,
) -> None:  # fmt: skip
    """Review settings or the plan: one row per user, so one already here is kept as it is."""
    if doc is None:
        return
    if session.get(row, user_id) is not None:
        out.kept[section] += 1
        return
    session.add(row(user_id=user_id, **doc.model_dump()))
    out.added[section] += 1


def _card_states(session: Session, user_id: int, doc: ExportDocument, out: ImportSummary) -> None:
    rows = session.scalars(select(CardState).where(CardState.user_id == user_id))
    existing = {row.card_id: row for row in rows}
    for state in doc.card_states:
        values = state.model_dump()
        row = existing.get(state.card_id)
        if row is None:
            session.add(CardState(user_id=user_id, **values))
            out.added["card_states"] += 1
        elif _later(state.last_review, row.last_review):
            for name, value in values.items():
                setattr(row, name, value)
            out.added["card_states"] += 1
        else:
            out.kept["card_states"] += 1


def _later(theirs: datetime | None, ours: datetime | None) -> bool:
    return theirs is not None and (ours is None or theirs > as_utc(ours))


def _review_logs(session: Session, user_id: int, doc: ExportDocument, out: ImportSummary) -> None:
    rows = list(
        session.scalars(
            select(ReviewLog).where(ReviewLog.user_id == user_id).order_by(ReviewLog.id)
        )
    )
    moments = {(row.card_id, as_utc(row.reviewed_at)) for row in rows}
    new: list[dict[str, Any]] = []
    for log in doc.review_logs:
        moment = (log.card_id, log.reviewed_at)
        if moment in moments:
            out.kept["review_logs"] += 1
            continue
        moments.add(moment)
        new.append({**log.model_dump(), "user_id": user_id, "idempotency_key": None})
    out.added["review_logs"] += len(new)
    if not new:
        return
    table = cast(Table, ReviewLog.__table__)
    latest = max((as_utc(row.reviewed_at) for row in rows), default=None)
    if latest is None or min(v["reviewed_at"] for v in new) >= latest:
        session.execute(insert(table), new)
        return
    # Ids are the order of grades: undo takes the highest and rescheduling replays them in
    # order. Older reviews from another device are merged in time order by rewriting the
    # user's log, which nothing refers to by id.
    merged = [_stored_values(row) for row in rows] + new
    merged.sort(key=lambda v: v["reviewed_at"])  # stable: ties keep their order
    session.execute(delete(ReviewLog).where(ReviewLog.user_id == user_id))
    session.execute(insert(table), merged)


def _stored_values(row: ReviewLog) -> dict[str, Any]:
    values = {c.key: getattr(row, c.key) for c in ReviewLog.__table__.columns if c.key != "id"}
    values["reviewed_at"] = as_utc(row.reviewed_at)
    return values


def _attempts(session: Session, user_id: int, doc: ExportDocument, out: ImportSummary) -> None:
    stored = session.execute(
        select(Attempt.card_id, Attempt.created_at).where(Attempt.user_id == user_id)
    )
    seen = {(card_id, as_utc(created)) for card_id, created in stored}
    new: list[dict[str, Any]] = []
    for attempt in doc.attempts:
        moment = (attempt.card_id, attempt.created_at)
        if moment in seen:
            out.kept["attempts"] += 1
            continue
        seen.add(moment)
        new.append({**attempt.model_dump(), "user_id": user_id})
    if new:
        session.execute(insert(cast(Table, Attempt.__table__)), new)
    out.added["attempts"] += len(new)


def _mock_sessions(session: Session, user_id: int, doc: ExportDocument, out: ImportSummary) -> None:
    stored = session.scalars(select(MockSession.created_at).where(MockSession.user_id == user_id))
    seen = {as_utc(created) for created in stored}
    for mock in doc.mock_sessions:
        if mock.created_at in seen:
            out.kept["mock_sessions"] += 1
            continue
        seen.add(mock.created_at)
        row = MockSession(user_id=user_id, **mock.model_dump(exclude={"questions"}))
        session.add(row)
        session.flush()  # the questions need the session's id
        for question in mock.questions:
            asked = MockQuestion(session_id=row.id, **question.model_dump(exclude={"recordings"}))
            session.add(asked)
            if question.recordings:
                session.flush()  # the recordings need the question's id
            for take in question.recordings:
                when = question.submitted_at or question.started_at or mock.created_at
                voice.import_take(
                    session, asked.id, take.part, take.take, take.mime,
                    base64.b64decode(take.data), when,
                )  # fmt: skip
                if take.transcript is not None:
                    transcripts.import_text(
                        session, asked.id, take.part, take.take, take.transcript, when
                    )
        out.added["mock_sessions"] += 1

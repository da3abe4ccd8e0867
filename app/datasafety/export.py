"""Build the export document of one user from the database."""

import logging
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.auth.users import LOCAL_USERNAME, ensure_local_user
from app.datasafety.document import (
    AttemptDoc,
    CardStateDoc,
    DocumentError,
    ExportDocument,
    MockQuestionDoc,
    MockSessionDoc,
    ReviewLogDoc,
    ReviewSettingsDoc,
    StudyPlanDoc,
    UserDoc,
    describe,
)
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
    User,
)
from app.srs.days import as_utc

logger = logging.getLogger("ringside")


class UnknownUser(LookupError):
    """No user has that name."""


def find_user(session: Session, username: str) -> int:
    """The id of `username`; the local profile is created on first use, as the app does."""
    if username == LOCAL_USERNAME:
        return ensure_local_user(session).id
    user_id = session.scalars(select(User.id).where(User.username == username)).one_or_none()
    if user_id is None:
        raise UnknownUser(f"no user named '{username}'")
    return user_id


def _columns(row: Any, model: type[Any], **overrides: Any) -> dict[str, Any]:
    """The row's values for the fields `model` declares; stored times come back in UTC."""
    values: dict[str, Any] = {}
    for name in model.model_fields:
        if name in overrides:
            values[name] = overrides[name]
            continue
        value = getattr(row, name)
        values[name] = as_utc(value) if isinstance(value, datetime) else value
    return values


_RECORDS: dict[str, type[BaseModel]] = {
    "card_states": CardStateDoc,
    "review_logs": ReviewLogDoc,
    "attempts": AttemptDoc,
    "mock_sessions": MockSessionDoc,
}


def export_user(
    session: Session, user_id: int, left_out: list[str] | None = None
) -> ExportDocument:
    """Everything the user has learnt and done, in a stable order (re-exports are identical).

    A stored record that an import would refuse (a state that cannot be scheduled, a date
    out of range: see document.py) is left out, so one bad row never makes the rest
    impossible to take away; each is named in `left_out` and in the log.
    """
    raw = _document(session, user_id)
    singles: tuple[tuple[str, type[BaseModel]], ...] = (
        ("review_settings", ReviewSettingsDoc),
        ("study_plan", StudyPlanDoc),
    )
    for section, single in singles:
        if raw[section] is None:
            continue
        try:
            single.model_validate(raw[section])
        except ValidationError as error:
            _leave_out(user_id, f"{section}: {describe(error)}", left_out)
            raw[section] = None
    for kind, model in _RECORDS.items():
        kept = []
        for index, record in enumerate(raw[kind]):
            try:
                model.model_validate(record)
            except ValidationError as error:
                _leave_out(user_id, f"{kind}[{index}]: {describe(error)}", left_out)
                continue
            kept.append(record)
        raw[kind] = kept
    try:
        return ExportDocument.model_validate(raw)
    except ValidationError as error:
        # Stored data an import would refuse: better no file than one that cannot come back.
        message = f"stored data does not fit the export format: {describe(error)}"
        raise DocumentError(message) from None


def _leave_out(user_id: int, note: str, left_out: list[str] | None) -> None:
    logger.warning("export of user %d leaves out %s", user_id, note)
    if left_out is not None:
        left_out.append(note)


def _document(session: Session, user_id: int) -> dict[str, Any]:
    user = session.get_one(User, user_id)
    settings = session.get(ReviewSettings, user_id)
    plan = session.get(StudyPlan, user_id)
    states = session.scalars(
        select(CardState).where(CardState.user_id == user_id).order_by(CardState.card_id)
    )
    # Log ids are the order grades happened in (undo takes the last); keep that order.
    logs = session.scalars(
        select(ReviewLog).where(ReviewLog.user_id == user_id).order_by(ReviewLog.id)
    )
    attempts = session.scalars(
        select(Attempt).where(Attempt.user_id == user_id).order_by(Attempt.created_at, Attempt.id)
    )
    mocks = list(
        session.scalars(
            select(MockSession)
            .where(MockSession.user_id == user_id)
            .order_by(MockSession.created_at, MockSession.id)
        )
    )
    questions: dict[int, list[MockQuestion]] = {mock.id: [] for mock in mocks}
    if mocks:
        for question in session.scalars(
            select(MockQuestion)
            .where(MockQuestion.session_id.in_(questions))
            .order_by(MockQuestion.session_id, MockQuestion.position)
        ):
            questions[question.session_id].append(question)

    return {
        "app": "ringside",
        "format": 1,
        "user": _columns(user, UserDoc),
        "review_settings": _columns(settings, ReviewSettingsDoc) if settings else None,
        "study_plan": _columns(plan, StudyPlanDoc) if plan else None,
        "card_states": [_columns(s, CardStateDoc) for s in states],
        "review_logs": [_columns(log, ReviewLogDoc) for log in logs],
        "attempts": [_columns(a, AttemptDoc) for a in attempts],
        "mock_sessions": [
            _columns(
                mock,
                MockSessionDoc,
                questions=[
                    _columns(q, MockQuestionDoc, recordings=_recordings(session, q.id))
                    for q in questions[mock.id]
                ],
            )
            for mock in mocks
        ],
    }


def _recordings(session: Session, question_id: int) -> list[dict[str, object]]:
    """The question's takes, each with what was said in it when it was transcribed."""
    said = transcripts.export_texts(session, question_id)
    takes = voice.export_takes(session, question_id)
    for take in takes:
        text = said.get((str(take["part"]), int(str(take["take"]))))
        if text is not None:
            take["transcript"] = text
    return takes

"""Your data over HTTP: the JSON export and import, the Anki deck, the settings page's upload."""

import re
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, File, HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel
from sqlalchemy.orm import Session

from app import quotas
from app.datasafety import anki, document
from app.datasafety.document import DocumentError, ExportDocument
from app.datasafety.export import export_user
from app.datasafety.importing import ImportSummary, import_document
from app.errors import TooLargeError
from app.models import User
from app.quotas import Quotas
from app.web.deps import (
    CatalogDep,
    NowDep,
    QuotasDep,
    RendererDep,
    SessionDep,
    TemplatesDep,
    UserDep,
    WriteSessionDep,
)
from app.web.settings.context import ImportResult, Outcome, settings_page

router = APIRouter()
MAX_UPLOAD_BYTES = 64 * 1024 * 1024
NO_STORE = {"Cache-Control": "no-store"}


class ImportOut(BaseModel):
    added: dict[str, int]
    kept: dict[str, int]
    message: str


def _attachment(name: str) -> dict[str, str]:
    return {**NO_STORE, "Content-Disposition": f'attachment; filename="{name}"'}


@router.get(
    "/api/export",
    tags=["data"],
    response_model=ExportDocument,
    responses={200: {"description": "A JSON file to keep, or to import elsewhere."}},
)
def export_api(session: SessionDep, user_id: UserDep, now: NowDep) -> Response:
    """All your learning data as one JSON document (a download): reviews, card states, drill
    attempts, mock interviews and review settings. No password, session or token is in it."""
    left_out: list[str] = []
    try:
        exported = export_user(session, user_id, left_out)
    except DocumentError as error:  # stored data the format refuses: ours to fix, not a 422
        raise HTTPException(status_code=500, detail=f"Cannot export: {error.message}.") from None
    username = re.sub(r"[^A-Za-z0-9_.-]", "_", session.get_one(User, user_id).username)
    name = f"ringside-{username}-{now:%Y-%m-%d}.json"
    headers = _attachment(name)
    if left_out:  # records no import would take back (see export_user)
        headers["X-Ringside-Left-Out"] = str(len(left_out))
    return Response(document.dumps(exported), media_type="application/json", headers=headers)


def _run_import(
    session: Session, user_id: int, exported: ExportDocument, now: datetime, limits: Quotas
) -> ImportSummary:
    """All or nothing: a file refused by a cap (imports per day, stored audio) writes nothing,
    in a savepoint of the request's transaction, so the page that says so can still be shown."""
    with session.begin_nested():
        quotas.claim_import(session, user_id, now, limits)
        summary = import_document(session, user_id, exported)
        quotas.check_audio(session, user_id, 0, limits)
        return summary


@router.post("/api/import", tags=["data"])
def import_api(
    body: ExportDocument,
    session: WriteSessionDep,
    user_id: UserDep,
    now: NowDep,
    limits: QuotasDep,
) -> ImportOut:
    """Merge an export (the document GET /api/export gives) into your data, in one transaction.

    Records already here are kept; importing the same file twice adds nothing. A card
    reviewed on both sides keeps the state of its latest review. A file that is not a valid
    export is refused with 422 and nothing is written; past the server's imports per day
    (429) or its cap on stored audio (413), likewise."""
    summary = _run_import(session, user_id, body, now, limits)
    return ImportOut(added=summary.added, kept=summary.kept, message=summary.describe())


@router.get("/export/anki", include_in_schema=False)
def anki_export(
    catalog: CatalogDep, renderer: RendererDep, now: NowDep, topic: str = "all"
) -> Response:
    """The cards of one topic, or of all, as an Anki deck (.apkg)."""
    everything = topic == "all"
    found = catalog.topic(topic)
    if not everything and found is None:
        raise HTTPException(status_code=422, detail=f"topic: no topic '{topic}'")
    topics = catalog.topics if everything or found is None else [found]
    package = anki.build_package(topics, renderer, now)
    name = anki.filename(topics, everything)
    return Response(package, media_type="application/octet-stream", headers=_attachment(name))


@router.post("/settings/import", response_class=HTMLResponse, include_in_schema=False)
def import_form(
    request: Request,
    session: WriteSessionDep,
    templates: TemplatesDep,
    user_id: UserDep,
    now: NowDep,
    limits: QuotasDep,
    file: Annotated[UploadFile | None, File()] = None,
) -> HTMLResponse:
    """The settings page's upload: the page again, with what was imported or why not."""
    try:
        summary = _run_import(session, user_id, document.parse(_uploaded(file)), now, limits)
        status, result = 200, ImportResult(ok=True, message=summary.describe())
    except (DocumentError, TooLargeError, quotas.QuotaExceeded) as error:
        status = error.status  # 422, 413 for a file or audio over a limit, 429 past a count
        reason = error.message.rstrip(".")
        message = f"That file cannot be imported: {reason}. Nothing was changed."
        result = ImportResult(ok=False, message=message)
    outcome = Outcome(data_result=result)
    return settings_page(request, templates, session, user_id, outcome, status=status)


def _uploaded(file: UploadFile | None) -> bytes:
    raw = file.file.read(MAX_UPLOAD_BYTES + 1) if file is not None else b""
    if not raw:
        raise DocumentError("choose an export file (.json) first")
    if len(raw) > MAX_UPLOAD_BYTES:
        raise TooLargeError(f"the file is larger than {MAX_UPLOAD_BYTES // 2**20} MB")
    return raw

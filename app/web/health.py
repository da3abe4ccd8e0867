"""GET /healthz (alive: content loaded, database answering) and GET /readyz (ready to serve)."""

from functools import cache
from typing import Literal

from alembic.script import ScriptDirectory
from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlalchemy import Connection, inspect, text
from sqlalchemy.exc import SQLAlchemyError

from app.migrate import MIGRATIONS_DIR
from app.web.api_models import HealthOut
from app.web.deps import CatalogDep, DatabaseDep, SessionDep

router = APIRouter()


class ReadyOut(BaseModel):
    status: Literal["ready", "not ready"]
    database: str = Field(description='"ok", or why the database cannot be used')
    migrations: str = Field(description='"ok", or how the schema differs from this version\'s')
    writes: str = Field(
        default="ok",
        description='"ok", or why the last write failed and a new one still does '
        '("storage full", "read-only")',
    )


@router.get("/healthz", tags=["operations"], response_model=HealthOut)
def healthz(catalog: CatalogDep, session: SessionDep) -> JSONResponse:
    """200 when the app can serve; 503 when the database does not answer."""
    try:
        session.execute(text("SELECT 1"))
        database = "ok"
    except SQLAlchemyError:
        database = "unavailable"
    body = HealthOut(
        status="ok" if database == "ok" else "degraded",
        topics=len(catalog.topics),
        cards=len(catalog.cards),
        database=database,
    )
    return JSONResponse(body.model_dump(), status_code=200 if database == "ok" else 503)


@router.get(
    "/readyz",
    tags=["operations"],
    response_model=ReadyOut,
    responses={503: {"model": ReadyOut, "description": "Not ready: the fields say why"}},
)
def readyz(session: SessionDep, database_: DatabaseDep) -> JSONResponse:
    """200 when the database answers, its schema is this version's and writes go through
    (tried again after one failed for lack of space); 503 with what is wrong."""
    try:
        migrations = schema_problem(session.connection())
        database = "ok"
    except SQLAlchemyError as error:
        database = f"unreachable ({error.__class__.__name__})"
        migrations = "unknown"
    session.close()  # before a write is tried: on SQLite a reader would hold a snapshot
    writes = (database_.can_write() or "ok") if database == "ok" else "unknown"
    ready = database == "ok" and migrations == "ok" and writes == "ok"
    body = ReadyOut(
        status="ready" if ready else "not ready",
        database=database,
        migrations=migrations,
        writes=writes,
    )
    return JSONResponse(body.model_dump(), status_code=200 if ready else 503)


@cache
def expected_heads() -> frozenset[str]:
    """The newest migration(s) this version ships; the files never change while it runs."""
    return frozenset(ScriptDirectory(str(MIGRATIONS_DIR)).get_heads())


def schema_problem(connection: Connection) -> str:
    """Say "ok" when the database is at this version's migration head, else what differs."""
    current: frozenset[str] = frozenset()
    if inspect(connection).has_table("alembic_version"):
        current = frozenset(connection.scalars(text("SELECT version_num FROM alembic_version")))
    expected = expected_heads()
    if current == expected:
        return "ok"
    found = ", ".join(sorted(current)) or "no migrations applied"
    wanted = ", ".join(sorted(expected))
    return f"database at {found}; this version expects {wanted}: run `ringside db upgrade`"

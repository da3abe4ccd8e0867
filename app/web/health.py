"""GET /healthz: is the content loaded and the database reachable?"""

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from app.web.api_models import HealthOut
from app.web.deps import CatalogDep, SessionDep

router = APIRouter()


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

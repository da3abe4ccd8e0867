"""GET /docs: Swagger UI from the app's own static files (static/vendor/swagger-ui).

FastAPI's own page loads Swagger UI from a CDN and starts it with an inline script, both of
which the app's Content-Security-Policy (app.web.security) refuses, leaving a blank page; and
a CDN is not there offline. Served only where the API docs are on (local mode by default),
and, with the schema it reads (GET /openapi.json), only to signed-in members in accounts mode:
FastAPI's own /openapi.json route would be public.
"""

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.web.deps import TemplatesDep

router = APIRouter()


@router.get("/docs", response_class=HTMLResponse, include_in_schema=False)
def api_docs(request: Request, templates: TemplatesDep) -> HTMLResponse:
    return templates.TemplateResponse(request, "api_docs.html", {})


@router.get("/openapi.json", include_in_schema=False)
def openapi_schema(request: Request) -> dict[str, Any]:
    schema: dict[str, Any] = request.app.openapi()
    return schema

"""The errata page: every correction made to the topics, with what changed and its source."""

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from app.content.errata import Errata
from app.web.deps import TemplatesDep

router = APIRouter()


@router.get("/errata", response_class=HTMLResponse, include_in_schema=False)
def errata_page(request: Request, templates: TemplatesDep) -> HTMLResponse:
    errata: Errata | None = request.app.state.errata
    if errata is None:
        raise HTTPException(404, "This content has no errata page (content/ERRATA.md).")
    return templates.TemplateResponse(request, "errata.html", {"errata": errata})

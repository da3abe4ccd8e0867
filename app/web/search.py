"""Search over topics, cards and glossary terms: a page and its JSON."""

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse

from app.content.search import MAX_QUERY_LENGTH, QueryTooLong
from app.web.api_models import SearchHitOut, SearchOut
from app.web.deps import SearchDep, TemplatesDep

router = APIRouter()
QueryParam = Annotated[str, Query(description="Words to find; every word must appear.")]


@router.get("/search", response_class=HTMLResponse, include_in_schema=False)
def search_page(
    request: Request, index: SearchDep, templates: TemplatesDep, q: QueryParam = ""
) -> HTMLResponse:
    error, hits = None, []
    try:
        hits = index.search(q)
    except QueryTooLong:
        error = f"That search is too long: at most {MAX_QUERY_LENGTH} characters, please."
    status = 422 if error else 200
    return templates.TemplateResponse(
        request, "search/results.html", {"q": q, "hits": hits, "error": error}, status_code=status
    )


@router.get("/api/search", tags=["content"])
def search_api(index: SearchDep, q: QueryParam) -> SearchOut:
    """Topics, cards and glossary terms holding every word of `q`, best first, with
    highlighted snippets."""
    try:
        hits = index.search(q)
    except QueryTooLong as error:
        raise HTTPException(status_code=422, detail=str(error)) from None
    return SearchOut(query=q, hits=[SearchHitOut.of(h) for h in hits])

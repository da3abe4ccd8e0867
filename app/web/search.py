"""Search over topics, cards and glossary terms: a page and its JSON."""

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from app.content.search import MAX_QUERY_LENGTH, Hit, QueryTooLong
from app.web.deps import SearchDep, TemplatesDep

router = APIRouter()
QueryParam = Annotated[str, Query(description="Words to find; every word must appear.")]


class SearchHitOut(BaseModel):
    kind: str = Field(description='"topic", "card" or "term" (a glossary entry).')
    key: str
    title: str
    url: str
    topic: str
    snippet_html: str
    score: int

    @classmethod
    def of(cls, hit: Hit) -> "SearchHitOut":
        return cls(
            kind=hit.kind,
            key=hit.key,
            title=hit.title,
            url=hit.url,
            topic=hit.context,
            snippet_html=hit.snippet_html,
            score=hit.score,
        )


class SearchOut(BaseModel):
    query: str
    hits: list[SearchHitOut]


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

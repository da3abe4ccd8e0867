"""Search over topics, cards and glossary terms: a page and its JSON."""

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from app.content.search import MAX_QUERY_LENGTH, Hit, QueryTooLong, Results
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
    did_you_mean: str | None = Field(
        default=None,
        description="When the query found nothing: the closest spelling the texts hold, "
        "which `hits` are for.",
    )


@router.get("/search", response_class=HTMLResponse, include_in_schema=False)
def search_page(
    request: Request, index: SearchDep, templates: TemplatesDep, q: QueryParam = ""
) -> HTMLResponse:
    error, results = None, Results([])
    try:
        results = index.find(q)
    except QueryTooLong:
        error = f"That search is too long: at most {MAX_QUERY_LENGTH} characters, please."
    status = 422 if error else 200
    context = {"q": q, "hits": results.hits, "did_you_mean": results.did_you_mean, "error": error}
    return templates.TemplateResponse(request, "search/results.html", context, status_code=status)


@router.get("/api/search", tags=["content"])
def search_api(index: SearchDep, q: QueryParam) -> SearchOut:
    """Topics, cards and glossary terms holding every word of `q`, best first, with
    highlighted snippets. When nothing holds them all, the hits are for the closest spelling
    the texts hold, named in `did_you_mean`."""
    try:
        results = index.find(q)
    except QueryTooLong as error:
        raise HTTPException(status_code=422, detail=str(error)) from None
    hits = [SearchHitOut.of(h) for h in results.hits]
    return SearchOut(query=q, hits=hits, did_you_mean=results.did_you_mean)

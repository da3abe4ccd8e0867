"""The glossary: a page of terms with links to where each is explained, and its JSON."""

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from app.content.glossary import Glossary, Term
from app.web.deps import TemplatesDep

router = APIRouter()
ALPHABET = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def get_glossary(request: Request) -> Glossary:
    glossary: Glossary = request.app.state.glossary
    return glossary


GlossaryDep = Annotated[Glossary, Depends(get_glossary)]


class GlossaryLinkOut(BaseModel):
    href: str = Field(description="/topics/SLUG#anchor, /cards/ID or /labs/NAME")
    kind: str = Field(description="topic, card or lab")
    label: str = Field(description="The topic's title, the card's question or the lab's title")
    section: str | None = Field(description="For a topic link: the heading it points at")


class GlossaryTermOut(BaseModel):
    term: str
    id: str = Field(description="The term's anchor on the page: /glossary#ID")
    definition: str = Field(description="Markdown, with $…$ math")
    see: list[GlossaryLinkOut]

    @classmethod
    def of(cls, term: Term) -> "GlossaryTermOut":
        return cls(
            term=term.term,
            id=term.slug,
            definition=term.definition,
            see=[
                GlossaryLinkOut(href=ln.href, kind=ln.kind, label=ln.label, section=ln.section)
                for ln in term.links
            ],
        )


@router.get("/glossary", response_class=HTMLResponse, include_in_schema=False)
def glossary_page(request: Request, glossary: GlossaryDep, templates: TemplatesDep) -> HTMLResponse:
    return templates.TemplateResponse(
        request,
        "glossary.html",
        {"glossary": glossary, "groups": glossary.by_letter(), "alphabet": ALPHABET},
    )


@router.get("/api/glossary", tags=["content"])
def glossary_api(glossary: GlossaryDep) -> list[GlossaryTermOut]:
    """Every glossary term, alphabetically, with the topics, cards and labs that explain it."""
    return [GlossaryTermOut.of(term) for term in glossary.terms]

"""The labs: a page per lab (GET forms, so results are shareable URLs) and a JSON API.

One module per lab (memory, collectives, pipeline, checkpoint, moe, layout) holds its pydantic
input model, the single source of its bounds, the form derived from it, its view and its
endpoint; `common`, `forms` and `format` are what they share. Names and titles are in
app.labs.catalog.
"""

from collections.abc import Callable

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from app.web.deps import CatalogDep, TemplatesDep
from app.web.labs import checkpoint, collectives, layout, memory, moe, pipeline
from app.web.labs.common import OUT_OF_RANGE, Context, LabSpec, Values, used_by
from app.web.labs.forms import is_current, parse, preset_query, validate

router = APIRouter()
LABS: dict[str, LabSpec] = {
    module.SPEC.name: module.SPEC
    for module in (memory, collectives, pipeline, checkpoint, moe, layout)
}
VIEWS: dict[str, Callable[[Values], Context]] = {name: spec.view for name, spec in LABS.items()}
for module in (memory, collectives, pipeline, checkpoint, moe, layout):
    router.include_router(module.router)


@router.get("/labs", response_class=HTMLResponse, include_in_schema=False)
def labs_index(request: Request, catalog: CatalogDep, templates: TemplatesDep) -> HTMLResponse:
    labs = [(spec, used_by(catalog, spec.name)) for spec in LABS.values()]
    return templates.TemplateResponse(request, "labs/index.html", {"labs": labs})


@router.get("/labs/collective", include_in_schema=False)
def collective_page(request: Request) -> RedirectResponse:
    """The API says "collective"; the page is "collectives". Keep the query string."""
    query = request.url.query
    return RedirectResponse("/labs/collectives" + (f"?{query}" if query else ""), 308)


@router.get("/labs/{name}", response_class=HTMLResponse, include_in_schema=False)
def lab_page(
    name: str, request: Request, catalog: CatalogDep, templates: TemplatesDep
) -> HTMLResponse:
    spec = LABS.get(name)
    if spec is None:
        raise HTTPException(status_code=404, detail=f"No lab named '{name}'.")
    form = parse(spec.fields, request.query_params)
    result: Context | None = None
    if form.ok and validate(spec.model, form) is not None:
        try:
            result = VIEWS[name](form.values)
        except ValueError as error:
            form.add_lab_error(error)
        except ArithmeticError:
            form.general.append(OUT_OF_RANGE)
    presets = [(p, preset_query(spec.fields, p), is_current(form, p)) for p in spec.presets]
    context = {
        "lab": spec,
        "form": form,
        "presets": presets,
        "result": result if form.ok else None,
        "used_by": used_by(catalog, name),
    }
    return templates.TemplateResponse(
        request, f"labs/{name}.html", context, status_code=200 if form.ok else 422
    )

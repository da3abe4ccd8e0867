"""The labs: a page per lab (GET forms, so results are shareable URLs) and a JSON API."""

from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import APIRouter, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse
from pydantic import BaseModel

from app.labs import collectives, layout, memory, moe, pipeline
from app.web import lab_models as m
from app.web.deps import CatalogDep, TemplatesDep
from app.web.lab_forms import is_current, parse, preset_query
from app.web.lab_specs import LABS
from app.web.lab_views import Context, Values, layout_view, memory_view, used_by
from app.web.lab_views_more import (
    bounded_checkpoint,
    checkpoint_view,
    collectives_view,
    moe_view,
    pipeline_view,
)

router = APIRouter()
VIEWS: dict[str, Callable[[Values], Context]] = {
    "memory": memory_view,
    "collectives": collectives_view,
    "pipeline": pipeline_view,
    "checkpoint": checkpoint_view,
    "moe": moe_view,
    "layout": layout_view,
}
OUT_OF_RANGE = "These numbers are out of the range the formulas can handle."
Result = TypeVar("Result")


@router.get("/labs", response_class=HTMLResponse, include_in_schema=False)
def labs_index(request: Request, catalog: CatalogDep, templates: TemplatesDep) -> HTMLResponse:
    labs = [(spec, used_by(catalog, spec.name)) for spec in LABS.values()]
    return templates.TemplateResponse(request, "labs/index.html", {"labs": labs})


@router.get("/labs/{name}", response_class=HTMLResponse, include_in_schema=False)
def lab_page(
    name: str, request: Request, catalog: CatalogDep, templates: TemplatesDep
) -> HTMLResponse:
    spec = LABS.get(name)
    if spec is None:
        raise HTTPException(status_code=404, detail=f"No lab named '{name}'.")
    form = parse(spec.fields, request.query_params)
    result: Context | None = None
    if form.ok:
        try:
            result = VIEWS[name](form.values)
        except ValueError as error:
            form.add_lab_error(str(error))
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


def _run(body: BaseModel, compute: Callable[[], Result]) -> Result:
    """Call a lab function; its "field: message" ValueErrors become 422s like FastAPI's own."""
    try:
        return compute()
    except ValueError as error:
        name, _, message = str(error).partition(": ")
        known = bool(message) and name in type(body).model_fields
        loc = ("body", name) if known else ("body",)
        msg = message if known else str(error)
    except ArithmeticError:
        loc, msg = ("body",), OUT_OF_RANGE
    raise RequestValidationError([{"loc": loc, "msg": msg, "type": "value_error"}])


INVALID: dict[int | str, dict[str, Any]] = {
    422: {"description": "Invalid input: `detail[].loc` names the field, `msg` says why"}
}


@router.post("/api/labs/memory", tags=["labs"], responses=INVALID)
def memory_api(body: m.MemoryIn) -> m.MemoryOut:
    """Per-GPU bytes of weights, gradients, optimizer states and activations (ZeRO, Korthikanti)."""
    result = _run(body, lambda: memory.memory(**body.model_dump()))
    return m.MemoryOut.model_validate(result)


@router.post("/api/labs/collective", tags=["labs"], responses=INVALID)
def collective_api(body: m.CollectiveIn) -> m.CollectiveOut:
    """α–β time of one collective on a ring or tree, with nccl-tests' bus-bandwidth factor."""
    result = _run(body, lambda: collectives.collective(**body.model_dump()))
    cross = _run(
        body, lambda: collectives.crossover_bytes(body.ranks, body.alpha_s, body.bandwidth_Bps)
    )
    return m.CollectiveOut.model_validate({**vars(result), "crossover_bytes": cross})


@router.post("/api/labs/pipeline", tags=["labs"], responses=INVALID)
def pipeline_api(body: m.PipelineIn) -> m.PipelineOut:
    """Bubble and activations in flight of GPipe, 1F1B and interleaved schedules."""
    result = _run(body, lambda: pipeline.pipeline(**body.model_dump()))
    return m.PipelineOut.model_validate(result)


@router.post("/api/labs/checkpoint", tags=["labs"], responses=INVALID)
def checkpoint_api(body: m.CheckpointIn) -> m.CheckpointOut:
    """Young's and Daly's checkpoint intervals and the share of time lost (Daly 2006)."""
    result = _run(body, lambda: bounded_checkpoint(**body.model_dump()))
    return m.CheckpointOut.model_validate(result)


@router.post("/api/labs/moe", tags=["labs"], responses=INVALID)
def moe_api(body: m.MoeIn) -> m.MoeOut:
    """Expert capacity; drops given loads; the Switch aux loss given loads and probabilities."""
    result = _run(body, lambda: moe.moe(**body.model_dump()))
    return m.MoeOut.model_validate(result)


@router.post("/api/labs/layout", tags=["labs"], responses=INVALID)
def layout_api(body: m.LayoutIn) -> m.LayoutOut:
    """TP × PP × DP, ZeRO stage and recomputation for a model on a cluster; 422 if none fits."""
    result = _run(body, lambda: layout.layout(**body.model_dump()))
    return m.LayoutOut.model_validate(result)

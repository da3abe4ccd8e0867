"""The MoE lab: its input model (the one source of its bounds), its page and its endpoint."""

from typing import Annotated

from fastapi import APIRouter
from pydantic import Field

from app.charts import svg
from app.labs import moe
from app.web.labs import format as fmt
from app.web.labs.common import (
    INVALID,
    Context,
    LabIn,
    LabOut,
    StepOut,
    Values,
    lab_spec,
    render_steps,
    run,
)
from app.web.labs.forms import Field as F
from app.web.labs.forms import Preset
from app.wording import plural

router = APIRouter()
SIM_TOKENS_TOP1 = 250_000  # simulated tokens for top-1 routing, about 0.1 s
SIM_WORK_TOPK = 200_000  # tokens × experts for top-k > 1, about 0.07 s
COLUMN_LIMIT = 256  # experts drawn one column each


class MoeIn(LabIn):
    tokens: Annotated[int, Field(gt=0, le=10**12)]
    experts: Annotated[int, Field(gt=0, le=65_536)]
    top_k: Annotated[int, Field(gt=0, le=65_536)] = 1
    capacity_factor: Annotated[float, Field(gt=0, le=1e6)]
    expert_loads: list[Annotated[int, Field(ge=0)]] | None = Field(default=None, max_length=65_536)
    router_probs: list[Annotated[float, Field(ge=0, le=1)]] | None = Field(
        default=None, max_length=65_536
    )
    aux_alpha: Annotated[float, Field(ge=0, le=1e6)] = 0.01


class MoePage(MoeIn):
    """The page draws the loads from a simulated router with this skew instead."""

    skew: Annotated[float, Field(ge=0, le=20)] = 0.5


class MoeOut(LabOut):
    expert_capacity: int
    dropped_tokens: int | None = Field(description="Set when expert_loads are given")
    drop_fraction: float | None = Field(description="Set when expert_loads are given")
    aux_loss: float | None = Field(description="Set when expert_loads and router_probs are given")
    steps: list[StepOut]
    notes: list[str] = Field(description="Where the numbers come from, what is left out")


@router.post("/api/labs/moe", tags=["labs"], responses=INVALID)
def moe_api(body: MoeIn) -> MoeOut:
    """Expert capacity; drops given loads; the Switch aux loss given loads and probabilities."""
    result = run(body, lambda: moe.moe(**body.model_dump()))
    return MoeOut.model_validate(result)


def _can_simulate(tokens: int, experts: int, top_k: int) -> bool:
    return tokens <= SIM_TOKENS_TOP1 if top_k == 1 else tokens * experts <= SIM_WORK_TOPK


def _charts(loads: list[int], tokens: int, k: int, cf: float, result: moe.MoeResult) -> list[str]:
    capacity, dropped = result.expert_capacity, result.dropped_tokens or 0
    charts = []
    if len(loads) <= COLUMN_LIMIT:
        charts.append(
            svg.columns(
                loads,
                limit=svg.Mark(f"Capacity, {capacity:,}", capacity),
                chart_id="moe-loads",
                title="Tokens routed to each expert against its capacity",
                desc=f"{plural(len(loads), 'expert')}; the busiest gets "
                f"{plural(max(loads), 'token')} against a capacity of {capacity:,}; "
                f"{plural(dropped, 'assignment')} overflow and are dropped.",
                x_label="expert",
                y_label="tokens",
                within_label="kept",
                over_label="dropped",
            )
        )
    curve = moe.drop_curve(loads, tokens, [0.25 * i for i in range(2, 17)], k)
    points = [(p.capacity_factor, 100 * p.drop_fraction) for p in curve]
    charts.append(
        svg.line_chart(
            [svg.Series("Drop fraction", points, "c2")],
            chart_id="moe-drops",
            title="Dropped tokens against capacity factor",
            desc=f"Drop fraction for capacity factors 0.5 to 4 with these routed loads; at "
            f"{fmt.sig(cf)} it is {fmt.percent(result.drop_fraction or 0.0)}.",
            x_label="capacity factor",
            y_label="dropped, %",
            fmt_y=lambda y: f"{y:g}%",
            marks=[svg.Mark(f"Your capacity factor, {fmt.sig(cf)}", cf, "ch-mark-2")],
        )
    )
    return charts


def view(values: Values) -> Context:
    tokens, experts, k = values["tokens"], values["experts"], values["top_k"]
    cf, alpha, skew = values["capacity_factor"], values["aux_alpha"], values["skew"]
    base = moe.moe(tokens, experts, cf, k, aux_alpha=alpha)
    capacity_row = ("Expert capacity", f"{base.expert_capacity:,} tokens")
    if not _can_simulate(tokens, experts, k):
        limit = f"{SIM_TOKENS_TOP1:,} tokens" if k == 1 else f"{SIM_WORK_TOPK:,} tokens × experts"
        steps = render_steps(base.steps)
        return {
            "rows": [capacity_row],
            "steps": steps,
            "notes": base.notes,
            "simulated": False,
            "sim_limit": limit,
        }
    loads = moe.simulate_loads(tokens, experts, k, skew)
    weights = [(i + 1) ** -skew for i in range(experts)]
    total = sum(weights)
    probs = [w / total for w in weights]
    result = moe.moe(tokens, experts, cf, k, loads, probs, alpha)
    busiest = max(loads) * experts / (k * tokens)
    rows = [
        capacity_row,
        ("Busiest expert", f"{max(loads):,} tokens ({fmt.sig(busiest)}× an even share)"),
        ("Dropped token assignments", f"{result.dropped_tokens or 0:,}"),
        ("Drop fraction", fmt.percent(result.drop_fraction or 0.0)),
        (
            "Load-balancing loss",
            f"{fmt.sig(result.aux_loss or 0.0, 4)} (even: {fmt.sig(alpha, 4)})",
        ),
    ]
    return {
        "rows": rows,
        "steps": render_steps(result.steps),
        "notes": result.notes,
        "simulated": True,
        "charts": _charts(loads, tokens, k, cf, result),
    }


# fmt: off
SPEC = lab_spec(
    "moe",
    MoePage,
    (
        F("tokens", "Tokens in the batch (T)", "int", "4096", step="1"),
        F("experts", "Experts (E)", "int", "8", step="1"),
        F("top_k", "Experts per token (k)", "int", "2", step="1"),
        F("capacity_factor", "Capacity factor (CF)", "float", "1.25"),
        F("skew", "Router skew", "float", "0.5",
          hint="0 spreads tokens evenly; larger values favour the first experts"),
        F("aux_alpha", "Aux loss weight (α)", "float", "0.01"),
    ),
    (
        Preset("Even router", {"skew": "0"}),
        Preset("Mild skew", {}),
        Preset("Heavy skew", {"skew": "1.5"}),
        Preset("Near collapse", {"skew": "4"}),
        Preset("Switch: 64 experts, top-1, CF 1", {
            "tokens": "16384", "experts": "64", "top_k": "1", "capacity_factor": "1",
            "skew": "0.3"}),
    ),
    view,
)
# fmt: on

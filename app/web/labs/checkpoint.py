"""The checkpoint lab: its input model (the one source of its bounds), its page and endpoint."""

from typing import Annotated

from fastapi import APIRouter
from pydantic import Field

from app.charts import svg
from app.labs import Step, checkpoint
from app.web.labs import format as fmt
from app.web.labs.common import (
    INVALID,
    Context,
    Count,
    LabIn,
    LabOut,
    Seconds,
    StepOut,
    Values,
    lab_spec,
    render_steps,
    run,
)
from app.web.labs.forms import Field as F
from app.web.labs.forms import Preset

router = APIRouter()
CheckpointCost = Annotated[float, Field(gt=0, le=1e9)]
Mtbf = Annotated[float, Field(gt=0, le=1e12)]


class CheckpointIn(LabIn):
    checkpoint_cost_s: CheckpointCost
    mtbf_s: Mtbf
    restart_cost_s: Seconds = 0.0


class CheckpointPage(CheckpointIn):
    """The page may leave the MTBF blank and work it out from a failure log instead."""

    mtbf_s: Mtbf | None = None  # type: ignore[assignment]
    interruptions: Count
    days: Annotated[float, Field(gt=0, le=1e5)]
    log_gpus: Count
    gpus: Count


class WastePointOut(LabOut):
    interval_s: float
    waste_fraction: float


class CheckpointOut(LabOut):
    young_interval_s: float
    daly_interval_s: float
    waste_fraction: float = Field(description="Share of wall time lost at Daly's interval")
    optimal_interval_s: float
    young_waste_fraction: float
    curve: list[WastePointOut] = Field(description="Waste against checkpoint interval")
    steps: list[StepOut]
    notes: list[str] = Field(description="Where the numbers come from, what is left out")


@router.post("/api/labs/checkpoint", tags=["labs"], responses=INVALID)
def checkpoint_api(body: CheckpointIn) -> CheckpointOut:
    """Young's and Daly's checkpoint intervals and the share of time lost (Daly 2006)."""
    result = run(body, lambda: checkpoint.checkpoint(**body.model_dump()))
    return CheckpointOut.model_validate(result)


def _mtbf_step(values: Values, mtbf: float) -> Step:
    n, days = values["interruptions"], values["days"]
    logged, gpus = values["log_gpus"], values["gpus"]
    return Step(
        "Cluster MTBF from the failure log, scaled to your GPU count",
        r"M = \frac{\text{days} \times 86400}{\text{interruptions}} \times "
        r"\frac{\text{GPUs in log}}{\text{your GPUs}}",
        rf"\frac{{{fmt.sig(days, 4)} \times 86400}}{{{n}}} \times \frac{{{logged}}}{{{gpus}}}",
        mtbf,
        "s",
    )


def view(values: Values) -> Context:
    cost, restart = values["checkpoint_cost_s"], values["restart_cost_s"]
    mtbf = values["mtbf_s"]
    from_log = mtbf is None
    if mtbf is None:
        mtbf = checkpoint.cluster_mtbf_s(
            values["interruptions"], values["days"], values["log_gpus"], values["gpus"]
        )
    result = checkpoint.checkpoint(cost, mtbf, restart)
    steps = ([_mtbf_step(values, mtbf)] if from_log else []) + result.steps
    curve = [(p.interval_s, 100 * p.waste_fraction) for p in result.curve]
    chart = svg.line_chart(
        [svg.Series("Share of time lost", curve, "c1")],
        chart_id="checkpoint-chart",
        title="Time lost against checkpoint interval",
        desc=f"Waste falls, then rises again as the interval grows; Daly's interval of "
        f"{fmt.seconds(result.daly_interval_s)} loses {fmt.percent(result.waste_fraction)}.",
        x_label="checkpoint interval",
        y_label="time lost, %",
        fmt_x=fmt.axis_seconds,
        fmt_y=lambda y: f"{y:g}%",
        log_x=True,
        x_ticks=fmt.time_ticks(curve[0][0], curve[-1][0]),
        marks=[
            svg.Mark(
                f"Young, {fmt.seconds(result.young_interval_s)}",
                result.young_interval_s,
                "ch-mark-2",
            ),
            svg.Mark(f"Daly, {fmt.seconds(result.daly_interval_s)}", result.daly_interval_s),
        ],
    )
    return {
        "from_log": from_log,
        "rows": [
            ("Mean time between failures", fmt.seconds(mtbf)),
            ("Young's interval", fmt.seconds(result.young_interval_s)),
            ("Daly's interval", fmt.seconds(result.daly_interval_s)),
            ("Best interval (exact)", fmt.seconds(result.optimal_interval_s)),
            ("Time lost at Daly's interval", fmt.percent(result.waste_fraction)),
            ("Time lost at Young's interval", fmt.percent(result.young_waste_fraction)),
            ("Time lost per day", fmt.seconds(result.waste_fraction * 86_400)),
        ],
        "steps": render_steps(steps),
        "notes": result.notes,
        "chart": chart,
    }


LOG = "Failure log"

# fmt: off
SPEC = lab_spec(
    "checkpoint",
    CheckpointPage,
    (
        F("checkpoint_cost_s", "Time to write a checkpoint (δ)", "float", "60", unit="s"),
        F("restart_cost_s", "Time to restart (R)", "float", "600", unit="s",
          hint="Detect, reschedule, reload"),
        F("mtbf_h", "Mean time between failures (M)", "float", "", unit="h", api="mtbf_s",
          scale=3600.0, optional=True,
          hint="Leave blank to work it out from the failure log below"),
        F("interruptions", "Interruptions", "int", "419", step="1", group=LOG),
        F("days", "Over", "float", "54", unit="days", group=LOG),
        F("log_gpus", "On", "int", "16384", unit="GPUs", step="1", group=LOG),
        F("gpus", "Your cluster", "int", "16384", unit="GPUs", step="1", group=LOG,
          hint="The failure rate grows with the GPU count"),
    ),
    (
        Preset("Llama 3: 16,384 GPUs", {}),
        Preset("Same failure rate, 4,096 GPUs", {"gpus": "4096"}),
        Preset("Same failure rate, 100,000 GPUs", {"gpus": "100000"}),
        Preset("MTBF of 24 hours", {"mtbf_h": "24"}),
    ),
    view,
    {LOG: "Used when the time between failures above is blank."},
)
# fmt: on

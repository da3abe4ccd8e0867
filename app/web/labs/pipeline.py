"""The pipeline lab: its input model (the one source of its bounds), its page and endpoint."""

from typing import Annotated, Literal

from fastapi import APIRouter
from pydantic import Field

from app.charts import svg
from app.labs import pipeline
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
TIMELINE_LIMIT = 512  # stages × microbatches × chunks drawn; beyond it the boxes are unreadable


class PipelineIn(LabIn):
    stages: Annotated[int, Field(gt=0, le=100_000)]
    microbatches: Annotated[int, Field(gt=0, le=1_000_000)]
    interleave: Annotated[int, Field(gt=0, le=1024)] = 1
    schedule: Literal["gpipe", "1f1b", "interleaved"] = "1f1b"


class PipelineOut(LabOut):
    bubble_fraction: float = Field(description="Bubble time over ideal compute time")
    bubble_share: float = Field(description="Bubble time over total time")
    first_stage_inflight_microbatches: float
    steps: list[StepOut]
    notes: list[str] = Field(description="Where the numbers come from, what is left out")


@router.post("/api/labs/pipeline", tags=["labs"], responses=INVALID)
def pipeline_api(body: PipelineIn) -> PipelineOut:
    """Bubble and activations in flight of GPipe, 1F1B and interleaved schedules."""
    result = run(body, lambda: pipeline.pipeline(**body.model_dump()))
    return PipelineOut.model_validate(result)


def view(values: Values) -> Context:
    p, m, v = values["stages"], values["microbatches"], values["interleave"]
    schedule = values["schedule"]
    result = pipeline.pipeline(p, m, schedule, v)
    context: Context = {
        "rows": [
            ("Bubble, as a share of ideal compute", fmt.percent(result.bubble_fraction)),
            ("Bubble, as a share of the whole step", fmt.percent(result.bubble_share)),
            (
                "Microbatches held by stage 1 at its peak",
                fmt.sig(result.first_stage_inflight_microbatches, 4),
            ),
        ],
        "steps": render_steps(result.steps),
        "notes": result.notes,
        "chart": None,
        "measured": None,
        "limit": TIMELINE_LIMIT,
    }
    if p * m * v > TIMELINE_LIMIT:
        return context
    events = pipeline.schedule_timeline(p, m, schedule, v)
    shade = v > 1
    blocks = [
        svg.Block(
            e.stage,
            e.start,
            e.end,
            f"{'fwd' if e.kind == 'forward' else 'bwd'} k{e.chunk % 2 if shade else 0}",
            str(e.microbatch + 1),
        )
        for e in events
    ]
    legend = [("forward", "fwd k0"), ("backward", "bwd k0")]
    if shade:
        legend = [
            ("forward, odd chunks", "fwd k0"),
            ("forward, even chunks", "fwd k1"),
            ("backward, odd chunks", "bwd k0"),
            ("backward, even chunks", "bwd k1"),
        ]
    measured = pipeline.timeline_bubble_fraction(events, p)
    end = svg.blocks_end(blocks)
    context["measured"] = fmt.percent(measured)
    context["chart"] = svg.timeline(
        blocks,
        [f"Stage {s + 1}" for s in range(p)],
        chart_id="pipeline-chart",
        title=f"{schedule.upper()} schedule, {plural(p, 'stage')}, "
        f"{plural(m, 'microbatch', 'microbatches')}",
        desc=f"Each stage's forward and backward passes over time, numbered by microbatch; the "
        f"step takes {fmt.sig(end)} forward-pass times and each stage idles "
        f"{fmt.percent(measured)} of its busy time.",
        x_label="time, in forward passes (a backward pass takes 2)",
        legend=legend,
    )
    return context


# fmt: off
SPEC = lab_spec(
    "pipeline",
    PipelineIn,
    (
        F("schedule", "Schedule", "choice", "1f1b", choices=(
            ("gpipe", "GPipe"), ("1f1b", "1F1B"), ("interleaved", "Interleaved 1F1B"))),
        F("stages", "Stages (p)", "int", "4", step="1"),
        F("microbatches", "Microbatches (m)", "int", "8", step="1"),
        F("interleave", "Chunks per stage (v)", "int", "1", step="1",
          hint="1 for GPipe and 1F1B; at least 2 for interleaved"),
    ),
    (
        Preset("GPipe, 4 × 8", {"schedule": "gpipe"}),
        Preset("1F1B, 4 × 8", {}),
        Preset("Interleaved, 4 × 8, v = 2", {"schedule": "interleaved", "interleave": "2"}),
        Preset("8 stages, 8 microbatches", {"stages": "8"}),
        Preset("8 stages, 32 microbatches", {"stages": "8", "microbatches": "32"}),
    ),
    view,
)
# fmt: on

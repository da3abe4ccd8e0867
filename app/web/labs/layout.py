"""The layout lab: its input model (the one source of its bounds), its page and its endpoint."""

from typing import Annotated, Literal

from fastapi import APIRouter
from pydantic import Field

from app.charts import svg
from app.labs import layout
from app.web.labs import format as fmt
from app.web.labs.common import (
    INVALID,
    Context,
    Count,
    LabIn,
    LabOut,
    Rate,
    Size,
    StepOut,
    Values,
    lab_spec,
    render_steps,
    run,
)
from app.web.labs.forms import Field as F
from app.web.labs.forms import Preset
from app.web.labs.memory import MemoryOut, memory_rows, memory_segments
from app.wording import plural

router = APIRouter()
RANKING_ROWS = 12  # candidates listed in the page's table; the API returns them all
CHART_BARS = 8


class LayoutIn(LabIn):
    params: Size
    layers: Annotated[int, Field(gt=0, le=10_000)]
    hidden: Count
    heads: Annotated[int, Field(gt=0, le=100_000)]
    seq_len: Count
    global_batch_tokens: Annotated[int, Field(gt=0, le=10**12)]
    gpus: Count
    gpus_per_node: Annotated[int, Field(gt=0, le=1024)]
    gpu_memory_bytes: Size
    intra_node_Bps: Rate
    inter_node_Bps: Rate = Field(description="One GPU's network rate (one NIC per GPU)")
    peak_flops: Annotated[float, Field(gt=0, le=1e21)]
    mfu: Annotated[float, Field(gt=0, le=1)] = Field(
        default=0.4, description="The utilisation: an MFU, or an HFU when efficiency is hfu"
    )
    efficiency: Literal["mfu", "hfu"] = Field(
        default="mfu",
        description="mfu: a measured model FLOPs utilisation, which already contains "
        "recomputation; hfu: hardware FLOPs utilisation, so recomputation adds time",
    )
    grad_dtype: Literal["bf16", "fp32"] = Field(
        default="bf16", description="Gradient accumulation and reduction (Llama 3: fp32)"
    )
    alpha_s: Annotated[float, Field(ge=0, le=1)] = Field(
        default=layout.DEFAULT_ALPHA_S, description="Latency per network ring step"
    )


class TrafficOut(LabOut):
    name: str = Field(description='"tensor", "pipeline" or "data"')
    collective: str
    frequency: str
    calls_per_step: int
    bytes_per_step_per_gpu: float
    link: str = Field(description='"nvlink" or "network"')
    time_s: float
    exposed_s: float = Field(description="The part not hidden behind compute")
    bandwidth_Bps: float = Field(description="The effective per-rank rate the time uses")
    overlap_window_s: float = Field(description="Compute it may hide behind; 0 if none")
    latency_s: float = Field(description="α × network ring steps, included in time_s")


class CandidateOut(LabOut):
    tp: int
    pp: int
    dp: int
    zero_stage: int
    recompute: str
    microbatches: int
    memory_bytes: float
    compute_time_s: float
    bubble_s: float
    tensor_exposed_s: float
    pipeline_exposed_s: float
    data_exposed_s: float
    data_time_s: float
    step_time_estimate_s: float


class LayoutOut(LabOut):
    tp: int
    pp: int
    dp: int
    zero_stage: int
    recompute: str
    sequence_parallel: bool
    microbatches: int
    memory: MemoryOut
    usable_memory_bytes: float
    traffic: list[TrafficOut]
    compute_time_s: float
    bubble_fraction: float
    step_time_estimate_s: float
    reasons: list[str]
    candidates: list[CandidateOut] = Field(
        description="Every layout that fits, fastest first; the first is the one above"
    )
    notes: list[str] = Field(description="Where the numbers come from, what is left out")
    steps: list[StepOut]


@router.post("/api/labs/layout", tags=["labs"], responses=INVALID)
def layout_api(body: LayoutIn) -> LayoutOut:
    """Every TP × PP × DP, ZeRO stage and recomputation that fits, ranked by step time; the
    fastest is the answer's layout. 422 if none fits."""
    result = run(body, lambda: layout.layout(**body.model_dump()))
    return LayoutOut.model_validate(result)


STRATEGY = {"tensor": "Tensor (TP)", "pipeline": "Pipeline (PP)", "data": "Data (DP/ZeRO)"}


RECOMPUTE_TEXT = {"none": "no recompute", "selective": "selective", "full": "full recompute"}
SHORT_RECOMPUTE = {"none": "", "selective": " sel", "full": " full"}


def _short(c: layout.Candidate) -> str:
    return f"TP{c.tp} PP{c.pp} Z{c.zero_stage}{SHORT_RECOMPUTE[c.recompute]}"


def _ranking_chart(ranked: list[layout.Candidate]) -> str:
    bars = [
        svg.Bar(
            f"{i + 1}. {_short(c)}",
            [
                svg.Segment("Compute", c.compute_time_s, "c1"),
                svg.Segment("Pipeline bubble", c.bubble_s, "c2"),
                svg.Segment("Exposed TP", c.tensor_exposed_s, "c3"),
                svg.Segment("Exposed PP", c.pipeline_exposed_s, "c4"),
                svg.Segment("Exposed DP", c.data_exposed_s, "c5"),
            ],
            highlight=i == 0,
        )
        for i, c in enumerate(ranked[:CHART_BARS])
    ]
    best = ranked[0]
    return svg.stacked_bars(
        bars,
        chart_id="ranking-chart",
        title="Step time of the fastest layouts that fit",
        desc=f"The {len(bars)} fastest of {plural(len(ranked), 'layout')} that fit, each bar "
        "split into compute, pipeline bubble and exposed tensor, pipeline and data-parallel "
        f"traffic; the first, {_short(best)}, takes {fmt.seconds(best.step_time_estimate_s)}.",
        fmt=fmt.axis_seconds,
        x_label="seconds per step",
        width=460,
    )


def view(values: Values) -> Context:
    result = layout.layout(**{name: values[name] for name in LayoutIn.model_fields})
    mem, capacity = result.memory, float(values["gpu_memory_bytes"])
    usable = result.usable_memory_bytes
    chart = svg.stacked_bars(
        [svg.Bar("Per GPU", memory_segments(mem), highlight=True)],
        chart_id="layout-chart",
        title="Memory per GPU of the chosen layout",
        desc=f"{fmt.nbytes(mem.total_bytes)} used; {fmt.nbytes(usable)} usable of "
        f"{fmt.nbytes(capacity)}.",
        fmt=fmt.axis_bytes,
        marks=[
            svg.Mark(f"Usable, {fmt.nbytes(usable)}", usable, "ch-mark-2"),
            svg.Mark(f"GPU memory, {fmt.nbytes(capacity)}", capacity),
        ],
        x_label="bytes per GPU",
    )
    zero = f"ZeRO-{result.zero_stage}" if result.zero_stage else "none"
    bubble_s = result.compute_time_s * result.bubble_fraction
    exposed = sum(item.exposed_s for item in result.traffic)
    best = result.step_time_estimate_s
    ranking = [
        {
            "rank": i + 1,
            "tp": c.tp,
            "pp": c.pp,
            "dp": f"{c.dp:,}",
            "zero": f"ZeRO-{c.zero_stage}" if c.zero_stage else "none",
            "recompute": RECOMPUTE_TEXT[c.recompute],
            "memory": fmt.nbytes(c.memory_bytes),
            "compute": fmt.seconds(c.compute_time_s),
            "bubble": fmt.seconds(c.bubble_s),
            "exposed": fmt.seconds(c.tensor_exposed_s + c.pipeline_exposed_s + c.data_exposed_s),
            "data": f"{fmt.seconds(c.data_exposed_s)} / {fmt.seconds(c.data_time_s)}",
            "step": fmt.seconds(c.step_time_estimate_s),
            "slower": "" if i == 0 else f"+{fmt.percent(c.step_time_estimate_s / best - 1)}",
        }
        for i, c in enumerate(result.candidates[:RANKING_ROWS])
    ]
    return {
        "layout": result,
        "summary": [
            ("Tensor parallel (TP)", str(result.tp)),
            ("Pipeline parallel (PP)", str(result.pp)),
            ("Data parallel (DP)", f"{result.dp:,}"),
            ("ZeRO stage", zero),
            ("Recomputation", result.recompute),
            ("Sequence parallelism", "on" if result.sequence_parallel else "off"),
            ("Microbatches per pipeline per step", f"{result.microbatches:,}"),
            ("Memory per GPU", fmt.nbytes_both(mem.total_bytes)),
            ("Step time, estimated", fmt.seconds(result.step_time_estimate_s)),
        ],
        "ranking": ranking,
        "ranked": len(result.candidates),
        "ranking_chart": _ranking_chart(result.candidates),
        "time_rows": [
            ("Compute", fmt.seconds(result.compute_time_s)),
            (f"Pipeline bubble ({fmt.percent(result.bubble_fraction)})", fmt.seconds(bubble_s)),
            ("Communication not hidden by compute", fmt.seconds(exposed)),
            ("Step", fmt.seconds(result.step_time_estimate_s)),
        ],
        "traffic": [
            {
                "strategy": STRATEGY.get(item.name, item.name),
                "collective": item.collective,
                "frequency": item.frequency,
                "calls": f"{item.calls_per_step:,}",
                "bytes": fmt.nbytes(item.bytes_per_step_per_gpu),
                "link": "NVLink" if item.link == "nvlink" else "network",
                "rate": fmt.rate(item.bandwidth_Bps),
                "time": fmt.seconds(item.time_s),
                "window": fmt.seconds(item.overlap_window_s) if item.overlap_window_s else "",
                "exposed": fmt.seconds(item.exposed_s),
            }
            for item in result.traffic
        ],
        "rows": memory_rows(mem),
        "chart": chart,
        "notes": result.notes,
        "steps": render_steps(result.steps + mem.steps),
    }


MODEL, CLUSTER, TIME = "Model", "Cluster", "Time model"

# fmt: off
SPEC = lab_spec(
    "layout",
    LayoutIn,
    (
        F("params", "Parameters", "float", "70e9", group=MODEL),
        F("layers", "Layers", "int", "80", group=MODEL, step="1"),
        F("hidden", "Hidden size", "int", "8192", group=MODEL, step="1"),
        F("heads", "Attention heads", "int", "64", group=MODEL, step="1"),
        F("seq_len", "Sequence length", "int", "4096", unit="tokens", group=MODEL, step="1"),
        F("global_batch_tokens", "Global batch", "int", "4194304", unit="tokens", group=MODEL,
          step="1", hint="4194304 is 1,024 sequences of 4,096"),
        F("gpus", "GPUs", "int", "64", group=CLUSTER, step="1"),
        F("gpus_per_node", "GPUs per node", "int", "8", group=CLUSTER, step="1"),
        F("gpu_memory", "GPU memory", "float", "80", unit="GB", api="gpu_memory_bytes",
          scale=1e9, group=CLUSTER),
        F("intra_node", "NVLink per GPU", "float", "450", unit="GB/s",
          api="intra_node_Bps", scale=1e9, group=CLUSTER),
        F("inter_node", "Network per GPU", "float", "50", unit="GB/s", api="inter_node_Bps",
          scale=1e9, group=CLUSTER, hint="A 400 Gb/s NIC per GPU is 50 GB/s"),
        F("alpha_us", "Latency per network ring step (α)", "float", "5", unit="µs",
          api="alpha_s", scale=1e-6, group=CLUSTER),
        F("peak", "Peak compute per GPU", "float", "989", unit="TFLOP/s", api="peak_flops",
          scale=1e12, group=CLUSTER, hint="H100 dense bf16: 989"),
        F("mfu", "Utilisation", "float", "0.4", group=TIME),
        F("efficiency", "The utilisation is", "choice", "mfu", choices=(
            ("mfu", "MFU, measured (recomputation already in it)"),
            ("hfu", "HFU (recomputation adds time)")), group=TIME),
        F("grad_dtype", "Gradients kept and reduced in", "choice", "bf16", choices=(
            ("bf16", "bf16 (2 bytes)"), ("fp32", "fp32 (4 bytes, as Llama 3)")), group=TIME),
    ),
    (
        Preset("7B on one H100 node", {
            "params": "7e9", "layers": "32", "hidden": "4096", "heads": "32", "gpus": "8"}),
        Preset("70B on 64 H100s", {}),
        Preset("70B on 1,024 H100s", {"gpus": "1024"}),
        Preset("70B on 1,024 H100s, fp32 gradients", {"gpus": "1024", "grad_dtype": "fp32"}),
        Preset("405B on 16,384 H100s", {
            "params": "405e9", "layers": "126", "hidden": "16384", "heads": "128",
            "seq_len": "8192", "global_batch_tokens": "16777216", "gpus": "16384"}),
    ),
    view,
    {TIME: "A measured MFU already counts recomputation as lost time; an HFU does not."},
)
# fmt: on

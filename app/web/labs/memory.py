"""The memory lab: its input model (the one source of its bounds), its page and its endpoint."""

from typing import Annotated, Literal

from fastapi import APIRouter
from pydantic import Field

from app.charts import svg
from app.labs import memory
from app.web.labs import format as fmt
from app.web.labs.common import (
    INVALID,
    Context,
    Count,
    LabIn,
    LabOut,
    Size,
    StepOut,
    Values,
    lab_spec,
    render_steps,
    run,
)
from app.web.labs.forms import Field as F
from app.web.labs.forms import Preset

router = APIRouter()


class MemoryIn(LabIn):
    params: Size = Field(description="Model parameters (a count, e.g. 7e9)")
    dp: Count = 1
    tp: Count = 1
    pp: Count = 1
    zero_stage: Annotated[int, Field(ge=0, le=3)] = 0
    optimizer_bytes_per_param: Annotated[float, Field(ge=0, le=1024)] = 12.0
    seq_len: Count | None = None
    micro_batch: Count | None = None
    hidden: Count | None = None
    heads: Count | None = None
    layers: Count | None = None
    recompute: Literal["none", "selective", "full"] = "none"
    sequence_parallel: bool = False
    grad_bytes_per_param: Annotated[float, Field(gt=0, le=16)] = Field(
        default=2.0, description="2 for bf16 gradients, 4 for fp32 main grads (Megatron, Llama 3)"
    )


class MemoryPage(MemoryIn):
    """The page also asks for the GPU's memory, to draw the result against it."""

    gpu_memory_bytes: Annotated[float, Field(gt=0, le=1e15)]


class MemoryOut(LabOut):
    """Bytes per GPU."""

    params_bytes: float
    grads_bytes: float
    optimizer_bytes: float
    model_states_bytes: float
    activations_bytes: float = Field(description="0 when the activation inputs are absent")
    total_bytes: float
    activations_per_layer_bytes: float
    steps: list[StepOut]
    notes: list[str] = Field(description="Where the numbers come from, what is left out")


@router.post("/api/labs/memory", tags=["labs"], responses=INVALID)
def memory_api(body: MemoryIn) -> MemoryOut:
    """Per-GPU bytes of weights, gradients, optimizer states and activations (ZeRO, Korthikanti)."""
    result = run(body, lambda: memory.memory(**body.model_dump()))
    return MemoryOut.model_validate(result)


def memory_segments(result: memory.MemoryResult) -> list[svg.Segment]:
    segments = [
        svg.Segment("Weights", result.params_bytes, "c1"),
        svg.Segment("Gradients", result.grads_bytes, "c2"),
        svg.Segment("Optimizer states", result.optimizer_bytes, "c3"),
    ]
    if result.activations_bytes:
        segments.append(svg.Segment("Activations", result.activations_bytes, "c4"))
    return segments


def memory_rows(result: memory.MemoryResult) -> list[tuple[str, str]]:
    return [
        ("Weights", fmt.nbytes_both(result.params_bytes)),
        ("Gradients", fmt.nbytes_both(result.grads_bytes)),
        ("Optimizer states", fmt.nbytes_both(result.optimizer_bytes)),
        ("Model states", fmt.nbytes_both(result.model_states_bytes)),
        ("Activations", fmt.nbytes_both(result.activations_bytes)),
        ("Total per GPU", fmt.nbytes_both(result.total_bytes)),
    ]


def fit_verdict(total: float, capacity: float) -> tuple[bool, str]:
    if total <= capacity:
        used, spare = fmt.percent(total / capacity), fmt.nbytes(capacity - total)
        return True, (
            f"Fits: {fmt.nbytes(total)} of {fmt.nbytes(capacity)} ({used}), {spare} to spare "
            "for communication buffers and fragmentation."
        )
    return False, (
        f"Does not fit: {fmt.nbytes(total)} is {fmt.sig(total / capacity)}× the GPU's "
        f"{fmt.nbytes(capacity)}."
    )


def view(values: Values) -> Context:
    args = {name: values[name] for name in MemoryIn.model_fields if name in values}
    result = memory.memory(**args)
    capacity = float(values["gpu_memory_bytes"])
    chosen = int(values["zero_stage"])
    bars, totals = [], []
    for stage in range(4):
        other = result if stage == chosen else memory.memory(**{**args, "zero_stage": stage})
        totals.append(f"ZeRO-{stage} {fmt.nbytes(other.total_bytes)}")
        label = f"ZeRO-{stage}" + (" (yours)" if stage == chosen else "")
        bars.append(svg.Bar(label, memory_segments(other), highlight=stage == chosen))
    chart = svg.stacked_bars(
        bars,
        chart_id="memory-chart",
        title="Memory per GPU at each ZeRO stage",
        desc=f"{', '.join(totals)}; the GPU has {fmt.nbytes(capacity)}.",
        fmt=fmt.axis_bytes,
        marks=[svg.Mark(f"GPU memory, {fmt.nbytes(capacity)}", capacity)],
        x_label="bytes per GPU",
    )
    fits, verdict = fit_verdict(result.total_bytes, capacity)
    return {
        "rows": memory_rows(result),
        "fits": fits,
        "verdict": verdict,
        "chart": chart,
        "steps": render_steps(result.steps),
        "notes": result.notes,
    }


MODEL_GPU, PARALLEL, ACTIVATIONS = "Model and GPU", "Parallelism", "Activations"


def _int(name: str, label: str, default: str, **extra: str | bool) -> F:
    return F(name, label, "int", default, step="1", **extra)  # type: ignore[arg-type]


# fmt: off
SPEC = lab_spec(
    "memory",
    MemoryPage,
    (
        F("params", "Parameters", "float", "7e9", hint="e.g. 70e9 for a 70B model",
          group=MODEL_GPU),
        F("gpu_memory", "GPU memory", "float", "80", unit="GB", api="gpu_memory_bytes",
          scale=1e9, group=MODEL_GPU),
        F("optimizer_bytes_per_param", "Optimizer bytes per parameter", "float", "12",
          unit="B", hint="12 for mixed-precision Adam", group=MODEL_GPU),
        F("grad_bytes_per_param", "Gradient bytes per parameter", "choice", "2",
          choices=(("2", "2: bf16"), ("4", "4: fp32 main grads")), group=MODEL_GPU,
          hint="Megatron-LM and Llama 3 keep and reduce gradients in fp32"),
        _int("dp", "Data parallel (DP)", "8", group=PARALLEL),
        _int("tp", "Tensor parallel (TP)", "1", group=PARALLEL),
        _int("pp", "Pipeline parallel (PP)", "1", group=PARALLEL),
        F("zero_stage", "ZeRO stage", "choice", "1", choices=(
            ("0", "0: none"), ("1", "1: optimizer"), ("2", "2: + gradients"),
            ("3", "3: + weights")), group=PARALLEL),
        _int("seq_len", "Sequence length", "4096", unit="tokens", optional=True,
             group=ACTIVATIONS),
        _int("micro_batch", "Micro-batch", "1", unit="sequences", optional=True,
             group=ACTIVATIONS),
        _int("hidden", "Hidden size", "4096", optional=True, group=ACTIVATIONS),
        _int("heads", "Attention heads", "32", optional=True, group=ACTIVATIONS),
        _int("layers", "Layers", "32", optional=True, group=ACTIVATIONS),
        F("recompute", "Recomputation", "choice", "selective", choices=(
            ("none", "None"), ("selective", "Selective"), ("full", "Full")), group=ACTIVATIONS),
        F("sequence_parallel", "Sequence parallelism", "bool", "", group=ACTIVATIONS),
    ),
    (
        Preset("7B on one H100 node", {}),
        Preset("70B: TP 8 × PP 4 × DP 8", {
            "params": "70e9", "dp": "8", "tp": "8", "pp": "4", "hidden": "8192",
            "heads": "64", "layers": "80", "sequence_parallel": "1"}),
        Preset("405B: TP 8 × PP 16 × DP 128", {
            "params": "405e9", "dp": "128", "tp": "8", "pp": "16", "seq_len": "8192",
            "hidden": "16384", "heads": "128", "layers": "126", "recompute": "full",
            "sequence_parallel": "1"}),
        Preset("ZeRO paper: 7.5B on 64 GPUs, stage 3", {
            "params": "7.5e9", "dp": "64", "zero_stage": "3", "seq_len": "", "micro_batch": "",
            "hidden": "", "heads": "", "layers": "", "recompute": "none"}),
    ),
    view,
    {ACTIVATIONS: "Leave all five numbers blank to count model states only."},
)
# fmt: on

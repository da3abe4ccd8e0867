"""What the lab pages show for the memory and layout labs, plus the parts every lab shares.

A view takes the form's values (SI units, the lab functions' names) and returns the template's
context: result rows, the worked steps as MathML, and charts. Lab ValueErrors pass through.
"""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from app.charts import svg
from app.content.catalog import CardView, Catalog, Topic
from app.content.mathml import MathError, to_mathml
from app.labs import Step, layout, memory
from app.web import lab_format as fmt

Context = dict[str, Any]
Values = Mapping[str, Any]


@dataclass(frozen=True)
class StepView:
    label: str
    formula_html: str
    substituted_html: str
    value_text: str


_E_NOTATION = re.compile(r"(\d)e([+-])0*(\d+)")


def math_html(latex: str) -> str:
    """MathML, or the LaTeX as code if it cannot be typeset (a page never fails over a formula)."""
    # Python's "%.4g" writes 11134.6 as 1.113e+04; typeset that as 1.113×10⁴.
    latex = _E_NOTATION.sub(lambda m: rf"{m[1]}\times10^{{{m[2].strip('+')}{m[3]}}}", latex)
    try:
        return to_mathml(latex, display=True)
    except MathError:
        return f'<code class="latex">{escape(latex)}</code>'


def render_steps(steps: Sequence[Step]) -> list[StepView]:
    return [
        StepView(
            s.label, math_html(s.formula), math_html(s.substituted), fmt.by_unit(s.value, s.unit)
        )
        for s in steps
    ]


_PLACEHOLDER = re.compile(r"\{\{[^{}]*\}\}")


@dataclass(frozen=True)
class CardLink:
    """A drill card to practise on: its id and its question as plain words."""

    id: str
    text: str


def _drill_lab(card: CardView) -> str:
    drill = getattr(card.card, "drill", None)
    name: str = getattr(drill, "lab", None) or ""
    return name.split(".", 1)[0]


def _card_link(card: CardView) -> CardLink:
    # A drill's question names its drawn numbers as {{ name | unit }}; show them as "…".
    return CardLink(card.id, " ".join(_PLACEHOLDER.sub("…", card.question_text).split()))


def used_by(catalog: Catalog, lab: str) -> list[tuple[Topic, list[CardLink]]]:
    """Topics that list `lab` or hold a card drilled on it, each with those drill cards."""
    found = []
    for topic in catalog.topics:
        cards = [c for c in topic.cards if _drill_lab(c) == lab]
        if lab in topic.meta.labs or cards:
            found.append((topic, [_card_link(c) for c in cards]))
    return found


MEMORY_ARGS = (
    "params",
    "dp",
    "tp",
    "pp",
    "zero_stage",
    "optimizer_bytes_per_param",
    "seq_len",
    "micro_batch",
    "hidden",
    "heads",
    "layers",
    "recompute",
    "sequence_parallel",
)


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
    rows = [
        ("Weights", fmt.nbytes_both(result.params_bytes)),
        ("Gradients", fmt.nbytes_both(result.grads_bytes)),
        ("Optimizer states", fmt.nbytes_both(result.optimizer_bytes)),
        ("Model states", fmt.nbytes_both(result.model_states_bytes)),
        ("Activations", fmt.nbytes_both(result.activations_bytes)),
        ("Total per GPU", fmt.nbytes_both(result.total_bytes)),
    ]
    return rows


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


def memory_view(values: Values) -> Context:
    args = {name: values[name] for name in MEMORY_ARGS}
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
    }


LAYOUT_ARGS = (
    "params",
    "layers",
    "hidden",
    "heads",
    "seq_len",
    "global_batch_tokens",
    "gpus",
    "gpus_per_node",
    "gpu_memory_bytes",
    "intra_node_Bps",
    "inter_node_Bps",
    "peak_flops",
    "mfu",
)
STRATEGY = {"tensor": "Tensor (TP)", "pipeline": "Pipeline (PP)", "data": "Data (DP/ZeRO)"}


def layout_view(values: Values) -> Context:
    result = layout.layout(**{name: values[name] for name in LAYOUT_ARGS})
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
        "time_rows": [
            ("Compute (incl. recomputation)", fmt.seconds(result.compute_time_s)),
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
                "time": fmt.seconds(item.time_s),
                "exposed": fmt.seconds(item.exposed_s),
            }
            for item in result.traffic
        ],
        "rows": memory_rows(mem),
        "chart": chart,
        "steps": render_steps(mem.steps),
    }

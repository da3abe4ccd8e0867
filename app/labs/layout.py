"""The parallelism mapper: rank every TP × PP × DP, ZeRO stage and recomputation by step time.

Feasible layouts (Narayanan et al. 2021, arXiv 2104.04473, takeaway #1: TP within a server;
Korthikanti et al. 2022 for SP and recomputation):

- TP divides gpus_per_node (its collectives stay on NVLink), heads and gpus; SP is on whenever
  TP > 1 (it shards what TP leaves replicated, for one extra backward all-gather per linear).
- PP divides layers and gpus; each DP rank runs m = sequences/dp microbatches of 1 sequence,
  and a pipeline needs m ≥ pp (below that its bubble (p−1)/m is at least 1 − 1/p of compute).
- ZeRO stage 1, 2 or 3 (0 when dp = 1), recomputation none, selective or full.
- tp · pp · dp = gpus, and the memory module's per-GPU total must fit in 90% of
  gpu_memory_bytes; the other 10% is headroom for NCCL buffers, workspaces and fragmentation.
  Gradients are 2 bytes, or 4 with grad_dtype "fp32" (Megatron-LM's main grads, Llama 3).

Every feasible layout gets a step-time estimate from `app.labs._traffic` (compute, 1F1B bubble,
and the TP, PP and DP time not hidden behind compute, on node-aware links; its docstring states
the model and what it leaves out), and the fastest is chosen. `LayoutResult.candidates` lists
them all, fastest first; ties go to the simpler layout (less PP, less TP, lower ZeRO stage,
less recomputation, in that order).

Utilisation. With efficiency "hfu" the `mfu` input is a hardware FLOPs utilisation and each
layout's compute is multiplied by its recomputation factor. With "mfu" (the default) the input
is a measured MFU, which already contains the chosen layout's recomputation: the chosen layout's
compute is 6ΨT/(n·peak·MFU) with no factor, and the other layouts are charged for their
recomputation relative to it (the same hardware efficiency, r/r_chosen). The choice and that
reference are found together: rank with a reference, take the winner's factor as the reference,
rank again, until the winner's factor is the reference.

`LayoutResult.reasons` are short sentences for the lab page.
"""

from dataclasses import dataclass, field, replace

from app.errors import FieldError
from app.labs._common import Step, check_choice, check_int, check_real, tex
from app.labs._traffic import (
    GRAD_BYTES,
    Plan,
    TrafficItem,
    compute_time_s,
    recompute_factor,
    traffic,
)
from app.labs.memory import MemoryResult, activation_bytes_per_layer, memory, model_states_bytes

HEADROOM = 0.10  # kept free of the GPU's memory for buffers and fragmentation
OPTIMIZER_BYTES_PER_PARAM = 12.0  # mixed-precision Adam: fp32 master, m and v
RECOMPUTE = ("none", "selective", "full")
EFFICIENCY = ("mfu", "hfu")
DEFAULT_ALPHA_S = 5e-6  # per network ring step; NVLink steps are not charged


@dataclass(frozen=True)
class Candidate:
    """One feasible layout and its step-time breakdown; field names are the JSON API's."""

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


@dataclass(frozen=True)
class LayoutResult:
    """The chosen layout; field names are the JSON API's."""

    tp: int
    pp: int
    dp: int
    zero_stage: int
    recompute: str
    sequence_parallel: bool
    microbatches: int
    memory: MemoryResult
    usable_memory_bytes: float
    traffic: list[TrafficItem]
    compute_time_s: float
    bubble_fraction: float
    step_time_estimate_s: float
    reasons: list[str] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)


@dataclass(frozen=True)
class _Inputs:
    """The validated model and cluster inputs the search reads."""

    params: float
    layers: int
    hidden: int
    heads: int
    seq_len: int
    sequences: int
    gpus: int
    gpus_per_node: int
    usable: float
    intra: float
    inter: float
    peak: float
    utilisation: float
    efficiency: str
    grad_bytes: int
    alpha_s: float


def _memory_total(x: _Inputs, t: int, p: int, z: int, rc: str) -> float:
    """`_memory_for(...).total_bytes` without the worked steps, for screening every layout."""
    d = x.gpus // (t * p)
    states = sum(
        model_states_bytes(
            x.params / (t * p), d, z if d > 1 else 0, OPTIMIZER_BYTES_PER_PARAM, x.grad_bytes
        )
    )
    per_layer = activation_bytes_per_layer(x.seq_len, 1, x.hidden, x.heads, t, rc, t > 1)
    return states + per_layer * x.layers


def _memory_for(x: _Inputs, t: int, p: int, z: int, rc: str) -> MemoryResult:
    """Per-GPU bytes of one candidate: ZeRO §5 + Korthikanti 2022 Table 2 via app.labs.memory."""
    d = x.gpus // (t * p)
    return memory(
        x.params,
        dp=d,
        tp=t,
        pp=p,
        zero_stage=z if d > 1 else 0,
        optimizer_bytes_per_param=OPTIMIZER_BYTES_PER_PARAM,
        seq_len=x.seq_len,
        micro_batch=1,
        hidden=x.hidden,
        heads=x.heads,
        layers=x.layers,
        recompute=rc,
        sequence_parallel=t > 1,
        grad_bytes_per_param=float(x.grad_bytes),
    )


def _shapes(x: _Inputs) -> list[tuple[int, int, int, str]]:
    """Every (tp, pp, zero_stage, recompute) the module docstring's rules allow."""
    node = min(x.gpus, x.gpus_per_node)
    tps = [t for t in range(1, node + 1) if node % t == 0 and x.heads % t == 0 and x.gpus % t == 0]
    pps = [p for p in range(1, x.layers + 1) if x.layers % p == 0 and x.gpus % p == 0]
    return [
        (t, p, z, rc)
        for p in pps
        for t in tps
        for z in (1, 2, 3)
        for rc in RECOMPUTE
        if x.gpus % (t * p) == 0
    ]


def _estimate(x: _Inputs, shape: tuple[int, int, int, str], reference: float) -> Candidate:
    """Step time of one layout: app.labs._traffic's model (compute, bubble, exposed traffic)."""
    t, p, z, rc = shape
    d = x.gpus // (t * p)
    m = x.sequences // d
    tokens = float(x.sequences) * x.seq_len
    r = recompute_factor(rc, x.seq_len, x.hidden)
    compute = compute_time_s(x.params, tokens, x.gpus, x.peak, x.utilisation) * r / reference
    bubble = (p - 1) / m * compute
    plan = Plan(
        x.params, x.layers, x.hidden, x.seq_len, x.gpus, x.gpus_per_node,
        t, p, d, z, rc, m, x.intra, x.inter, x.grad_bytes, x.alpha_s,
    )  # fmt: skip
    items = {item.name: item for item in traffic(plan, compute, explain=False)}
    tensor, pipe, data = (items[n].exposed_s if n in items else 0.0 for n in _NAMES)
    return Candidate(
        tp=t,
        pp=p,
        dp=d,
        zero_stage=z,
        recompute=rc,
        microbatches=m,
        memory_bytes=0.0,
        compute_time_s=compute,
        bubble_s=bubble,
        tensor_exposed_s=tensor,
        pipeline_exposed_s=pipe,
        data_exposed_s=data,
        data_time_s=items["data"].time_s if "data" in items else 0.0,
        step_time_estimate_s=compute + bubble + tensor + pipe + data,
    )


_NAMES = ("tensor", "pipeline", "data")


def _rank(x: _Inputs, fitting: list[tuple[tuple[int, int, int, str], float]]) -> list[Candidate]:
    """Fitting layouts by step time, fastest first (the module docstring's MFU reference)."""
    reference = 1.0
    ranked: list[Candidate] = []
    for _ in range(len(RECOMPUTE) + 1):
        ranked = sorted(
            (replace(_estimate(x, shape, reference), memory_bytes=need) for shape, need in fitting),
            key=_order,
        )
        if x.efficiency == "hfu":
            break
        best = recompute_factor(ranked[0].recompute, x.seq_len, x.hidden)
        if best == reference:
            break
        reference = best
    return ranked


def _order(c: Candidate) -> tuple[float, int, int, int, int]:
    """Step time, then the simpler layout (module docstring)."""
    return (
        round(c.step_time_estimate_s, 9),
        c.pp,
        c.tp,
        c.zero_stage,
        RECOMPUTE.index(c.recompute),
    )


def layout(
    params: float,
    layers: int,
    hidden: int,
    heads: int,
    seq_len: int,
    global_batch_tokens: int,
    gpus: int,
    gpus_per_node: int,
    gpu_memory_bytes: float,
    intra_node_Bps: float,
    inter_node_Bps: float,
    peak_flops: float,
    mfu: float = 0.4,
    efficiency: str = "mfu",
    grad_dtype: str = "bf16",
    alpha_s: float = DEFAULT_ALPHA_S,
) -> LayoutResult:
    """Rank layouts by step time: Narayanan et al. 2021 §3, ZeRO §7, Korthikanti 2022 §4–5."""
    check_real("params", params, positive=True)
    for name, value in (("layers", layers), ("hidden", hidden), ("heads", heads)):
        check_int(name, value, 1)
    if hidden % heads:
        raise FieldError("hidden", f"must be divisible by heads ({heads})")
    check_int("seq_len", seq_len, 1)
    check_int("global_batch_tokens", global_batch_tokens, 1)
    if global_batch_tokens % seq_len:
        raise FieldError("global_batch_tokens", f"must be a multiple of seq_len ({seq_len})")
    check_int("gpus", gpus, 1)
    check_int("gpus_per_node", gpus_per_node, 1)
    if gpus > gpus_per_node and gpus % gpus_per_node:
        raise FieldError("gpus", f"must be a multiple of gpus_per_node ({gpus_per_node})")
    capacity = check_real("gpu_memory_bytes", gpu_memory_bytes, positive=True)
    intra = check_real("intra_node_Bps", intra_node_Bps, positive=True)
    inter = check_real("inter_node_Bps", inter_node_Bps, positive=True)
    peak = check_real("peak_flops", peak_flops, positive=True)
    if not 0 < check_real("mfu", mfu, positive=True) <= 1:
        raise FieldError("mfu", "must be at most 1")
    check_choice("efficiency", efficiency, EFFICIENCY)
    check_choice("grad_dtype", grad_dtype, tuple(GRAD_BYTES))
    alpha = check_real("alpha_s", alpha_s, positive=False)

    x = _Inputs(
        params, layers, hidden, heads, seq_len, global_batch_tokens // seq_len,
        gpus, gpus_per_node, (1.0 - HEADROOM) * capacity, intra, inter, peak, mfu,
        efficiency, GRAD_BYTES[grad_dtype], alpha,
    )  # fmt: skip
    fitting: list[tuple[tuple[int, int, int, str], float]] = []
    leanest: tuple[float, str] | None = None
    batch_rejected = 0
    for t, p, z, rc in _shapes(x):
        d = gpus // (t * p)
        if x.sequences % d or (p > 1 and x.sequences // d < p):
            batch_rejected += 1
            continue
        if d == 1 and z > 1:
            continue  # nothing to shard: stage 0, counted once under z = 1
        need = _memory_total(x, t, p, z, rc)
        if need <= x.usable:
            fitting.append(((t, p, z if d > 1 else 0, rc), need))
            continue
        zero = f"ZeRO-{z}" if d > 1 else "no ZeRO"
        label = f"TP={t}, PP={p}, {zero}, {rc} recompute"
        if leanest is None or need < leanest[0]:
            leanest = (need, label)
    if not fitting:
        if leanest is None:
            raise FieldError(
                "global_batch_tokens",
                f"{x.sequences} sequences cannot be split evenly over the "
                f"data-parallel ranks of any layout ({batch_rejected} tried)",
            )
        raise FieldError(
            "gpu_memory_bytes",
            f"no layout fits in {x.usable / 1e9:.1f} GB usable per GPU "
            f"({1 - HEADROOM:.0%} of {capacity / 1e9:.1f} GB); the leanest, {leanest[1]}, "
            f"needs {leanest[0] / 1e9:.1f} GB",
        )
    return _result(x, _rank(x, fitting))


def _result(x: _Inputs, ranked: list[Candidate]) -> LayoutResult:
    """Traffic, step time and reasons for the fastest layout: app.labs._traffic's model."""
    best = ranked[0]
    t, p, d, z, rc, m = (
        best.tp,
        best.pp,
        best.dp,
        best.zero_stage,
        best.recompute,
        best.microbatches,
    )
    mem = _memory_for(x, t, p, max(z, 1), rc)
    plan = Plan(
        x.params, x.layers, x.hidden, x.seq_len, x.gpus, x.gpus_per_node,
        t, p, d, z, rc, m, x.intra, x.inter, x.grad_bytes, x.alpha_s,
    )  # fmt: skip
    items = traffic(plan, best.compute_time_s)
    bubble = (p - 1) / m if p > 1 else 0.0
    return LayoutResult(
        tp=t,
        pp=p,
        dp=d,
        zero_stage=z,
        recompute=rc,
        sequence_parallel=t > 1,
        microbatches=m,
        memory=mem,
        usable_memory_bytes=x.usable,
        traffic=items,
        compute_time_s=best.compute_time_s,
        bubble_fraction=bubble,
        step_time_estimate_s=best.step_time_estimate_s,
        reasons=_reasons(x, best, ranked, mem),
        candidates=ranked,
        notes=_notes(x),
        steps=_steps(x, best, items),
    )


def _steps(x: _Inputs, best: Candidate, items: list[TrafficItem]) -> list[Step]:
    """The chosen layout's step time, term by term (_traffic's docstring for each model)."""
    tokens = float(x.sequences) * x.seq_len
    u = "HFU" if x.efficiency == "hfu" else "MFU"
    r = recompute_factor(best.recompute, x.seq_len, x.hidden)
    factor = rf" \times {r:.4g}" if x.efficiency == "hfu" and r != 1.0 else ""
    steps = [
        Step(
            f"Compute: 6 × parameters × tokens over the GPUs at the given {u}"
            + (" (times the recomputation factor)" if factor else ""),
            rf"\frac{{6 \Psi T}}{{n \cdot F \cdot \text{{{u}}}}}"
            + (r" \times r" if factor else ""),
            rf"\frac{{6 \times {tex(x.params)} \times {tex(tokens)}}}{{{x.gpus} \times "
            rf"{tex(x.peak)} \times {x.utilisation:g}}}{factor}",
            best.compute_time_s,
            "s",
        ),
        Step(
            "1F1B pipeline bubble",
            r"\frac{p-1}{m} \times T_{\text{compute}}",
            rf"\frac{{{best.pp - 1}}}{{{best.microbatches}}} \times {tex(best.compute_time_s)}",
            best.bubble_s,
            "s",
        ),
    ]
    for item in items:
        steps += item.steps
    exposed = sum(item.exposed_s for item in items)
    steps.append(
        Step(
            "Step time",
            r"T_{\text{compute}} + T_{\text{bubble}} + \sum T_{\text{exposed}}",
            rf"{tex(best.compute_time_s)} + {tex(best.bubble_s)} + {tex(exposed)}",
            best.step_time_estimate_s,
            "s",
        )
    )
    return steps


def _label(c: Candidate) -> str:
    """A layout in a few words, for the reasons."""
    zero = f"ZeRO-{c.zero_stage}" if c.zero_stage else "no ZeRO"
    return f"TP={c.tp}, PP={c.pp}, DP={c.dp:,}, {zero}, {c.recompute} recompute"


def _why(best: Candidate, other: Candidate) -> str:
    """The term that costs `other` most against `best`."""
    terms = {
        "compute (recomputation)": other.compute_time_s - best.compute_time_s,
        "pipeline bubble": other.bubble_s - best.bubble_s,
        "exposed tensor-parallel traffic": other.tensor_exposed_s - best.tensor_exposed_s,
        "exposed pipeline traffic": other.pipeline_exposed_s - best.pipeline_exposed_s,
        "exposed data-parallel traffic": other.data_exposed_s - best.data_exposed_s,
    }
    name, extra = max(terms.items(), key=lambda item: item[1])
    return f"{name} (+{extra:.3g} s)"


def _reasons(x: _Inputs, best: Candidate, ranked: list[Candidate], mem: MemoryResult) -> list[str]:
    """Short sentences a strong candidate would say: Narayanan 2021, ZeRO, Korthikanti 2022."""
    gb = 1e9
    t, p, d, z, rc, m = (
        best.tp,
        best.pp,
        best.dp,
        best.zero_stage,
        best.recompute,
        best.microbatches,
    )
    whole = (2.0 + x.grad_bytes + OPTIMIZER_BYTES_PER_PARAM) * x.params
    reasons = [
        f"Model states alone are {whole / gb:,.0f} GB ({2 + x.grad_bytes + 12:.0f} bytes per "
        f"parameter) against {x.usable / gb:.1f} GB usable per GPU ({1 - HEADROOM:.0%} of "
        "memory; the rest is headroom for communication buffers and fragmentation).",
        f"{len(ranked)} layouts fit; the fastest is {_label(best)}, about "
        f"{best.step_time_estimate_s:.3g} s per step.",
    ]
    if len(ranked) > 1:
        second = ranked[1]
        reasons.append(
            f"The runner-up, {_label(second)}, takes {second.step_time_estimate_s:.3g} s: "
            f"it loses most on {_why(best, second)}."
        )
    others = [c for c in ranked[1:] if (c.tp, c.pp) != (t, p)]
    if others and others[0] is not ranked[1]:
        shape = others[0]
        reasons.append(
            f"The fastest other TP × PP shape, {_label(shape)}, takes "
            f"{shape.step_time_estimate_s:.3g} s: it loses most on {_why(best, shape)}."
        )
    if t > 1:
        reasons.append(
            f"TP={t} keeps its collectives on NVLink (TP ≤ {x.gpus_per_node} GPUs per node); "
            "sequence parallelism shards the LayerNorm and dropout activations for one extra "
            "backward all-gather per column-parallel linear."
        )
    if p > 1:
        reasons.append(
            f"PP={p}: the 1F1B bubble is (p−1)/m = {p - 1}/{m} = {(p - 1) / m:.0%} of compute "
            f"with {m} microbatches per pipeline."
        )
    if z == 0:
        reasons.append("DP=1: no data-parallel ranks to shard optimizer state over.")
    else:
        data = f"{best.data_exposed_s:.3g} s of its {best.data_time_s:.3g} s"
        what = {
            1: "shards the 12 optimizer bytes; gradients are reduce-scattered once, after the "
            "last microbatch, so only that microbatch's backward hides them",
            2: "also shards gradients, reduce-scattering every microbatch behind that "
            "microbatch's backward",
            3: "shards weights too, gathering them every layer of every microbatch behind all "
            "of compute, at 1.5× the bytes",
        }[z]
        reasons.append(
            f"ZeRO-{z} over DP={d:,} {what}: model states {mem.model_states_bytes / gb:.1f} GB "
            f"per GPU; data-parallel traffic exposed: {data}."
        )
    recompute_text = {
        "none": "No recomputation.",
        "selective": "Selective recomputation drops the 5as/h attention-score activations for "
        f"about {recompute_factor('selective', x.seq_len, x.hidden) - 1:.1%} extra compute.",
        "full": "Full recomputation keeps only each layer's input (2sbh/t) and costs one extra "
        "forward, about 33% more compute.",
    }
    reasons.append(
        f"{recompute_text[rc]} Activations {mem.activations_bytes / gb:.1f} GB, "
        f"total {mem.total_bytes / gb:.1f} GB per GPU."
    )
    reasons.append(
        f"{x.sequences} sequences of {x.seq_len} tokens per step: {m} microbatches of one "
        "sequence per data-parallel rank."
    )
    return reasons


def _notes(x: _Inputs) -> list[str]:
    """Where the numbers come from and what the model leaves out (this and _traffic's docstring)."""
    if x.efficiency == "mfu":
        utilisation = (
            f"Compute is 6 × parameters × tokens at a measured MFU of {x.utilisation:.0%}, "
            "which already contains the chosen layout's recomputation; other layouts are "
            "charged for theirs relative to it."
        )
    else:
        utilisation = (
            f"Compute is 6 × parameters × tokens at a hardware FLOPs utilisation of "
            f"{x.utilisation:.0%}, times each layout's recomputation factor."
        )
    return [
        utilisation,
        "Data-parallel gradients are final only after the last microbatch, so ZeRO-1's "
        "reduce-scatter hides behind that microbatch's backward alone, on the first pipeline "
        "stage (later stages also have their cool-down idle time); the parameter all-gather "
        "hides behind the next step's first forward.",
        "A data-parallel group with g ranks per node runs g rings, one per NIC: each rank "
        "moves at min(NVLink, g × NIC). Once TP × PP fills a node, g = 1 and the rate is one "
        f"NIC's. Every ring step across the network costs α = {x.alpha_s * 1e6:g} µs.",
        f"Gradients are reduced in {'fp32' if x.grad_bytes == 4 else 'bf16'} "
        f"({x.grad_bytes} bytes), parameters gathered in bf16.",
        "Left out: comm–GEMM overlap inside TP (an upper bound here), NVLink latency, "
        "interleaved pipeline schedules, context and expert parallelism, NVLS/SHARP, "
        "congestion and oversubscription, the embedding and output layers, and stragglers.",
    ]

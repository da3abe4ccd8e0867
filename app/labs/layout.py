"""The parallelism mapper: choose TP × PP × DP, ZeRO stage and recomputation for a cluster.

Rules (Narayanan et al. 2021, arXiv 2104.04473, takeaway #1: TP up to the GPUs of a server,
then PP across servers; Korthikanti et al. 2022 for SP and selective recompute):

- TP divides gpus_per_node (so its 4 all-reduces per layer stay on NVLink), heads and gpus;
  SP is on whenever TP > 1 (it shards what TP leaves replicated at no extra traffic).
- PP divides layers; each DP rank runs m = sequences/dp microbatches of 1 sequence, and a
  pipeline needs m ≥ pp (below that its bubble (p−1)/m is at least 1 − 1/p of compute).
- tp · pp · dp = gpus, and the memory module's per-GPU total must fit in 90% of
  gpu_memory_bytes; the other 10% is headroom for NCCL buffers, workspaces and fragmentation.

The first candidate that fits wins, in this order of preference (cheapest first):
  1. no PP; smallest TP; ZeRO-1 then ZeRO-2; no recompute, then selective;
  2. no PP; smallest TP; ZeRO-1 then ZeRO-2; full recompute (one extra forward, +33%);
  3. PP, smallest first; smallest TP; ZeRO-1 then ZeRO-2; none, selective, full recompute;
  4. ZeRO-3 (FSDP), no PP: a last resort, 1.5× DP traffic per layer over the network.
ZeRO-1 comes before ZeRO-2 because ZeRO-2 reduce-scatters gradients every microbatch under
gradient accumulation; with dp = 1 there is nothing to shard and the stage is 0.

Traffic and the step-time model are in `app.labs._traffic` (its docstring states the
assumptions). `LayoutResult.reasons` are short sentences for the lab page.
"""

from collections.abc import Iterator
from dataclasses import dataclass, field

from app.labs._common import check_int, check_real
from app.labs._traffic import Plan, TrafficItem, compute_time_s, recompute_factor, traffic
from app.labs.memory import MemoryResult, memory

HEADROOM = 0.10  # kept free of the GPU's memory for buffers and fragmentation
OPTIMIZER_BYTES_PER_PARAM = 12.0  # mixed-precision Adam: fp32 master, m and v


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


def _candidates(tps: list[int], pps: list[int]) -> Iterator[tuple[int, int, int, str]]:
    """(tp, pp, zero_stage, recompute) in preference order: the module docstring's tiers."""
    for t in tps:
        for z in (1, 2):
            for rc in ("none", "selective"):
                yield t, 1, z, rc
    for t in tps:
        for z in (1, 2):
            yield t, 1, z, "full"
    for p in pps:
        for t in tps:
            for z in (1, 2):
                for rc in ("none", "selective", "full"):
                    yield t, p, z, rc
    for t in tps:
        for rc in ("none", "selective", "full"):
            yield t, 1, 3, rc


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
) -> LayoutResult:
    """Choose a layout: Narayanan et al. 2021 (2104.04473) §3 takeaway #1, ZeRO, Korthikanti."""
    check_real("params", params, positive=True)
    for name, value in (("layers", layers), ("hidden", hidden), ("heads", heads)):
        check_int(name, value, 1)
    if hidden % heads:
        raise ValueError(f"hidden: must be divisible by heads ({heads})")
    check_int("seq_len", seq_len, 1)
    check_int("global_batch_tokens", global_batch_tokens, 1)
    if global_batch_tokens % seq_len:
        raise ValueError(f"global_batch_tokens: must be a multiple of seq_len ({seq_len})")
    check_int("gpus", gpus, 1)
    check_int("gpus_per_node", gpus_per_node, 1)
    if gpus > gpus_per_node and gpus % gpus_per_node:
        raise ValueError(f"gpus: must be a multiple of gpus_per_node ({gpus_per_node})")
    capacity = check_real("gpu_memory_bytes", gpu_memory_bytes, positive=True)
    intra = check_real("intra_node_Bps", intra_node_Bps, positive=True)
    inter = check_real("inter_node_Bps", inter_node_Bps, positive=True)
    peak = check_real("peak_flops", peak_flops, positive=True)
    if not 0 < check_real("mfu", mfu, positive=True) <= 1:
        raise ValueError("mfu: must be at most 1")

    x = _Inputs(
        params, layers, hidden, heads, seq_len, global_batch_tokens // seq_len,
        gpus, gpus_per_node, (1.0 - HEADROOM) * capacity,
    )  # fmt: skip
    node = min(gpus, gpus_per_node)
    tps = [t for t in range(1, node + 1) if node % t == 0 and heads % t == 0 and gpus % t == 0]
    pps = [p for p in range(2, layers + 1) if layers % p == 0 and gpus % p == 0]
    leanest: tuple[float, str] | None = None
    batch_rejected = 0
    too_big: dict[int, tuple[float, str]] = {}  # pp=1 TP → its leanest miss, for the reasons
    for t, p, z, rc in _candidates(tps, pps):
        if gpus % (t * p):
            continue
        d = gpus // (t * p)
        if x.sequences % d or (p > 1 and x.sequences // d < p):
            batch_rejected += 1
            continue
        mem = _memory_for(x, t, p, z, rc)
        if mem.total_bytes <= x.usable:
            rejected = [
                f"TP={smaller} needs {need / 1e9:.1f} GB per GPU even with {how}."
                for smaller, (need, how) in sorted(too_big.items())
                if smaller < t
            ]
            return _result(
                x, (t, p, z if d > 1 else 0, rc), mem, (intra, inter, peak, mfu), rejected
            )
        zero = f"ZeRO-{z}" if d > 1 else "no ZeRO"
        if p == 1 and z < 3 and mem.total_bytes < too_big.get(t, (float("inf"), ""))[0]:
            too_big[t] = (mem.total_bytes, f"{zero} and {rc} recompute")
        label = f"TP={t}, PP={p}, {zero}, {rc} recompute"
        if leanest is None or mem.total_bytes < leanest[0]:
            leanest = (mem.total_bytes, label)
    if leanest is None:
        raise ValueError(
            f"global_batch_tokens: {x.sequences} sequences cannot be split evenly over the "
            f"data-parallel ranks of any layout ({batch_rejected} tried)"
        )
    raise ValueError(
        f"gpu_memory_bytes: no layout fits in {x.usable / 1e9:.1f} GB usable per GPU "
        f"({1 - HEADROOM:.0%} of {capacity / 1e9:.1f} GB); the leanest, {leanest[1]}, "
        f"needs {leanest[0] / 1e9:.1f} GB"
    )


def _result(
    x: _Inputs,
    choice: tuple[int, int, int, str],
    mem: MemoryResult,
    rates: tuple[float, float, float, float],
    rejected: list[str],
) -> LayoutResult:
    """Traffic, step time and reasons for the chosen layout: app.labs._traffic's model."""
    t, p, z, rc = choice
    intra, inter, peak, mfu = rates
    d = x.gpus // (t * p)
    m = x.sequences // d
    tokens = float(x.sequences) * x.seq_len
    compute = compute_time_s(x.params, tokens, x.gpus, peak, mfu)
    compute *= recompute_factor(rc, x.seq_len, x.hidden)
    bubble = (p - 1) / m if p > 1 else 0.0
    plan = Plan(
        x.params, x.layers, x.hidden, x.seq_len, x.gpus, x.gpus_per_node,
        t, p, d, z, rc, m, intra, inter,
    )  # fmt: skip
    items = traffic(plan, compute)
    step = compute * (1.0 + bubble) + sum(item.exposed_s for item in items)
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
        compute_time_s=compute,
        bubble_fraction=bubble,
        step_time_estimate_s=step,
        reasons=_reasons(x, t, p, d, z, rc, m, mem, bubble, rejected),
    )


def _reasons(
    x: _Inputs, t: int, p: int, d: int, z: int, rc: str, m: int, mem: MemoryResult,
    bubble: float, rejected: list[str],
) -> list[str]:  # fmt: skip
    """Short sentences a strong candidate would say: Narayanan 2021, ZeRO, Korthikanti 2022."""
    gb = 1e9
    whole = (4.0 + OPTIMIZER_BYTES_PER_PARAM) * x.params
    reasons = [
        f"Model states alone are {whole / gb:,.0f} GB (16 bytes per parameter) against "
        f"{x.usable / gb:.1f} GB usable per GPU ({1 - HEADROOM:.0%} of memory; the rest is "
        "headroom for communication buffers and fragmentation).",
        *rejected,
    ]
    if t == 1:
        reasons.append("TP=1: the model fits without tensor parallelism and its all-reduces.")
    else:
        reasons.append(
            f"TP={t} keeps the 4 all-reduces per layer per microbatch on NVLink (TP ≤ "
            f"{x.gpus_per_node} GPUs per node). Sequence parallelism shards "
            "the LayerNorm and dropout activations TP leaves replicated, at the same traffic."
        )
    if p == 1:
        reasons.append("PP=1: TP within the node plus ZeRO fits, so there is no pipeline bubble.")
    else:
        reasons.append(
            f"PP={p}: TP within the node plus ZeRO-1/2 does not fit; the 1F1B bubble is "
            f"(p−1)/m = {p - 1}/{m} = {bubble:.0%} of compute with {m} microbatches per pipeline."
        )
    if z == 0:
        reasons.append("DP=1: no data-parallel ranks to shard optimizer state over.")
    elif z == 1:
        reasons.append(
            f"ZeRO-1 over DP={d} shards the 12 optimizer bytes per parameter: model states "
            f"{mem.model_states_bytes / gb:.1f} GB per GPU, same traffic as plain DP."
        )
    elif z == 2:
        reasons.append(
            f"ZeRO-2 over DP={d} also shards gradients (ZeRO-1 did not fit): model states "
            f"{mem.model_states_bytes / gb:.1f} GB; it reduce-scatters every microbatch."
        )
    else:
        reasons.append(
            f"ZeRO-3 over DP={d} is the last resort: 1.5× DP traffic, gathered every layer of "
            "every microbatch; Megatron-LM measured PTD-P 70% faster than ZeRO-3 at scale."
        )
    recompute_text = {
        "none": "No recomputation: all activations fit.",
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
        f"sequence per data-parallel rank."
    )
    return reasons

"""Per-step communication of a TP × PP × DP layout and the step-time estimate built on it.

Volumes are bytes sent per GPU per training step, 2-byte (bf16) elements, ring collectives
(a ring moves (n−1)/n of the buffer per pass), micro_batch b = 1:

    tensor    4 all-reduces of bsh per layer per microbatch, 2 forward and 2 backward
              (Megatron-LM, Narayanan et al. 2021 §3.2); 6 with full recompute (the forward is
              run again). With SP each becomes an all-gather plus a reduce-scatter of the same
              volume (Korthikanti 2022 §4.2.2). Always on NVLink: TP stays inside a node.
    pipeline  bsh/t forward and bsh/t backward per microbatch per stage boundary, with the
              scatter/gather optimisation (Narayanan et al. 2021 §4.1).
    data      ZeRO-0/1: one gradient all-reduce (ZeRO-1: reduce-scatter + all-gather, the same
              volume) per step, 2(d−1)/d · 2Ψ. ZeRO-2: a gradient reduce-scatter every
              microbatch (gradients are not kept whole under accumulation) plus one parameter
              all-gather. ZeRO-3: per layer per microbatch, an all-gather in forward, another in
              backward (a third with full recompute) and a reduce-scatter: 3Ψ, 1.5× DP
              (Rajbhandari et al. 2019 §7).

Ranks are placed [TP, PP, DP] from innermost (fastest link) outward, as Llama 3's
[TP, CP, PP, DP] order does (arXiv 2407.21783, 4D parallelism); a group crosses the network
once stride × size exceeds a node. Only bandwidth terms are counted (no α). Exposure: TP and
PP transfers sit on the critical path and count in full; DP/ZeRO-1/2 traffic overlaps the
backward pass (two thirds of compute) and ZeRO-3's prefetched gathers overlap all compute, so
only the excess is exposed.

Compute: 6·params·tokens / (gpus · peak_flops · mfu), with mfu read as the efficiency of the
model's own FLOPs; recomputation is extra work on top: full adds a forward (+1/3), selective the
attention core, s/(3(6h + s)) (Korthikanti 2022 §5). The 1F1B bubble multiplies compute by
1 + (p−1)/m. Step time = compute + exposed communication.
"""

from dataclasses import dataclass

BYTES_PER_ELEMENT = 2  # bf16 activations, gradients and parameters on the wire


@dataclass(frozen=True)
class TrafficItem:
    """One parallelism strategy's communication in a step; field names are the JSON API's."""

    name: str  # "tensor" | "pipeline" | "data"
    collective: str
    frequency: str  # "per layer per microbatch" | "per microbatch" | "per step"
    calls_per_step: int
    bytes_per_step_per_gpu: float
    link: str  # "nvlink" | "network"
    time_s: float
    exposed_s: float


@dataclass(frozen=True)
class Plan:
    """The layout facts the traffic model needs."""

    params: float
    layers: int
    hidden: int
    seq_len: int
    gpus: int
    gpus_per_node: int
    tp: int
    pp: int
    dp: int
    zero_stage: int
    recompute: str
    microbatches: int
    intra_node_Bps: float
    inter_node_Bps: float


def _link(plan: Plan, stride: int, size: int) -> tuple[str, float]:
    """Link a group crosses under [TP, PP, DP] ordering: Llama 3 (2407.21783), 4D parallelism."""
    if plan.gpus_per_node > 1 and stride * size <= plan.gpus_per_node:
        return "nvlink", plan.intra_node_Bps
    return "network", plan.inter_node_Bps


def recompute_factor(recompute: str, seq_len: int, hidden: int) -> float:
    """Extra compute of recomputation: Korthikanti et al. 2022 §5 (selective and full)."""
    if recompute == "full":
        return 4.0 / 3.0  # 8Ψ per token instead of 6Ψ: one more forward
    if recompute == "selective":
        # Attention core 4bs²h out of 24bsh² + 4bs²h forward FLOPs, over 3× forward per step.
        return 1.0 + seq_len / (3.0 * (6.0 * hidden + seq_len))
    return 1.0


def compute_time_s(params: float, tokens: float, gpus: int, peak: float, mfu: float) -> float:
    """Model FLOPs 6·Ψ·D (Kaplan et al. 2020 §2.1) over peak × MFU (Chowdhery et al. 2022, PaLM)."""
    return 6.0 * params * tokens / (gpus * peak * mfu)


def traffic(plan: Plan, compute_s: float) -> list[TrafficItem]:
    """Per-step volumes of each strategy: Narayanan 2021 §3.2/§4.1, ZeRO §7, Korthikanti §4.2."""
    items = []
    e, m = BYTES_PER_ELEMENT, plan.microbatches
    sbh = float(plan.seq_len) * plan.hidden
    t, p, d = plan.tp, plan.pp, plan.dp
    if t > 1:
        per_call = 2.0 * (t - 1) / t * e * sbh
        calls = (6 if plan.recompute == "full" else 4) * (plan.layers // p) * m
        link, bw = _link(plan, 1, t)
        time = per_call * calls / bw
        collective = "all-gather + reduce-scatter (sequence parallel)"
        items.append(
            TrafficItem("tensor", collective, "per layer per microbatch", calls,
                        per_call * calls, link, time, time)
        )  # fmt: skip
    if p > 1:
        per_call = e * sbh / t
        link, bw = _link(plan, t, p)
        volume = 2 * m * per_call
        items.append(
            TrafficItem("pipeline", "send/recv", "per microbatch", 2 * m, volume, link,
                        volume / bw, volume / bw)
        )  # fmt: skip
    if d > 1:
        shard = (d - 1) / d * e * plan.params / (t * p)
        link, bw = _link(plan, t * p, d)
        if plan.zero_stage <= 1:
            collective, frequency, calls, volume = "all-reduce", "per step", 1, 2.0 * shard
            overlap = 2.0 / 3.0 * compute_s
        elif plan.zero_stage == 2:
            collective, frequency = "reduce-scatter + all-gather", "per microbatch"
            calls, volume = m + 1, (m + 1) * shard
            overlap = 2.0 / 3.0 * compute_s
        else:
            gathers = 3 if plan.recompute == "full" else 2
            collective, frequency = "all-gather ×2 + reduce-scatter", "per layer per microbatch"
            calls = (gathers + 1) * (plan.layers // p) * m
            volume, overlap = (gathers + 1) * m * shard, compute_s
        time = volume / bw
        items.append(
            TrafficItem("data", collective, frequency, calls, volume, link, time,
                        max(0.0, time - overlap))
        )  # fmt: skip
    return items

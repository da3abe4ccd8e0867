"""Per-step communication of a TP × PP × DP layout and the step-time estimate built on it.

Volumes are bytes sent per GPU per training step, micro_batch b = 1, ring collectives (a ring
moves (n−1)/n of the buffer per pass). Activations and parameters travel in bf16 (2 bytes);
gradients are reduced in `grad_bytes` (2 for bf16, 4 for fp32 as Llama 3 does: arXiv 2407.21783
§3.3.2 "Numerical stability"; Megatron-LM's --accumulate-allreduce-grads-in-fp32).

    tensor    Megatron-LM's 4 all-reduces of bsh per layer per microbatch, 2 forward and 2
              backward (Narayanan et al. 2021 §3.2); 6 with full recompute (the forward runs
              again). With SP each becomes an all-gather plus a reduce-scatter of the same
              volume, and the backward all-gathers the sequence-sharded input of the two
              column-parallel linears once more for their weight gradients (Korthikanti et al.
              2022 §4.2.2; Megatron-LM `layers.py`, LinearWithGradAccumulationAndAsync-
              Communication.backward): 2 more all-gathers per layer per microbatch, +25% bytes.
              That extra all-gather runs beside the input-gradient GEMM, so it counts in the
              bytes and time but not in the exposed time. The rest sits between dependent
              GEMMs and counts in full (comm–GEMM overlap such as Megatron's tp-comm-overlap is
              left out, so this is an upper bound). Always on NVLink: TP stays inside a node.
    pipeline  bsh/t forward and bsh/t backward per microbatch per stage boundary, with the
              scatter/gather optimisation (Narayanan et al. 2021 §4.1), on the critical path.
    data      ZeRO-1 (Megatron's distributed optimizer): one gradient reduce-scatter per step,
              after the last microbatch, then one all-gather of the updated bf16 parameters.
              ZeRO-2: a gradient reduce-scatter every microbatch (gradients are not kept whole
              under accumulation) plus the parameter all-gather. ZeRO-3: per layer per
              microbatch an all-gather in forward, another in backward (a third with full
              recompute) and a reduce-scatter (Rajbhandari et al. 2019 §7).

Links. Ranks are placed [TP, PP, DP] from innermost (fastest link) outward, as Llama 3's
[TP, CP, PP, DP] order does; a group of `size` ranks at `stride` sits in one node when
stride × size ≤ gpus_per_node. A data-parallel group across nodes has g = gpus_per_node /
stride ranks in each node (1 once TP × PP fills the node) and NCCL runs g rings at once, one per
NIC, so each rank moves at min(NVLink, g × NIC) (app.labs.collectives.node_link). A pipeline
send across nodes uses the sending GPU's own NIC. Latency: every ring step that crosses the
network costs α (NCCL's rings cross nodes nodes − 1 times per pass, tuning.cc); NVLink steps are
taken as free.

Overlap window (the DP gradient reduction cannot start before the gradients are final). Under
gradient accumulation the reduce-scatter of ZeRO-1 follows the last microbatch, so it hides only
behind that microbatch's backward pass, t_b, on the first pipeline stage, which finishes last
(later stages also have the cool-down idle time, (p−1−s)·t_b on stage s, so the first stage
sets the exposed time). ZeRO-2's per-microbatch reduce-scatters each hide behind their own
microbatch's backward. The parameter all-gather after the optimizer step hides behind the next
step's first forward, t_f. ZeRO-3's prefetched gathers overlap all compute. t_f is the forward
share of a microbatch's compute, 1/(3·r) with r the recomputation factor; t_b the rest.

Compute: model FLOPs 6·Ψ·tokens (Kaplan et al. 2020 §2.1) over gpus × peak × utilisation. A
measured MFU already contains recomputation's cost (MFU counts model FLOPs over wall time:
Chowdhery et al. 2022, PaLM App. B; Korthikanti §6.3), so it is not multiplied again; a
hardware FLOPs utilisation (HFU) counts the recomputed FLOPs, so the time is multiplied by r:
full recompute adds a forward (4/3), selective the attention core, 1 + s/(3(6h + s))
(Korthikanti 2022 §5). The 1F1B bubble multiplies compute by 1 + (p−1)/m.
Step time = compute × (1 + bubble) + exposed communication.
"""

from dataclasses import dataclass, field

from app.labs._common import Step, tex
from app.labs.collectives import node_link

BYTES_PER_ELEMENT = 2  # bf16 activations and parameters on the wire
GRAD_BYTES = {"bf16": 2, "fp32": 4}


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
    bandwidth_Bps: float = 0.0  # the effective per-rank rate the time uses
    overlap_window_s: float = 0.0  # compute it can hide behind (0: on the critical path)
    latency_s: float = 0.0  # α × network ring steps, included in time_s
    steps: list[Step] = field(default_factory=list)  # how time and exposure were worked out


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
    grad_bytes: int = 2
    alpha_s: float = 0.0


def group_link(plan: Plan, stride: int, size: int) -> tuple[str, float, int]:
    """(link, per-rank rate, network ring steps per pass) of a [TP, PP, DP] group (docstring)."""
    node = plan.gpus_per_node
    if size == 1:
        return "nvlink", plan.intra_node_Bps, 0
    if node > 1 and stride * size <= node:
        return "nvlink", plan.intra_node_Bps, 0
    # The group's ranks per node: node/stride when the stride tiles the node evenly; a
    # stride that does not (a PP degree that does not divide the node) is taken as one rank
    # per node, the conservative case.
    g = node // stride if node % stride == 0 and size % (node // stride) == 0 else 1
    link = node_link(size, plan.inter_node_Bps, g, plan.intra_node_Bps if g > 1 else None)
    return "network", link.bandwidth_Bps, size // g - 1


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


def traffic(plan: Plan, compute_s: float, explain: bool = True) -> list[TrafficItem]:
    """Per-step volumes and exposure: Narayanan 2021 §3.2/§4.1, ZeRO §7, Korthikanti §4.2.2.
    With `explain` False the items carry no worked steps (the ranking needs only the numbers)."""
    items = []
    e, m = BYTES_PER_ELEMENT, plan.microbatches
    sbh = float(plan.seq_len) * plan.hidden
    t, p, d = plan.tp, plan.pp, plan.dp
    layers = plan.layers // p
    r = recompute_factor(plan.recompute, plan.seq_len, plan.hidden)
    per_microbatch = compute_s / m
    forward = per_microbatch / (3.0 * r)
    backward = per_microbatch - forward
    if t > 1:
        per_call = (t - 1) / t * e * sbh  # one all-gather or one reduce-scatter of bsh
        pairs = (6 if plan.recompute == "full" else 4) * layers * m  # AG + RS, was one AR each
        extra = 2 * layers * m  # the backward re-all-gathers of the column-parallel inputs
        link, bw, _ = group_link(plan, 1, t)
        critical = 2 * pairs * per_call / bw
        time = critical + extra * per_call / bw
        collective = "all-gather + reduce-scatter (sequence parallel), + backward all-gather"
        per_layer = 6 if plan.recompute == "full" else 4
        steps = (
            [
                Step(
                    f"Tensor traffic: {per_layer} all-gather + reduce-scatter pairs and 2 backward "
                    f"all-gathers per layer per microbatch, {2 * pairs + extra:,} collectives of "
                    "(t−1)/t·e·sbh bytes each, on NVLink",
                    r"T = \frac{n_{\text{calls}}\,\frac{t-1}{t}\,e\,sbh}{B_{\text{NVLink}}}",
                    rf"\frac{{{2 * pairs + extra} \times {tex(per_call)}}}{{{tex(bw)}}}",
                    time,
                    "s",
                ),
                Step(
                    "Tensor traffic on the critical path: all but the backward all-gathers, "
                    "which run beside the input-gradient GEMM",
                    r"\frac{2 n_{\text{pairs}}\,\frac{t-1}{t}\,e\,sbh}{B_{\text{NVLink}}}",
                    rf"\frac{{{2 * pairs} \times {tex(per_call)}}}{{{tex(bw)}}}",
                    critical,
                    "s",
                ),
            ]
            if explain
            else []
        )
        items.append(
            TrafficItem("tensor", collective, "per layer per microbatch", 2 * pairs + extra,
                        per_call * (2 * pairs + extra), link, time, critical, bw, 0.0, 0.0,
                        steps)
        )  # fmt: skip
    if p > 1:
        per_call = e * sbh / t
        link, bw, _ = group_link(plan, t, p)
        if link == "network":
            bw = plan.inter_node_Bps  # a point-to-point send leaves on the sender's own NIC
        volume = 2 * m * per_call
        latency = 2 * m * plan.alpha_s if link == "network" else 0.0
        time = volume / bw + latency
        steps = (
            [
                Step(
                    "Pipeline sends: bsh/t forward and back per microbatch, on the critical path"
                    + (" (the sender's own NIC, α per send)" if link == "network" else ""),
                    r"T = \frac{2m\,e\,sbh/t}{B} + 2m\alpha",
                    rf"\frac{{{tex(volume)}}}{{{tex(bw)}}} + {tex(latency)}",
                    time,
                    "s",
                )
            ]
            if explain
            else []
        )
        items.append(
            TrafficItem("pipeline", "send/recv", "per microbatch", 2 * m, volume, link,
                        time, time, bw, 0.0, latency, steps)
        )  # fmt: skip
    if d > 1:
        elements = (d - 1) / d * plan.params / (t * p)  # one ring pass over this rank's share
        link, bw, crossings = group_link(plan, t * p, d)
        hop = crossings * plan.alpha_s  # latency of one ring pass
        gather = elements * e / bw + hop  # the bf16 parameter all-gather
        reduce = elements * plan.grad_bytes / bw + hop  # the gradient reduce-scatter
        rate = (
            f"{'NVLink' if link == 'nvlink' else 'the network'} at {bw / 1e9:.4g} GB/s per "
            f"rank, {crossings} network ring steps of α per pass"
        )
        steps = (
            [
                Step(
                    f"One ring pass over this rank's share of the gradients, in "
                    f"{plan.grad_bytes}-byte elements, {rate}",
                    r"T_{RS} = \frac{d-1}{d}\cdot\frac{G\,\Psi}{t\,p\,B} + (\text{nodes}-1)\alpha",
                    rf"\frac{{{tex(elements * plan.grad_bytes)}}}{{{tex(bw)}}} + {tex(hop)}",
                    reduce,
                    "s",
                ),
                Step(
                    "One ring pass over the bf16 parameters (the all-gather)",
                    r"T_{AG} = \frac{d-1}{d}\cdot\frac{2\,\Psi}{t\,p\,B} + (\text{nodes}-1)\alpha",
                    rf"\frac{{{tex(elements * e)}}}{{{tex(bw)}}} + {tex(hop)}",
                    gather,
                    "s",
                ),
            ]
            if explain
            else []
        )
        if plan.zero_stage == 0:
            collective, frequency, calls = "all-reduce", "per step", 1
            volume = elements * (plan.grad_bytes + e)
            time = reduce + gather
            exposed, window = max(0.0, time - backward), backward
            exposure = (r"\max(0,\ T_{RS} + T_{AG} - t_b)",
                        rf"\max(0,\ {tex(time)} - {tex(backward)})")  # fmt: skip
        elif plan.zero_stage == 1:
            collective, frequency, calls = "reduce-scatter + all-gather", "per step", 2
            volume = elements * (plan.grad_bytes + e)
            time = reduce + gather
            exposed = max(0.0, reduce - backward) + max(0.0, gather - forward)
            window = backward + forward
            exposure = (r"\max(0,\ T_{RS} - t_b) + \max(0,\ T_{AG} - t_f)",
                        rf"\max(0,\ {tex(reduce)} - {tex(backward)}) + "
                        rf"\max(0,\ {tex(gather)} - {tex(forward)})")  # fmt: skip
        elif plan.zero_stage == 2:
            collective, frequency = "reduce-scatter + all-gather", "per microbatch"
            calls, volume = m + 1, elements * (m * plan.grad_bytes + e)
            time = m * reduce + gather
            exposed = m * max(0.0, reduce - backward) + max(0.0, gather - forward)
            window = m * backward + forward
            exposure = (r"m \max(0,\ T_{RS} - t_b) + \max(0,\ T_{AG} - t_f)",
                        rf"{m} \max(0,\ {tex(reduce)} - {tex(backward)}) + "
                        rf"\max(0,\ {tex(gather)} - {tex(forward)})")  # fmt: skip
        else:
            gathers = 3 if plan.recompute == "full" else 2
            collective = f"all-gather ×{gathers} + reduce-scatter"
            frequency = "per layer per microbatch"
            calls = (gathers + 1) * layers * m
            volume = m * elements * (gathers * e + plan.grad_bytes)
            time = volume / bw + calls * hop
            exposed, window = max(0.0, time - compute_s), compute_s
            steps = (
                [
                    Step(
                        f"ZeRO-3: {gathers} all-gathers and a reduce-scatter per layer per "
                        f"microbatch, {rate} for each",
                        r"T = m\,\frac{d-1}{d}\cdot\frac{(2k + G)\,\Psi}{t\,p\,B} + "
                        r"\text{calls}\,(\text{nodes}-1)\alpha",
                        rf"\frac{{{tex(volume)}}}{{{tex(bw)}}} + {calls} \times {tex(hop)}",
                        time,
                        "s",
                    )
                ]
                if explain
                else []
            )
            exposure = (r"\max(0,\ T - T_{\text{compute}})",
                        rf"\max(0,\ {tex(time)} - {tex(compute_s)})")  # fmt: skip
        hidden = (
            "ZeRO-3's prefetched gathers overlap all of compute"
            if plan.zero_stage == 3
            else "t_b is one microbatch's backward on the first stage (the gradients are final "
            "only after the last microbatch), t_f the next step's first forward"
        )
        if explain:
            steps.append(
                Step(f"Data-parallel time not hidden: {hidden}", exposure[0], exposure[1],
                     exposed, "s")
            )  # fmt: skip
        latency = (
            (calls * hop)
            if plan.zero_stage == 3
            else ((m + 1) if plan.zero_stage == 2 else 2) * hop
        )
        items.append(
            TrafficItem("data", collective, frequency, calls, volume, link, time, exposed, bw,
                        window, latency, steps)
        )  # fmt: skip
    return items

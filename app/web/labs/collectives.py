"""The collectives lab: its input model (the one source of its bounds), its page and endpoint."""

import math
from typing import Annotated, Literal

from fastapi import APIRouter
from pydantic import Field

from app.charts import svg
from app.labs import collectives
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
from app.wording import plural

router = APIRouter()
Latency = Annotated[float, Field(ge=0, le=10)]  # seconds per hop


class CollectiveIn(LabIn):
    op: Literal["all_reduce", "reduce_scatter", "all_gather", "broadcast", "all_to_all"]
    algorithm: Literal["ring", "tree", "rabenseifner", "pat"] = Field(
        default="ring",
        description="ring; tree (all_reduce); rabenseifner, recursive halving and doubling "
        "(all_reduce, reduce_scatter, all_gather; a power of two ranks); pat, NCCL's "
        "Parallel Aggregated Trees (reduce_scatter, all_gather; one rank per node)",
    )
    ranks: Count
    bytes: Size = Field(description="The full buffer K, as nccl-tests counts it")
    alpha_s: Latency = Field(
        description="Latency of one network hop; of every hop when intra_node_alpha_s is "
        "omitted (the one-α model)"
    )
    bandwidth_Bps: Rate = Field(
        description="One rank's network rate, bytes per second (one NIC per GPU)"
    )
    ranks_per_node: Count = Field(
        default=1, description="How many of the group's ranks share a node"
    )
    intra_node_bandwidth_Bps: Rate | None = Field(
        default=None,
        description="Per-GPU rate inside a node (NVLink, or PCIe); required when "
        "ranks_per_node > 1",
    )
    intra_node_alpha_s: Latency | None = Field(
        default=None,
        description="Latency of one hop inside a node (NVLink, or PCIe); omitted, it is alpha_s",
    )
    tree_efficiency: Annotated[float, Field(gt=0, le=1)] = Field(
        default=1.0,
        description="The tree's share of the link rate: 1 is the ideal model, 0.9 NCCL 2.7's "
        "derating",
    )


class CollectiveOut(LabOut):
    bytes_sent_per_rank: float
    latency_term_s: float
    bandwidth_term_s: float
    time_s: float
    busbw_factor: float
    algbw_Bps: float
    busbw_Bps: float
    effective_bandwidth_Bps: float = Field(
        description="The per-rank rate every time uses: the NIC's with one rank per node, the "
        "intra-node rate inside a node, min(intra, ranks_per_node × NIC) across nodes"
    )
    crossover_bytes: float = Field(description="All-reduce size where ring and tree tie")
    intra_node_hops: int = Field(description="Steps inside a node, at intra_node_alpha_s")
    network_hops: int = Field(description="Steps that cross the network, at alpha_s")
    steps: list[StepOut]
    notes: list[str] = Field(description="Where the numbers come from, what is left out")


def _links(body: CollectiveIn) -> tuple[int, float | None]:
    return body.ranks_per_node, body.intra_node_bandwidth_Bps


@router.post("/api/labs/collective", tags=["labs"], responses=INVALID)
def collective_api(body: CollectiveIn) -> CollectiveOut:
    """α–β time of one collective on node-aware links, with nccl-tests' bus-bandwidth factor."""
    result = run(body, lambda: collectives.collective(**body.model_dump()))
    cross = run(
        body,
        lambda: collectives.crossover_bytes(
            body.ranks,
            body.alpha_s,
            body.bandwidth_Bps,
            *_links(body),
            body.tree_efficiency,
            body.intra_node_alpha_s,
        ),
    )
    return CollectiveOut.model_validate({**vars(result), "crossover_bytes": cross})


def view(values: Values) -> Context:
    n, alpha, bw = values["ranks"], values["alpha_s"], values["bandwidth_Bps"]
    size, eta = values["bytes"], values["tree_efficiency"]
    links = (values["ranks_per_node"], values["intra_node_bandwidth_Bps"])
    intra_alpha = values["intra_node_alpha_s"]
    result = collectives.collective(
        values["op"], values["algorithm"], n, size, alpha, bw, *links, eta, intra_alpha
    )
    cross = collectives.crossover_bytes(n, alpha, bw, *links, eta, intra_alpha)
    context: Context = {
        "rows": [
            ("Effective bandwidth per rank", fmt.rate(result.effective_bandwidth_Bps)),
            ("Bytes sent per rank", fmt.nbytes_both(result.bytes_sent_per_rank)),
            (
                f"Latency term ({plural(result.intra_node_hops, 'hop')} in a node, "
                f"{result.network_hops:,} across the network)",
                fmt.seconds(result.latency_term_s),
            ),
            ("Bandwidth term", fmt.seconds(result.bandwidth_term_s)),
            ("Time", fmt.seconds(result.time_s)),
            ("Algorithm bandwidth (size ÷ time)", fmt.rate(result.algbw_Bps)),
            ("Bus bandwidth factor", fmt.sig(result.busbw_factor, 4)),
            ("Bus bandwidth (what nccl-tests reports)", fmt.rate(result.busbw_Bps)),
        ],
        "steps": render_steps(result.steps),
        "notes": result.notes,
        "crossover": cross,
        "crossover_text": fmt.nbytes(cross),
        "chart": None,
    }
    if n == 1:
        return context
    top = max(size, cross) * 4
    exponents = range(3, min(max(34, math.ceil(math.log2(top)) + 1), 60))
    sizes = [float(2**e) for e in exponents]
    curve = collectives.allreduce_curve(n, alpha, bw, sizes, *links, eta, intra_alpha)
    marks = [svg.Mark(f"Your message, {fmt.nbytes(size)}", size, "ch-mark-2")]
    if cross > 0:
        marks.insert(0, svg.Mark(f"Crossover, {fmt.nbytes(cross)}", cross))
    context["chart"] = svg.line_chart(
        [
            svg.Series("Ring", [(p.bytes, p.ring_s) for p in curve], "c1"),
            svg.Series("Tree", [(p.bytes, p.tree_s) for p in curve], "c2"),
        ],
        chart_id="collectives-chart",
        title=f"All-reduce time against message size, {n:,} ranks",
        desc=f"Log-log plot of ring and tree all-reduce time from {fmt.nbytes(curve[0].bytes)} "
        f"to {fmt.nbytes(curve[-1].bytes)}; "
        + (f"the lines cross at {fmt.nbytes(cross)}." if cross else "the ring is never slower."),
        x_label="message size",
        y_label="time",
        fmt_x=fmt.axis_bytes,
        fmt_y=fmt.axis_seconds,
        log_x=True,
        log_y=True,
        marks=marks,
    )
    return context


NETWORK = "Nodes and links"

# fmt: off
SPEC = lab_spec(
    "collectives",
    CollectiveIn,
    (
        F("op", "Operation", "choice", "all_reduce", choices=(
            ("all_reduce", "All-reduce"), ("reduce_scatter", "Reduce-scatter"),
            ("all_gather", "All-gather"), ("broadcast", "Broadcast"),
            ("all_to_all", "All-to-all"))),
        F("algorithm", "Algorithm", "choice", "ring", choices=(
            ("ring", "Ring"), ("tree", "Tree (all-reduce only)"),
            ("rabenseifner", "Recursive halving/doubling (Rabenseifner)"),
            ("pat", "PAT (NCCL 2.23+: all-gather, reduce-scatter)"))),
        F("ranks", "Ranks", "int", "1024", unit="GPUs", step="1"),
        F("bytes", "Message size", "float", "1e9", unit="B",
          hint="The whole buffer, as nccl-tests counts it: 1e9 is 1 GB"),
        F("alpha_us", "Network hop latency (α_net)", "float", "2.7", unit="µs", api="alpha_s",
          scale=1e-6, hint="One step across the network. NCCL 2.7's tuner charges a ring step "
          "2.7 (LL) to 9.6 µs (Simple); the topic's flat model charges 5 for every hop"),
        F("bandwidth", "Network bandwidth per rank", "float", "50", unit="GB/s",
          api="bandwidth_Bps", scale=1e9,
          hint="One direction, one NIC per GPU: a 400 Gb/s NIC is 50"),
        F("ranks_per_node", "Ranks per node (g)", "int", "8", step="1", group=NETWORK,
          hint="How many of the group's ranks share a node; 1 keeps the flat model"),
        F("intra_node", "Intra-node bandwidth per GPU", "float", "450", unit="GB/s",
          api="intra_node_bandwidth_Bps", scale=1e9, group=NETWORK,
          hint="Used when g > 1. H100 NVLink: 450; PCIe Gen4 x16: about 25"),
        F("intra_alpha_us", "Intra-node hop latency (α_intra)", "float", "0.85", unit="µs",
          api="intra_node_alpha_s", scale=1e-6, optional=True, group=NETWORK,
          hint="One step inside a node, used when g > 1. NCCL 2.7's NVLink ring step (LL): "
          "0.47, × 1.8 once the ring spans nodes = 0.85. Blank: every hop costs α_net"),
        F("tree_efficiency", "Tree bandwidth efficiency (η)", "float", "0.9", group=NETWORK,
          hint="NCCL 2.7's tuner derates trees to 0.9 of the ring's rate and caps them at 80 "
          "GB/s beyond two nodes: against a 400 GB/s ring that is 0.2. 1 is the ideal tree"),
    ),
    (
        # The defaults are the topic's node-aware ring: 1,024 GPUs, NCCL's LL hop latencies.
        Preset("1 GB over 128 nodes × 8 GPUs", {}),
        Preset("The same, one 5 µs α for every hop", {"alpha_us": "5", "intra_alpha_us": ""}),
        Preset("1 MB over 128 nodes × 8 GPUs, tree", {"bytes": "1e6", "algorithm": "tree"}),
        Preset("1 GB over 128 nodes, one GPU each", {"ranks": "128", "ranks_per_node": "1"}),
        Preset("1 GB on one H100 node", {"ranks": "8", "intra_alpha_us": "0.47"}),
        Preset("8 PCIe Gen4 GPUs in one node", {
            "ranks": "8", "intra_node": "25", "intra_alpha_us": "1"}),
        Preset("All-gather of 1 GB, 8 GPUs", {
            "op": "all_gather", "ranks": "8", "intra_alpha_us": "0.47"}),
    ),
    view,
    {NETWORK: "With g ranks per node, a group across nodes runs g rings at once, one per NIC, "
              "and only N/g − 1 of a ring pass's N − 1 hops cross the network."},
)
# fmt: on

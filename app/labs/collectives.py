"""α–β cost of NCCL-style collectives on node-aware links, busbw factors, and crossovers.

`bytes` is the full buffer K, the nccl-tests convention (doc/PERFORMANCE.md): for reduce_scatter
and all_gather it is the full, gathered buffer (count × ranks), for all_to_all the whole send
buffer of one rank. Each message costs α + size/B; N = ranks.

Which bandwidth B a rank sees (NCCL's node-aware rings, NCCL 2.4 blog and `src/graph/tuning.cc`,
where a ring's bus bandwidth is nChannels × the per-channel rate of its slowest hop):
    ranks_per_node g = 1   one rank per node: every hop crosses the network on the rank's own
                           NIC, B = bandwidth_Bps (the only case before these inputs existed);
    N ≤ g                  the whole group sits in one node: B = intra_node_bandwidth_Bps;
    N > g > 1              across nodes with g ranks per node: NCCL builds g rings (channels)
                           at once, each leaving the node on a different NIC, so every rank's
                           share of the traffic moves at B = min(intra, g × NIC).
Left out: NVLS and SHARP/CollNet in-network reduction, protocol choice (LL, LL128, Simple),
congestion, NCCL's base latency per call (3.6 µs for ring/LL) and its own hop latencies per
algorithm (a tree/LL hop costs it 0.52 × 1.8 µs on NVLink and 5 µs on the network): here a tree
hop costs what a ring hop costs.

Which latency a step pays: the hop it crosses, α_intra inside a node (`intra_node_alpha_s`,
NVLink or PCIe) or α_net across the network (`alpha_s`). Without `intra_node_alpha_s` every hop
costs `alpha_s`, the one-α model these functions had before. The hops are counted as NCCL's
tuner counts them (tuning.cc, 2.7-era revision, `ncclTopoTuneModel`), with nodes = N/g:
    g = 1 every hop crosses the network; N ≤ g (one node) none does.
    ring         a node's g ranks sit next to each other on the ring, so N/g of its N edges cross
                 the network. A pass of N−1 steps carries a chunk over every edge but one, and
                 the one it skips is counted as a network edge (nInterSteps = nNodes − 1 per
                 pass): N/g − 1 network hops and N − N/g intra-node hops per pass, two passes
                 for all_reduce. 1,024 GPUs in 128 nodes: 2 × 127 = 254 network hops and
                 2046 − 254 = 1,792 NVLink hops.
    all_to_all   N−1 pairwise steps, one to each other rank: g−1 in the node, N−g across.
    tree         2((g−1)·α_intra + ⌈log₂(N/g)⌉·α_net): a chain of g−1 hops in each node, then
                 the tree's levels over the nodes, up and down (tuning.cc's tree latency).
    halving/doubling, PAT   log₂g steps inside the node, then log₂(N/g) across, per pass.
With α_intra = 0.85 µs (NCCL 2.7's LL NVLink step, 0.47 µs × 1.8 once the ring spans nodes)
and α_net = 2.7 µs (its LL network step), the 1,024-GPU ring's latency term is
1,792 × 0.85 + 254 × 2.7 = 2,209 µs, the topic's "≈ 2,200 µs" less NCCL's 3.6 µs base.

Ring models (a step sends one K/N chunk to the next rank; each α is its hop's, as above):
    all_reduce       reduce-scatter then all-gather: 2(N−1)α + 2(N−1)/N · K/B
    reduce_scatter   (N−1)α + (N−1)/N · K/B            all_gather: the same
    all_to_all       pairwise exchange, N−1 steps of K/N: (N−1)α + (N−1)/N · K/B
    broadcast        pipelined ring, chunk overhead ignored: (N−1)α + K/B
Tree model (all_reduce only: NCCL's tree algorithm implements only all-reduce):
    NCCL 2.4's pipelined double binary tree, reduce up then broadcast down: 2dα + 2K/(ηB).
    Each tree carries K/2; a rank is inner in one tree (receives 2·K/2 and sends K/2 up, then
    sends 2·K/2 down) and a leaf in the other (sends K/2 up), so it sends 2K in all: the large-N
    volume of the ring, 2(N−1)K/N → 2K. The depth d is ⌈log₂N⌉ with one rank per node; with g
    ranks per node NCCL chains the g ranks inside a node and runs the trees over the nodes, so
    d = (g − 1) + ⌈log₂(N/g)⌉ (tuning.cc, v2.23.4-1: the tree's latency is
    2·((nRanks/nNodes − 1)·intraLat + log2i(nNodes)·interLat)).
    η is the tree's bandwidth efficiency: 1 in the ideal model; NCCL's tuner derates the tree to
    0.9 × the ring's rate and caps it at 80 GB/s beyond two nodes (v2.7.5-1), 0.92 × and a
    per-channel cap in v2.23.4-1. Without derating the ring's advantage is only 2K/(NB) and the
    crossover lands at terabytes for large N.
Recursive halving and doubling (Rabenseifner; Thakur, Rabenseifner & Gropp 2005, MPICH's
long-message all-reduce), N a power of two (with g ranks per node, the halving steps inside the
node come first, (1 − 1/g)·K on the intra-node links, then (1/g − 1/N)·K on each rank's own NIC:
its steps are sequential, not a pipelined ring, so it cannot spread over the node's NICs):
    all_reduce                    2log₂N·α + 2(N−1)/N · K/B
    reduce_scatter, all_gather    log₂N·α + (N−1)/N · K/B
    bandwidth-optimal and logarithmic, but only on a full-bisection network: its distance-doubling
    partners collide on rails and oversubscribed layers (not modelled), one reason NCCL uses rings.
PAT (NCCL's Parallel Aggregated Trees, from v2.23.4-1; all_gather and reduce_scatter only, and only
with one GPU per node, `ncclPatEnable`): modelled as log-latency and bandwidth-optimal,
⌈log₂N⌉α + (N−1)/N · K/B. NCCL's own model adds a linear 2.8 µs per rank and derates PAT's
bandwidth (× 0.85 in v2.23.4-1, × 0.75 in v2.30.7-1); both are left out here.

busbw = algbw × factor (nccl-tests doc/PERFORMANCE.md): all_reduce 2(N−1)/N; reduce_scatter,
all_gather, all_to_all (N−1)/N; broadcast 1.

`CollectiveResult.steps` is a list of `app.labs._common.Step` (label, symbolic LaTeX, LaTeX with
numbers, value, unit); `notes` say where the inputs came from and what the model leaves out.
"""

from dataclasses import dataclass, field

from app.errors import FieldError
from app.labs._common import Step, check_choice, check_int, check_real, tex

OPS = ("all_reduce", "reduce_scatter", "all_gather", "broadcast", "all_to_all")
ALGORITHMS = ("ring", "tree", "rabenseifner", "pat")
ALGORITHM_OPS = {
    "ring": OPS,
    "tree": ("all_reduce",),
    "rabenseifner": ("all_reduce", "reduce_scatter", "all_gather"),
    "pat": ("reduce_scatter", "all_gather"),
}


@dataclass(frozen=True)
class CollectiveResult:
    """One collective's modelled cost; field names are the JSON API's."""

    bytes_sent_per_rank: float
    latency_term_s: float
    bandwidth_term_s: float
    time_s: float
    busbw_factor: float
    algbw_Bps: float
    busbw_Bps: float
    steps: list[Step] = field(default_factory=list)
    effective_bandwidth_Bps: float = 0.0
    notes: list[str] = field(default_factory=list)
    intra_node_hops: int = 0  # steps on the critical path that stay inside a node
    network_hops: int = 0  # steps that cross the network


@dataclass(frozen=True)
class CurvePoint:
    """All-reduce time for one message size under both algorithms."""

    bytes: float
    ring_s: float
    tree_s: float


def busbw_factor(op: str, ranks: int) -> float:
    """algbw → busbw correction factor: nccl-tests doc/PERFORMANCE.md, "Summary"."""
    check_choice("op", op, OPS)
    n = check_int("ranks", ranks, 1)
    if op == "all_reduce":
        return 2.0 * (n - 1) / n
    if op == "broadcast":
        return 1.0
    return (n - 1) / n


def busbw_from_algbw(op: str, ranks: int, algbw_Bps: float) -> float:
    """busbw = algbw × factor: nccl-tests doc/PERFORMANCE.md, "Bus bandwidth"."""
    return check_real("algbw_Bps", algbw_Bps, positive=False) * busbw_factor(op, ranks)


def algbw_from_time(bytes: float, time_s: float) -> float:
    """algbw = S / t: nccl-tests doc/PERFORMANCE.md, "Algorithm bandwidth"."""
    return check_real("bytes", bytes, positive=False) / check_real("time_s", time_s, positive=True)


def tree_depth(ranks: int) -> int:
    """⌈log₂ N⌉, the depth of a binary tree over N ranks: NCCL 2.4 blog (Jeaugey 2019)."""
    return (ranks - 1).bit_length()


@dataclass(frozen=True)
class Link:
    """The rate one rank of a group sees, and why (the module docstring's node-aware rule)."""

    bandwidth_Bps: float
    ranks_per_node: int  # g: the group's ranks in one node (1 when the group is one per node)
    within_node: bool


def node_link(
    ranks: int,
    bandwidth_Bps: float,
    ranks_per_node: int = 1,
    intra_node_bandwidth_Bps: float | None = None,
) -> Link:
    """Effective per-rank rate of a group: NCCL's node-aware rings (NCCL 2.4 blog; tuning.cc)."""
    n = check_int("ranks", ranks, 1)
    nic = check_real("bandwidth_Bps", bandwidth_Bps, positive=True)
    g = check_int("ranks_per_node", ranks_per_node, 1)
    if g == 1:
        return Link(nic, 1, n == 1)
    if intra_node_bandwidth_Bps is None:
        raise FieldError("intra_node_bandwidth_Bps", "required when ranks_per_node is above 1")
    intra = check_real("intra_node_bandwidth_Bps", intra_node_bandwidth_Bps, positive=True)
    if n <= g:
        return Link(intra, n, True)
    if n % g:
        raise FieldError(
            "ranks",
            f"a group across nodes must fill its nodes evenly: a multiple of ranks_per_node ({g})",
        )
    return Link(min(intra, g * nic), g, False)


def _hops(op: str, algorithm: str, n: int, g: int) -> tuple[int, int]:
    """(intra-node, network) steps on the critical path, g = the link's ranks per node (1: every
    hop crosses the network, N: none does). Their sum is the one-α count: ring 2(N−1) or N−1,
    tree 2((g−1) + ⌈log₂(N/g)⌉), log-time algorithms log₂N per pass (module docstring)."""
    if n == 1:
        return 0, 0
    nodes = n // g
    passes = 2 if op == "all_reduce" else 1
    if algorithm == "tree":
        return 2 * (g - 1), 2 * tree_depth(nodes)
    if algorithm in ("rabenseifner", "pat"):
        # The halving steps inside the node come first (see _halving_steps), then the nodes'.
        return passes * tree_depth(g), passes * tree_depth(nodes)
    if op == "all_to_all":
        return g - 1, n - g  # one step to each other rank: g − 1 of them share the node
    # A ring pass crosses every edge but one, and NCCL counts the one skipped as a network
    # edge: nodes − 1 network hops per pass, the rest inside the nodes.
    return passes * (n - nodes), passes * (nodes - 1)


def _alphas(alpha_s: float, intra_node_alpha_s: float | None) -> tuple[float, float]:
    """(α_intra, α_net): one α for every hop unless the intra-node hop has its own."""
    alpha = check_real("alpha_s", alpha_s, positive=False)
    if intra_node_alpha_s is None:
        return alpha, alpha
    return check_real("intra_node_alpha_s", intra_node_alpha_s, positive=False), alpha


def _volume(op: str, algorithm: str, n: int, k: float) -> float:
    """Bytes each rank sends: ring (N−1)/N per pass, tree 2K, broadcast K (module docstring)."""
    if n == 1:
        return 0.0
    if algorithm == "tree":
        return 2.0 * k
    if op == "all_reduce":
        return 2.0 * (n - 1) / n * k
    if op == "broadcast":
        return k
    return (n - 1) / n * k


def collective(
    op: str,
    algorithm: str,
    ranks: int,
    bytes: float,
    alpha_s: float,
    bandwidth_Bps: float,
    ranks_per_node: int = 1,
    intra_node_bandwidth_Bps: float | None = None,
    tree_efficiency: float = 1.0,
    intra_node_alpha_s: float | None = None,
) -> CollectiveResult:
    """α–β time of one collective: Patarasuk & Yuan 2009 (ring), NCCL 2.4 blog (tree), Thakur
    et al. 2005 (recursive halving/doubling), NCCL tuning.cc (node-aware rates, PAT)."""
    check_choice("op", op, OPS)
    check_choice("algorithm", algorithm, ALGORITHMS)
    n = check_int("ranks", ranks, 1)
    k = check_real("bytes", bytes, positive=False)
    alpha_intra, alpha_net = _alphas(alpha_s, intra_node_alpha_s)
    check_real("bandwidth_Bps", bandwidth_Bps, positive=True)
    eta = check_real("tree_efficiency", tree_efficiency, positive=True)
    if eta > 1:
        raise FieldError("tree_efficiency", "must be at most 1")
    if op not in ALGORITHM_OPS[algorithm]:
        allowed = ", ".join(ALGORITHM_OPS[algorithm])
        raise FieldError("algorithm", f"{algorithm} is modelled for {allowed} only, as in NCCL")
    link = node_link(n, bandwidth_Bps, ranks_per_node, intra_node_bandwidth_Bps)
    if algorithm == "rabenseifner" and n & (n - 1):
        raise FieldError("ranks", "recursive halving and doubling is modelled for a power of two")
    if algorithm == "pat" and ranks_per_node != 1:
        raise FieldError("ranks_per_node", "NCCL runs PAT only with one GPU per node (v2.23+)")

    intra_hops, net_hops = _hops(op, algorithm, n, link.ranks_per_node)
    sent = _volume(op, algorithm, n, k)
    rate = link.bandwidth_Bps * (eta if algorithm == "tree" else 1.0)
    latency = intra_hops * alpha_intra + net_hops * alpha_net
    bandwidth = sent / rate if sent else 0.0
    first = _bandwidth_step(link, bandwidth_Bps, intra_node_bandwidth_Bps, n, ranks_per_node)
    bandwidth_step = Step(
        "Bandwidth term",
        _bandwidth_tex(op, algorithm),
        rf"\frac{{{tex(sent)}}}{{{tex(rate)}}}",
        bandwidth,
        "s",
    )
    if algorithm == "rabenseifner" and ranks_per_node > 1 and not link.within_node:
        # Halving and doubling are not pipelined rings: the steps inside the node (taken
        # first, where the halves are largest) run on NVLink, the rest on each rank's own NIC.
        first, bandwidth_step, bandwidth = _halving_steps(
            op, n, k, min(ranks_per_node, n), bandwidth_Bps, intra_node_bandwidth_Bps or 0.0
        )
        rate = sent / bandwidth
        link = Link(rate, link.ranks_per_node, link.within_node)
    time = latency + bandwidth
    factor = busbw_factor(op, n)
    algbw = k / time if time > 0 else 0.0
    where = "flat" if ranks_per_node == 1 else "inside" if link.within_node else "across"
    steps = [
        first,
        Step(
            f"Latency term: {intra_hops:,} hops inside a node, {net_hops:,} across the network",
            _latency_tex(op, algorithm, where),
            rf"{intra_hops} \times {tex(alpha_intra)} + {net_hops} \times {tex(alpha_net)}",
            latency,
            "s",
        ),
        bandwidth_step,
        Step("Time", r"T = T_\alpha + T_\beta", rf"{tex(latency)} + {tex(bandwidth)}", time, "s"),
        Step("Bus bandwidth factor", _factor_tex(op), f"N = {n}", factor, ""),
        Step(
            "busbw",
            r"\text{busbw} = \frac{K}{T} \times \text{factor}",
            rf"\frac{{{tex(k)}}}{{{tex(time)}}} \times {tex(factor)}",
            algbw * factor,
            "B/s",
        ),
    ]
    return CollectiveResult(
        bytes_sent_per_rank=sent,
        latency_term_s=latency,
        bandwidth_term_s=bandwidth,
        time_s=time,
        busbw_factor=factor,
        algbw_Bps=algbw,
        busbw_Bps=algbw * factor,
        steps=steps,
        effective_bandwidth_Bps=link.bandwidth_Bps,
        notes=_notes(algorithm, link, eta),
        intra_node_hops=intra_hops,
        network_hops=net_hops,
    )


def _halving_steps(
    op: str, n: int, k: float, g: int, nic: float, intra: float
) -> tuple[Step, Step, float]:
    """Recursive halving/doubling with g ranks per node: (1 − 1/g)·K on NVLink, then
    (1/g − 1/N)·K on each rank's own NIC, per pass (Thakur et al. 2005, node-aware order)."""
    passes = 2 if op == "all_reduce" else 1
    inside, across = (1 - 1 / g) * k, (1 / g - 1 / n) * k
    bandwidth = passes * (inside / intra + across / nic)
    sent = passes * (n - 1) / n * k
    rate = Step(
        f"Effective bandwidth per rank: halving first inside the node ({g} ranks, NVLink), then "
        "across nodes, each rank on its own NIC",
        r"B = \frac{\text{bytes sent}}{T_\beta}",
        rf"\frac{{{tex(sent)}}}{{{tex(bandwidth)}}}",
        sent / bandwidth,
        "B/s",
    )
    term = Step(
        "Bandwidth term: the halves inside the node on NVLink, the rest on the NIC",
        ("2" if passes == 2 else "") + r"\left(\frac{(1-\frac{1}{g})K}{B_{\text{intra}}} + "
        r"\frac{(\frac{1}{g}-\frac{1}{N})K}{B_{\text{NIC}}}\right)",
        rf"{passes} \times \left(\frac{{{tex(inside)}}}{{{tex(intra)}}} + "
        rf"\frac{{{tex(across)}}}{{{tex(nic)}}}\right)",
        bandwidth,
        "s",
    )
    return rate, term, bandwidth


def _bandwidth_step(link: Link, nic: float, intra: float | None, n: int, g_in: int) -> Step:
    """Where B came from: the module docstring's node-aware rule (NCCL's one ring per NIC)."""
    label = "Effective bandwidth per rank"
    if g_in == 1:
        return Step(
            f"{label}: one rank per node, each on its own NIC",
            r"B = B_{\text{NIC}}",
            tex(nic),
            link.bandwidth_Bps,
            "B/s",
        )
    if link.within_node:
        return Step(
            f"{label}: all {n} ranks in one node, on the intra-node links",
            r"B = B_{\text{intra}}",
            tex(intra or 0.0),
            link.bandwidth_Bps,
            "B/s",
        )
    return Step(
        f"{label}: {link.ranks_per_node} rings at once across nodes, one per NIC",
        r"B = \min(B_{\text{intra}},\ g \cdot B_{\text{NIC}})",
        rf"\min({tex(intra or 0.0)},\ {link.ranks_per_node} \times {tex(nic)})",
        link.bandwidth_Bps,
        "B/s",
    )


def _notes(algorithm: str, link: Link, eta: float) -> list[str]:
    """Where the numbers come from and what the model leaves out (module docstring)."""
    notes = [
        "α and B are your inputs; K/B uses the effective bandwidth above. Each step pays the "
        "latency of the hop it crosses, α_intra inside a node or α_net across the network, "
        "counted as NCCL's tuner counts them. Left out: NCCL's base latency per call, its "
        "per-protocol (LL, LL128, Simple) and per-algorithm hop latencies, congestion, and "
        "NVLS or SHARP in-network reduction."
    ]
    if not link.within_node and link.ranks_per_node > 1:
        notes.append(
            "Across nodes, NCCL runs one ring per NIC, so the node's NICs share each rank's "
            "traffic; the bytes leaving a node are the same whatever the layout inside it."
        )
    if algorithm == "tree":
        notes.append(
            f"Tree bandwidth efficiency η = {eta:g}: NCCL's tuner derates the tree to 0.9 × the "
            "ring's rate and caps it at 80 GB/s beyond two nodes (v2.7.5), 0.92 × and a "
            "per-channel cap in v2.23; η = 1 is the ideal model."
        )
    if algorithm == "rabenseifner":
        notes.append(
            "Recursive halving then doubling assumes full bisection: its distance-doubling "
            "partners share links on rail-optimised and oversubscribed fabrics (not modelled). "
            "With several ranks per node it is not a pipelined ring: its steps across nodes "
            "use each rank's own NIC, so it cannot borrow the other NICs of the node."
        )
    if algorithm == "pat":
        notes.append(
            "PAT (NCCL 2.23+, one GPU per node): NCCL's own model adds 2.8 µs per rank and "
            "derates PAT's bandwidth (× 0.85 in 2.23, × 0.75 in 2.30); both are left out here."
        )
    return notes


def crossover_bytes(
    ranks: int,
    alpha_s: float,
    bandwidth_Bps: float,
    ranks_per_node: int = 1,
    intra_node_bandwidth_Bps: float | None = None,
    tree_efficiency: float = 1.0,
    intra_node_alpha_s: float | None = None,
) -> float:
    """Size K* where ring and tree all-reduce times meet (this module's models):
    K* = (T_α,ring − T_α,tree)·B / (2(1/η − 1 + 1/N)). With one α and g = 1 that is
    (N−1−⌈log₂N⌉)·α·B / (1/η − 1 + 1/N), and N·B·α·(N−1−⌈log₂N⌉) when η = 1."""
    n = check_int("ranks", ranks, 1)
    alpha_intra, alpha_net = _alphas(alpha_s, intra_node_alpha_s)
    eta = check_real("tree_efficiency", tree_efficiency, positive=True)
    if eta > 1:
        raise FieldError("tree_efficiency", "must be at most 1")
    link = node_link(n, bandwidth_Bps, ranks_per_node, intra_node_bandwidth_Bps)
    if n == 1:
        return 0.0
    # Ring minus tree: the latency the tree saves less 2K/B·(1/η − 1 + 1/N), the bandwidth it
    # loses; below K* the tree wins. When it saves nothing (N ≤ 3, or a one-node chain) the
    # tree never wins: zero bytes.
    g = link.ranks_per_node
    (ring_intra, ring_net), (tree_intra, tree_net) = (
        _hops("all_reduce", algorithm, n, g) for algorithm in ("ring", "tree")
    )
    saved = (ring_intra - tree_intra) * alpha_intra + (ring_net - tree_net) * alpha_net
    return max(0.0, saved / 2 * link.bandwidth_Bps / (1.0 / eta - 1.0 + 1.0 / n))


def default_sizes() -> list[float]:
    """Message sizes 8 B … 8 GiB in powers of two, as nccl-tests sweeps -b 8 -e 8G -f 2."""
    return [float(2**e) for e in range(3, 34)]


def allreduce_curve(
    ranks: int,
    alpha_s: float,
    bandwidth_Bps: float,
    sizes: list[float] | None = None,
    ranks_per_node: int = 1,
    intra_node_bandwidth_Bps: float | None = None,
    tree_efficiency: float = 1.0,
    intra_node_alpha_s: float | None = None,
) -> list[CurvePoint]:
    """All-reduce time against message size, ring and tree: this module's α–β models."""
    points = []
    links = (ranks_per_node, intra_node_bandwidth_Bps)
    for size in default_sizes() if sizes is None else sizes:
        args = (ranks, size, alpha_s, bandwidth_Bps, *links)
        ring = collective("all_reduce", "ring", *args, intra_node_alpha_s=intra_node_alpha_s)
        tree = collective("all_reduce", "tree", *args, tree_efficiency, intra_node_alpha_s)
        points.append(CurvePoint(bytes=float(size), ring_s=ring.time_s, tree_s=tree.time_s))
    return points


def _latency_tex(op: str, algorithm: str, where: str) -> str:
    """The latency term as LaTeX, `_hops`' counts times α_intra and α_net: "flat" is one rank
    per node (every hop on the network), "inside" one node (none), "across" g ranks per node."""
    two = "2" if op == "all_reduce" else ""
    if algorithm == "tree":
        total = "2(N-1)" if where == "inside" else r"2\lceil\log_2 N\rceil"  # a chain, a tree
        split = ("2(g-1)", r"2\lceil\log_2 (N/g)\rceil")
    elif algorithm in ("rabenseifner", "pat"):
        total = two + (r"\log_2 N" if algorithm == "rabenseifner" else r"\lceil\log_2 N\rceil")
        split = (two + r"\log_2 g", two + r"\log_2 (N/g)")
    elif op == "all_to_all":
        total, split = "(N-1)", ("(g-1)", "(N-g)")
    else:
        total, split = f"{two}(N-1)", (f"{two}(N-N/g)", f"{two}(N/g-1)")
    intra, net = ("0", total) if where == "flat" else (total, "0") if where == "inside" else split
    return rf"T_\alpha = {intra}\,\alpha_{{\text{{intra}}}} + {net}\,\alpha_{{\text{{net}}}}"


def _bandwidth_tex(op: str, algorithm: str) -> str:
    """Bandwidth term as LaTeX: Patarasuk & Yuan 2009 (ring), NCCL 2.4 blog (tree), Thakur 2005."""
    if algorithm == "tree":
        return r"\frac{2K}{\eta B}"
    if op == "all_reduce":
        return r"\frac{2(N-1)}{N}\cdot\frac{K}{B}"
    if op == "broadcast":
        return r"\frac{K}{B}"
    return r"\frac{N-1}{N}\cdot\frac{K}{B}"


def _factor_tex(op: str) -> str:
    """busbw factor as LaTeX: nccl-tests doc/PERFORMANCE.md, "Summary"."""
    if op == "all_reduce":
        return r"\frac{2(N-1)}{N}"
    return "1" if op == "broadcast" else r"\frac{N-1}{N}"

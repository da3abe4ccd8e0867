"""α–β cost of NCCL-style collectives, busbw factors, and the ring/tree crossover.

`bytes` is the full buffer K, the nccl-tests convention (doc/PERFORMANCE.md): for reduce_scatter
and all_gather it is the full, gathered buffer (count × ranks), for all_to_all the whole send
buffer of one rank. Each message costs α + size/B; N = ranks.

Ring models (a step sends one K/N chunk to the next rank):
    all_reduce       reduce-scatter then all-gather: 2(N−1)α + 2(N−1)/N · K/B
    reduce_scatter   (N−1)α + (N−1)/N · K/B            all_gather: the same
    all_to_all       pairwise exchange, N−1 steps of K/N: (N−1)α + (N−1)/N · K/B
    broadcast        pipelined ring, chunk overhead ignored: (N−1)α + K/B
Tree model (all_reduce only: NCCL's tree algorithm implements only all-reduce):
    NCCL 2.4's pipelined double binary tree, reduce up then broadcast down: 2⌈log₂N⌉α + 2K/B.
    Each tree carries K/2; a rank is inner in one tree (receives 2·K/2 and sends K/2 up, then
    sends 2·K/2 down) and a leaf in the other (sends K/2 up), so it sends 2K in all: the large-N
    volume of the ring, 2(N−1)K/N → 2K, with a logarithmic instead of linear latency term.

busbw = algbw × factor (nccl-tests doc/PERFORMANCE.md): all_reduce 2(N−1)/N; reduce_scatter,
all_gather, all_to_all (N−1)/N; broadcast 1.

`CollectiveResult.steps` is a list of `app.labs._common.Step` (label, symbolic LaTeX, LaTeX with
numbers, value, unit).
"""

from dataclasses import dataclass, field

from app.labs._common import Step, check_choice, check_int, check_real, tex

OPS = ("all_reduce", "reduce_scatter", "all_gather", "broadcast", "all_to_all")
ALGORITHMS = ("ring", "tree")


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


def _terms(op: str, algorithm: str, n: int, k: float) -> tuple[int, float, float]:
    """(latency message count, bytes sent per rank, bandwidth volume): the module's α–β models."""
    if n == 1:
        return 0, 0.0, 0.0
    if algorithm == "tree":
        return 2 * tree_depth(n), 2.0 * k, 2.0 * k
    if op == "all_reduce":
        volume = 2.0 * (n - 1) / n * k
        return 2 * (n - 1), volume, volume
    if op == "broadcast":
        return n - 1, k, k
    volume = (n - 1) / n * k
    return n - 1, volume, volume


def collective(
    op: str,
    algorithm: str,
    ranks: int,
    bytes: float,
    alpha_s: float,
    bandwidth_Bps: float,
) -> CollectiveResult:
    """α–β time of one collective: Patarasuk & Yuan 2009 (ring), NCCL 2.4 blog (tree)."""
    check_choice("op", op, OPS)
    check_choice("algorithm", algorithm, ALGORITHMS)
    n = check_int("ranks", ranks, 1)
    k = check_real("bytes", bytes, positive=False)
    alpha = check_real("alpha_s", alpha_s, positive=False)
    bw = check_real("bandwidth_Bps", bandwidth_Bps, positive=True)
    if algorithm == "tree" and op != "all_reduce":
        raise ValueError("algorithm: tree is modelled for all_reduce only, as in NCCL")

    messages, sent, volume = _terms(op, algorithm, n, k)
    latency = messages * alpha
    bandwidth = volume / bw
    time = latency + bandwidth
    factor = busbw_factor(op, n)
    algbw = k / time if time > 0 else 0.0
    steps = [
        Step(
            "Latency term",
            _latency_tex(op, algorithm),
            rf"{messages} \times {tex(alpha)}",
            latency,
            "s",
        ),
        Step(
            "Bandwidth term",
            _bandwidth_tex(op, algorithm),
            rf"\frac{{{tex(volume)}}}{{{tex(bw)}}}",
            bandwidth,
            "s",
        ),
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
    )


def crossover_bytes(ranks: int, alpha_s: float, bandwidth_Bps: float) -> float:
    """Size K* where ring and tree all-reduce times meet: K* = N·B·α·(N−1−⌈log₂N⌉) (this model)."""
    n = check_int("ranks", ranks, 1)
    alpha = check_real("alpha_s", alpha_s, positive=False)
    bw = check_real("bandwidth_Bps", bandwidth_Bps, positive=True)
    # Ring minus tree: 2(N−1−d)α − 2K/(NB); below K* the tree's shorter latency wins. When
    # N−1 ≤ d (N ≤ 3) the tree never wins and the crossover is at zero bytes.
    return max(0.0, n * bw * alpha * (n - 1 - tree_depth(n)))


def default_sizes() -> list[float]:
    """Message sizes 8 B … 8 GiB in powers of two, as nccl-tests sweeps -b 8 -e 8G -f 2."""
    return [float(2**e) for e in range(3, 34)]


def allreduce_curve(
    ranks: int,
    alpha_s: float,
    bandwidth_Bps: float,
    sizes: list[float] | None = None,
) -> list[CurvePoint]:
    """All-reduce time against message size, ring and tree: this module's α–β models."""
    points = []
    for size in default_sizes() if sizes is None else sizes:
        ring = collective("all_reduce", "ring", ranks, size, alpha_s, bandwidth_Bps)
        tree = collective("all_reduce", "tree", ranks, size, alpha_s, bandwidth_Bps)
        points.append(CurvePoint(bytes=float(size), ring_s=ring.time_s, tree_s=tree.time_s))
    return points


def _latency_tex(op: str, algorithm: str) -> str:
    """Latency term as LaTeX: Patarasuk & Yuan 2009 (ring), NCCL 2.4 blog (tree)."""
    if algorithm == "tree":
        return r"2\lceil\log_2 N\rceil\alpha"
    return r"2(N-1)\alpha" if op == "all_reduce" else r"(N-1)\alpha"


def _bandwidth_tex(op: str, algorithm: str) -> str:
    """Bandwidth term as LaTeX: Patarasuk & Yuan 2009 (ring), NCCL 2.4 blog (tree)."""
    if algorithm == "tree":
        return r"\frac{2K}{B}"
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

"""app.labs.collectives on node-aware links: effective bandwidth, trees, Rabenseifner and PAT.

Hand-derived values, the audit's worked numbers (topics-01-02 findings 4, 5 and 20), and the
measurements the model must not exceed. NCCL's constants are from src/graph/tuning.cc at the
tags named in the module docstring (tree × 0.9 and an 80 GB/s cap in v2.7.5-1, PAT from
v2.23.4-1 with one GPU per node).
"""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.content.render import Renderer
from app.labs.collectives import (
    ALGORITHM_OPS,
    OPS,
    allreduce_curve,
    collective,
    crossover_bytes,
    node_link,
    tree_depth,
)
from tests.conftest import REAL_CONTENT

NVLINK, NIC = 450e9, 50e9  # H100 per direction; a 400 Gb/s NIC per GPU


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("ranks", [1, 2, 3, 8, 1000])
def test_defaults_answer_exactly_as_before(op: str, ranks: int) -> None:
    """ranks_per_node = 1 is the old flat model: B is the given rate, to the last bit."""
    for algorithm in ("ring", "tree") if op == "all_reduce" else ("ring",):
        old = collective(op, algorithm, ranks, 3e9, 7e-6, 37e9)
        new = collective(op, algorithm, ranks, 3e9, 7e-6, 37e9, 1, None, 1.0)
        assert old == new
        assert old.effective_bandwidth_Bps == 37e9
    k = 2 * 3e9 * (ranks - 1) / ranks if op == "all_reduce" else None
    if k is not None:
        ring = collective(op, "ring", ranks, 3e9, 7e-6, 37e9)
        assert ring.time_s == pytest.approx(2 * (ranks - 1) * 7e-6 + k / 37e9)


def test_one_node_group_runs_at_the_intra_node_rate() -> None:
    """N ≤ g: every hop is NVLink. 8 ranks, 1 GB, α = 0: T = 1.75 GB / 450 GB/s, busbw = link."""
    result = collective("all_reduce", "ring", 8, 1e9, 0.0, NIC, 8, NVLINK)
    assert result.effective_bandwidth_Bps == NVLINK
    assert result.time_s == pytest.approx(1.75e9 / NVLINK)
    assert result.busbw_Bps == pytest.approx(NVLINK)
    assert "one node" in result.steps[0].label


def test_across_nodes_g_rings_share_the_nics() -> None:
    """1,024 ranks on 128 nodes of 8: 8 rings, one per NIC: B = min(450, 8 × 50) = 400 GB/s."""
    link = node_link(1024, NIC, 8, NVLINK)
    assert (link.bandwidth_Bps, link.ranks_per_node, link.within_node) == (400e9, 8, False)
    result = collective("all_reduce", "ring", 1024, 1e9, 0.0, NIC, 8, NVLINK)
    assert result.effective_bandwidth_Bps == 400e9
    assert result.busbw_Bps == pytest.approx(400e9)
    step = result.steps[0]
    assert step.value == 400e9 and r"\min" in step.formula


def test_pcie_node_caps_the_rate_below_its_nics() -> None:
    """A PCIe box (25 GB/s per GPU inside the node) with 8 NICs: min(25, 400) = 25 GB/s."""
    result = collective("all_reduce", "ring", 64, 1e9, 0.0, NIC, 8, 25e9)
    assert result.effective_bandwidth_Bps == 25e9
    assert result.bandwidth_term_s == pytest.approx(2 * 63 / 64 * 1e9 / 25e9)
    inside = collective("all_gather", "ring", 4, 1e9, 0.0, NIC, 8, 25e9)
    assert inside.effective_bandwidth_Bps == 25e9


def test_audit_fsdp_only_row_is_about_a_second_per_microbatch() -> None:
    """Topics-01-02 finding 5: FSDP over 1,024 GPUs, 8 per node, 70B bf16 weights: two
    all-gathers and a reduce-scatter of 140 GB per microbatch, 419.6 GB / 400 GB/s ≈ 1.05 s."""
    passes = [
        collective(op, "ring", 1024, 140e9, 0.0, NIC, 8, NVLINK)
        for op in ("all_gather", "all_gather", "reduce_scatter")
    ]
    assert sum(p.bytes_sent_per_rank for p in passes) == pytest.approx(419.6e9, rel=1e-3)
    assert sum(p.time_s for p in passes) == pytest.approx(1.049, abs=0.001)
    flat = sum(collective(op, "ring", 1024, 140e9, 0.0, NIC).time_s for op in ("all_gather",) * 3)
    assert flat == pytest.approx(8 * 1.049, rel=1e-3)  # the flat model was 8× too slow


def test_audit_tp8_data_parallel_rows_are_unchanged_by_tp() -> None:
    """Topics-01-02 finding 4: with TP = 8 filling the node each DP group has one GPU per node,
    so 2(d−1)/d × 17.5 GB / 50 GB/s = 0.61 s at d = 8 and 0.69 s at d = 128."""
    assert collective("all_reduce", "ring", 8, 17.5e9, 0.0, NIC).time_s == pytest.approx(0.6125)
    assert collective("all_reduce", "ring", 128, 17.5e9, 0.0, NIC).time_s == pytest.approx(
        0.6945, abs=1e-4
    )


def test_measured_single_node_busbw_sits_under_the_model_ceiling() -> None:
    """ml-engineering network/README.md, 16 GiB all-reduce: H200 ring 367.6 GB/s and A100
    234.9 GB/s, 82% and 78% of the 450 and 300 GB/s the model gives as its ceiling."""
    for link, measured in ((450e9, 367.6e9), (300e9, 234.9e9)):
        model = collective("all_reduce", "ring", 8, 16 * 2**30, 0.0, NIC, 8, link)
        assert model.busbw_Bps == pytest.approx(link)
        assert 0.75 < measured / model.busbw_Bps < 0.85


def test_node_aware_tree_chains_inside_the_node() -> None:
    """tuning.cc (v2.23.4-1): tree latency 2·((nRanks/nNodes − 1)·intra + log2(nNodes)·inter):
    1,024 ranks, 8 per node, one α per step: 2 × (7 + 7) = 28 α; one node: a chain, 2(N−1)α."""
    tree = collective("all_reduce", "tree", 1024, 1e6, 5e-6, NIC, 8, NVLINK)
    assert tree.latency_term_s == pytest.approx(28 * 5e-6)
    assert tree.bandwidth_term_s == pytest.approx(2e6 / 400e9)
    chain = collective("all_reduce", "tree", 8, 1e6, 5e-6, NIC, 8, NVLINK)
    assert chain.latency_term_s == pytest.approx(14 * 5e-6)
    assert crossover_bytes(8, 5e-6, NIC, 8, NVLINK) == 0.0  # a chain never beats the ring


def test_tree_efficiency_derates_only_the_tree() -> None:
    """2K/(ηB): NCCL 2.7's tree runs at 0.9 of the ring's rate (tuning.cc v2.7.5-1)."""
    tree = collective("all_reduce", "tree", 64, 1e9, 0.0, NIC, tree_efficiency=0.9)
    assert tree.bandwidth_term_s == pytest.approx(2e9 / (0.9 * NIC))
    ring = collective("all_reduce", "ring", 64, 1e9, 0.0, NIC, tree_efficiency=0.9)
    assert ring.bandwidth_term_s == pytest.approx(2 * 63 / 64 * 1e9 / NIC)


def test_derated_crossover_is_gigabytes_not_terabytes() -> None:
    """Topics-01-02 finding 20: 1,024 GPUs, 50 GB/s, 5 µs gave 259 GB in the ideal model;
    with η = 0.9, K* = (N−1−d)αB/(1/η − 1 + 1/N) ≈ 2.3 GB, and the two times meet there."""
    assert crossover_bytes(1024, 5e-6, NIC) == pytest.approx(1024 * NIC * 5e-6 * 1013)
    assert crossover_bytes(1024, 5e-6, NIC) / 1e9 == pytest.approx(259, abs=1)
    k = crossover_bytes(1024, 5e-6, NIC, tree_efficiency=0.9)
    assert k == pytest.approx(1013 * 5e-6 * NIC / (1 / 0.9 - 1 + 1 / 1024))
    assert k / 1e9 == pytest.approx(2.26, abs=0.01)
    ring = collective("all_reduce", "ring", 1024, k, 5e-6, NIC)
    tree = collective("all_reduce", "tree", 1024, k, 5e-6, NIC, tree_efficiency=0.9)
    assert ring.time_s == pytest.approx(tree.time_s)


def test_node_aware_crossover_meets_the_curves() -> None:
    """With 8 ranks per node both algorithms use 400 GB/s, the tree chains 7 hops per node."""
    k = crossover_bytes(1024, 5e-6, NIC, 8, NVLINK, 0.9)
    assert k == pytest.approx((1023 - 14) * 5e-6 * 400e9 / (1 / 0.9 - 1 + 1 / 1024))
    ring = collective("all_reduce", "ring", 1024, k, 5e-6, NIC, 8, NVLINK)
    tree = collective("all_reduce", "tree", 1024, k, 5e-6, NIC, 8, NVLINK, 0.9)
    assert ring.time_s == pytest.approx(tree.time_s)


def test_rabenseifner_is_logarithmic_and_bandwidth_optimal() -> None:
    """Thakur, Rabenseifner & Gropp 2005: 2log₂N·α + 2(N−1)/N·K/B; halving alone log₂N·α."""
    ar = collective("all_reduce", "rabenseifner", 1024, 1e9, 5e-6, NIC)
    assert ar.latency_term_s == pytest.approx(20 * 5e-6)
    assert ar.bytes_sent_per_rank == pytest.approx(2 * 1023 / 1024 * 1e9)
    ring = collective("all_reduce", "ring", 1024, 1e9, 5e-6, NIC)
    assert ar.bandwidth_term_s == pytest.approx(ring.bandwidth_term_s)
    rs = collective("reduce_scatter", "rabenseifner", 16, 1e9, 5e-6, NIC)
    assert rs.latency_term_s == pytest.approx(4 * 5e-6)
    assert rs.bytes_sent_per_rank == pytest.approx(15 / 16 * 1e9)
    with pytest.raises(ValueError, match="^ranks: .*power of two"):
        collective("all_reduce", "rabenseifner", 12, 1e9, 5e-6, NIC)


def test_pat_is_nccls_one_gpu_per_node_log_latency_gather() -> None:
    """NCCL's PAT (v2.23.4-1): all-gather and reduce-scatter only, one GPU per node."""
    pat = collective("all_gather", "pat", 1000, 1e9, 5e-6, NIC)
    assert pat.latency_term_s == pytest.approx(10 * 5e-6)
    assert pat.bytes_sent_per_rank == pytest.approx(999 / 1000 * 1e9)
    assert any("PAT" in note for note in pat.notes)
    with pytest.raises(ValueError, match="^ranks_per_node: "):
        collective("all_gather", "pat", 1024, 1e9, 5e-6, NIC, 8, NVLINK)
    with pytest.raises(ValueError, match="^algorithm: "):
        collective("all_reduce", "pat", 16, 1e9, 5e-6, NIC)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ((8, 1e9, 5e-6, NIC, 8, None), "intra_node_bandwidth_Bps"),
        ((12, 1e9, 5e-6, NIC, 8, NVLINK), "ranks"),
        ((16, 1e9, 5e-6, NIC, 0, NVLINK), "ranks_per_node"),
        ((16, 1e9, 5e-6, NIC, 8, -1.0), "intra_node_bandwidth_Bps"),
        ((16, 1e9, 5e-6, NIC, 8, float("inf")), "intra_node_bandwidth_Bps"),
    ],
)
def test_bad_node_inputs_name_the_field(args: tuple[object, ...], field: str) -> None:
    with pytest.raises(ValueError, match=rf"^{field}: "):
        collective("all_reduce", "ring", *args)  # type: ignore[arg-type]


@pytest.mark.parametrize("eta", [0.0, -0.5, 1.5])
def test_tree_efficiency_is_a_share(eta: float) -> None:
    with pytest.raises(ValueError, match="^tree_efficiency: "):
        collective("all_reduce", "tree", 16, 1e9, 5e-6, NIC, tree_efficiency=eta)
    with pytest.raises(ValueError, match="^tree_efficiency: "):
        crossover_bytes(16, 5e-6, NIC, tree_efficiency=eta)


@settings(max_examples=200, deadline=None)
@given(
    nodes=st.sampled_from([1, 2, 3, 16, 128]),
    per_node=st.sampled_from([1, 2, 4, 8]),
    size=st.floats(1e3, 1e11),
    alpha=st.sampled_from([0.0, 1e-6, 1e-5]),
    intra=st.sampled_from([25e9, 450e9]),
    algorithm_op=st.sampled_from(
        [(a, op) for a, ops in ALGORITHM_OPS.items() for op in ops if a != "tree"]
    ),
)
def test_busbw_never_exceeds_the_effective_link(
    nodes: int,
    per_node: int,
    size: float,
    alpha: float,
    intra: float,
    algorithm_op: tuple[str, str],
) -> None:
    """Point-to-point algorithms cannot beat the rate each rank's traffic moves at."""
    algorithm, op = algorithm_op
    ranks = nodes * per_node
    if algorithm == "rabenseifner" and ranks & (ranks - 1):
        return
    if algorithm == "pat" and per_node > 1:
        return
    result = collective(op, algorithm, ranks, size, alpha, NIC, per_node, intra)
    assert result.busbw_Bps <= result.effective_bandwidth_Bps * (1 + 1e-9)
    assert result.effective_bandwidth_Bps <= max(intra, NIC) * (1 + 1e-12)


def _card_drill(slug_file: str, card_id: str) -> object:
    from app.content.loader import load_topic

    topic = load_topic(REAL_CONTENT / "topics" / slug_file, Renderer())
    card = next(c for c in topic.cards if c.id == card_id)
    return card.card.drill  # type: ignore[attr-defined]


def test_the_crossover_drill_draws_only_megabytes_to_gigabytes() -> None:
    """Every draw of ring-tree-crossover lands between 1 MB and 10 GB (no terabyte answers)."""
    drill = _card_drill("02-ring-allreduce.md", "ring-tree-crossover")
    vary = drill.vary  # type: ignore[attr-defined]
    grid = itertools.product(
        *(vary[name].choices for name in ("ranks", "alpha_s", "bandwidth_Bps"))
    )
    answers = [
        crossover_bytes(int(n), float(a), float(b), **drill.inputs)  # type: ignore[attr-defined]
        for n, a, b in grid
    ]
    assert min(answers) > 1e6 and max(answers) < 1e10


def test_the_busbw_drills_stay_below_the_link() -> None:
    """ring-busbw-conversion: busbw = algbw × 2(N−1)/N stays under a node's 8 × 50 GB/s."""
    drill = _card_drill("02-ring-allreduce.md", "ring-busbw-conversion")
    vary = drill.vary  # type: ignore[attr-defined]
    top = max(vary["ranks"].choices)
    assert vary["algbw_Bps"].max * 2 * (top - 1) / top < 400e9


def test_tree_depth_helper() -> None:
    assert [tree_depth(n) for n in (1, 2, 3, 4, 5, 1024, 1025)] == [0, 1, 2, 2, 3, 10, 11]


def test_the_layout_bubble_drill_draws_pipelines() -> None:
    """map-layout-bubble-drill asks for the bubble of the lab's choice: every accepted draw
    picks a pipeline (PP > 1), so no draw answers a trivial 0%."""
    from app.labs.layout import layout

    drill = _card_drill("05-parallelism-mapping.md", "map-layout-bubble-drill")
    vary = drill.vary  # type: ignore[attr-defined]
    accepted = 0
    for gpus, tokens in itertools.product(
        vary["gpus"].choices, vary["global_batch_tokens"].choices
    ):
        try:
            result = layout(gpus=int(gpus), global_batch_tokens=int(tokens), **drill.inputs)  # type: ignore[attr-defined]
        except ValueError:
            continue  # the drill draws again
        accepted += 1
        assert result.pp > 1 and 0 < result.bubble_fraction < 1
    assert accepted >= 3


def test_halving_across_nodes_cannot_borrow_the_nodes_other_nics() -> None:
    """With 8 ranks per node the halving steps inside the node go first on NVLink,
    (1 − 1/8)·K, and the rest, (1/8 − 1/N)·K, on each rank's own NIC, pass by pass: at 1,024
    ranks that is slower than the ring's 8 NICs at once (one reason NCCL builds rings)."""
    k = 1e9
    halving = collective("all_reduce", "rabenseifner", 1024, k, 0.0, NIC, 8, NVLINK)
    expected = 2 * ((1 - 1 / 8) * k / NVLINK + (1 / 8 - 1 / 1024) * k / NIC)
    assert halving.bandwidth_term_s == pytest.approx(expected)
    assert halving.effective_bandwidth_Bps == pytest.approx(2 * 1023 / 1024 * k / expected)
    ring = collective("all_reduce", "ring", 1024, k, 0.0, NIC, 8, NVLINK)
    assert ring.bandwidth_term_s < halving.bandwidth_term_s
    inside = collective("reduce_scatter", "rabenseifner", 8, k, 0.0, NIC, 8, NVLINK)
    assert inside.bandwidth_term_s == pytest.approx(7 / 8 * k / NVLINK)
    flat = collective("all_reduce", "rabenseifner", 1024, k, 0.0, NIC)
    assert flat.bandwidth_term_s == pytest.approx(2 * 1023 / 1024 * k / NIC)


# Two hop latencies. NCCL 2.7's ring/LL figures, as the topic quotes them: an NVLink step
# 0.47 µs × 1.8 once the ring spans nodes, a network step 2.7 µs (tuning.cc, 2.7-era revision).
NVLINK_HOP, NET_HOP = 0.47e-6 * 1.8, 2.7e-6


def test_node_aware_ring_latency_is_the_topics_2_2_ms() -> None:
    """Topic 02, "The α–β model and the latency catch": 1,024 GPUs in 128 nodes, only
    2(nodes − 1) = 254 steps cross the network and the other 1,792 are NVLink steps:
    3.6 + 1,792 × 0.85 + 254 × 2.7 ≈ 2,200 µs (the 3.6 µs is NCCL's base, left out here).
    One α for every hop gave 10.2 ms."""
    ring = collective(
        "all_reduce", "ring", 1024, 1e9, NET_HOP, NIC, 8, NVLINK, intra_node_alpha_s=NVLINK_HOP
    )
    assert (ring.intra_node_hops, ring.network_hops) == (1792, 254)
    assert ring.latency_term_s == pytest.approx(1792 * NVLINK_HOP + 254 * NET_HOP)
    assert 3.6e-6 + ring.latency_term_s == pytest.approx(2.2e-3, abs=0.02e-3)
    step = ring.steps[1]  # the derivation shows both terms, with the numbers in
    assert r"\alpha_{\text{intra}}" in step.formula and r"\alpha_{\text{net}}" in step.formula
    assert step.substituted.startswith(r"1792 \times 8.46\times10^{-7} + 254 \times ")
    one_alpha = collective("all_reduce", "ring", 1024, 1e9, 5e-6, NIC, 8, NVLINK)
    assert one_alpha.latency_term_s == pytest.approx(10.23e-3)


@pytest.mark.parametrize(("ranks", "latency"), [(8, 0.07e-3), (64, 0.63e-3), (24_576, 246e-3)])
def test_flat_ring_latency_is_the_topics_table(ranks: int, latency: float) -> None:
    """Topic 02's flat table, every hop on the network at 5 µs: 2(N−1)α."""
    ring = collective("all_reduce", "ring", ranks, 1e9, 5e-6, NIC)
    assert (ring.intra_node_hops, ring.network_hops) == (0, 2 * (ranks - 1))
    assert ring.latency_term_s == pytest.approx(latency, rel=0.01)


def test_node_aware_tree_latency_is_the_topics_87_5_us() -> None:
    """Topic 02, "Trees": NCCL's model for 1,024 GPUs in 128 nodes (LL) gives the tree 87.5 µs,
    7 NVLink hops and 7 tree levels each way. With NCCL's tree/LL hops (0.52 × 1.8 µs and 5 µs)
    and its 4.4 µs base, the lab's counts give the same."""
    tree = collective(
        "all_reduce", "tree", 1024, 1e6, 5e-6, NIC, 8, NVLINK, intra_node_alpha_s=0.52e-6 * 1.8
    )
    assert (tree.intra_node_hops, tree.network_hops) == (14, 14)
    assert 4.4e-6 + tree.latency_term_s == pytest.approx(87.5e-6, abs=0.1e-6)


def test_node_aware_crossover_agrees_with_the_topics_latency_terms() -> None:
    """The topic gives the node-aware latency terms (2.2 ms ring, 87.5 µs tree, above) and the
    crossover K* = (T_ring − T_tree)·B / (2(1/η − 1 + 1/N)) (card ring-tree-crossover, where
    T_ring − T_tree = 2(N−1−⌈log₂N⌉)α). From the topic's own terms, at 8 × 50 GB/s and
    η = 0.9: 3.79 GB. The lab, whose tree hop costs a ring hop's and which leaves out NCCL's
    base latencies, gives 3.85 GB; one 5 µs α for every hop gave 18 GB."""
    gap = 1 / 0.9 - 1 + 1 / 1024
    topic = ((3.6 + 1792 * 0.85 + 254 * 2.7) - 87.5) * 1e-6 / 2 * 400e9 / gap
    k = crossover_bytes(1024, NET_HOP, NIC, 8, NVLINK, 0.9, NVLINK_HOP)
    assert k == pytest.approx(topic, rel=0.02)
    assert k / 1e9 == pytest.approx(3.85, abs=0.01)
    args = (1024, k, NET_HOP, NIC, 8, NVLINK, 0.9, NVLINK_HOP)
    ring, tree = (collective("all_reduce", a, *args) for a in ("ring", "tree"))
    assert ring.time_s == pytest.approx(tree.time_s)
    points = allreduce_curve(1024, NET_HOP, NIC, [k / 2, k * 2], 8, NVLINK, 0.9, NVLINK_HOP)
    assert points[0].tree_s < points[0].ring_s and points[1].ring_s < points[1].tree_s
    assert crossover_bytes(1024, 5e-6, NIC, 8, NVLINK, 0.9) / 1e9 == pytest.approx(18.0, abs=0.05)


@pytest.mark.parametrize(
    ("op", "algorithm", "ranks", "per_node", "hops"),
    [
        ("reduce_scatter", "ring", 1024, 8, (896, 127)),  # one pass: N − N/g, N/g − 1
        ("broadcast", "ring", 1024, 8, (896, 127)),
        ("all_to_all", "ring", 1024, 8, (7, 1016)),  # one step to each other rank
        ("all_reduce", "rabenseifner", 1024, 8, (6, 14)),  # log₂8 in the node, log₂128 across
        ("all_reduce", "ring", 8, 8, (14, 0)),  # one node: every hop is NVLink
        ("all_reduce", "tree", 8, 8, (14, 0)),  # a chain
        ("all_gather", "pat", 16, 1, (0, 4)),
    ],
)
def test_hops_of_each_kind(
    op: str, algorithm: str, ranks: int, per_node: int, hops: tuple[int, int]
) -> None:
    result = collective(op, algorithm, ranks, 1e9, NET_HOP, NIC, per_node, NVLINK, 1.0, 0.0)
    assert (result.intra_node_hops, result.network_hops) == hops
    assert result.latency_term_s == pytest.approx(hops[1] * NET_HOP)  # NVLink hops free here


def _one_alpha_steps(op: str, algorithm: str, n: int, g: int) -> int:
    """The step count of the one-α model (before the two latencies): ring 2(N−1) or N−1, tree
    2((g−1) + ⌈log₂(N/g)⌉), halving/doubling and PAT ⌈log₂N⌉ per pass."""
    if n == 1:
        return 0
    passes = 2 if op == "all_reduce" else 1
    if algorithm == "tree":
        g = min(g, n)
        return 2 * ((g - 1) + tree_depth(n // g))
    if algorithm in ("rabenseifner", "pat"):
        return passes * tree_depth(n)
    return passes * (n - 1)


@settings(max_examples=200, deadline=None)
@given(
    nodes=st.sampled_from([1, 2, 4, 16, 128]),
    per_node=st.sampled_from([1, 2, 4, 8]),
    alpha=st.sampled_from([0.0, 1e-6, 7e-6]),
    algorithm_op=st.sampled_from([(a, op) for a, ops in ALGORITHM_OPS.items() for op in ops]),
)
def test_one_alpha_for_every_hop_is_the_old_model(
    nodes: int, per_node: int, alpha: float, algorithm_op: tuple[str, str]
) -> None:
    """alpha_s alone means what it meant: every hop costs it, the same as giving it for the
    intra-node hop too, and the two kinds of hop add up to the one-α step count."""
    algorithm, op = algorithm_op
    ranks = nodes * per_node
    if algorithm == "pat" and per_node > 1:
        return
    args = (op, algorithm, ranks, 1e9, alpha, NIC, per_node, NVLINK)
    one = collective(*args)
    assert one == collective(*args, intra_node_alpha_s=alpha)
    steps = _one_alpha_steps(op, algorithm, ranks, per_node)
    assert one.intra_node_hops + one.network_hops == steps
    assert one.latency_term_s == pytest.approx(steps * alpha)
    if op == "all_reduce" and algorithm == "ring":
        assert crossover_bytes(ranks, alpha, NIC, per_node, NVLINK, 0.9) == crossover_bytes(
            ranks, alpha, NIC, per_node, NVLINK, 0.9, alpha
        )


def test_intra_node_alpha_is_checked() -> None:
    with pytest.raises(ValueError, match="^intra_node_alpha_s: "):
        collective("all_reduce", "ring", 16, 1e9, 5e-6, NIC, 8, NVLINK, intra_node_alpha_s=-1.0)
    with pytest.raises(ValueError, match="^intra_node_alpha_s: "):
        crossover_bytes(16, 5e-6, NIC, 8, NVLINK, intra_node_alpha_s=float("nan"))

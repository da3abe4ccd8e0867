"""app.labs.collectives against nccl-tests doc/PERFORMANCE.md and hand-computed α–β cases."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.labs.collectives import (
    OPS,
    algbw_from_time,
    allreduce_curve,
    busbw_factor,
    busbw_from_algbw,
    collective,
    crossover_bytes,
    default_sizes,
    tree_depth,
)


@pytest.mark.parametrize(
    ("op", "ranks", "factor"),
    [
        ("all_reduce", 8, 2 * 7 / 8),
        ("all_reduce", 2, 1.0),
        ("reduce_scatter", 8, 7 / 8),
        ("all_gather", 16, 15 / 16),
        ("all_to_all", 4, 3 / 4),
        ("broadcast", 64, 1.0),
        ("all_reduce", 1, 0.0),
    ],
)
def test_busbw_factors(op: str, ranks: int, factor: float) -> None:
    """nccl-tests doc/PERFORMANCE.md "Summary": 2(n−1)/n, (n−1)/n, (n−1)/n, 1, (n−1)/n."""
    assert busbw_factor(op, ranks) == pytest.approx(factor)


def test_busbw_conversion() -> None:
    """nccl-tests PERFORMANCE.md: busbw = algbw × 2(n−1)/n; algbw = S/t."""
    algbw = algbw_from_time(1e9, 0.01)
    assert algbw == 1e11
    assert busbw_from_algbw("all_reduce", 8, algbw) == pytest.approx(1.75e11)


def test_ring_all_reduce_hand_computed() -> None:
    """Ring all-reduce, N = 8, K = 1 GB, α = 5 µs, B = 100 GB/s: 2(N−1)α + 2(N−1)/N·K/B."""
    result = collective("all_reduce", "ring", 8, 1e9, 5e-6, 100e9)
    assert result.latency_term_s == pytest.approx(14 * 5e-6)
    assert result.bandwidth_term_s == pytest.approx(1.75e9 / 100e9)
    assert result.time_s == pytest.approx(0.01757)
    assert result.bytes_sent_per_rank == pytest.approx(1.75e9)
    assert result.busbw_factor == pytest.approx(1.75)


def test_busbw_reaches_link_bandwidth_without_latency() -> None:
    """nccl-tests: busbw is comparable to the hardware bandwidth; with α = 0 it equals B."""
    for op in OPS:
        result = collective(op, "ring", 16, 1e9, 0.0, 50e9)
        assert result.busbw_Bps == pytest.approx(50e9), op


@pytest.mark.parametrize(
    ("op", "latency_steps", "volume"),
    [
        ("reduce_scatter", 3, 0.75e9),
        ("all_gather", 3, 0.75e9),
        ("all_to_all", 3, 0.75e9),
        ("broadcast", 3, 1e9),
    ],
)
def test_other_ring_collectives(op: str, latency_steps: int, volume: float) -> None:
    """Ring models, N = 4, K = 1 GB (the full buffer, nccl-tests convention), α = 1 µs."""
    result = collective(op, "ring", 4, 1e9, 1e-6, 10e9)
    assert result.latency_term_s == pytest.approx(latency_steps * 1e-6)
    assert result.bytes_sent_per_rank == pytest.approx(volume)
    assert result.bandwidth_term_s == pytest.approx(volume / 10e9)


def test_tree_all_reduce_hand_computed() -> None:
    """NCCL 2.4 double binary tree, pipelined: 2⌈log₂N⌉α + 2K/B; N = 1000 → depth 10."""
    result = collective("all_reduce", "tree", 1000, 1e6, 2e-6, 25e9)
    assert tree_depth(1000) == 10
    assert result.latency_term_s == pytest.approx(20 * 2e-6)
    assert result.bandwidth_term_s == pytest.approx(2e6 / 25e9)


def test_tree_latency_is_logarithmic() -> None:
    """NCCL 2.4 blog: trees give logarithmic latency; at 24,576 ranks ring α-term ≫ tree's."""
    ring = collective("all_reduce", "ring", 24576, 8.0, 5e-6, 25e9)
    tree = collective("all_reduce", "tree", 24576, 8.0, 5e-6, 25e9)
    assert ring.latency_term_s / tree.latency_term_s == pytest.approx(2 * 24575 / (2 * 15))
    assert tree.time_s < ring.time_s


def test_crossover_is_where_times_meet() -> None:
    """Ring = tree at K* = N·B·α·(N−1−⌈log₂N⌉): 64 ranks, 5 µs, 50 GB/s → 912 MB."""
    k = crossover_bytes(64, 5e-6, 50e9)
    assert k == pytest.approx(64 * 50e9 * 5e-6 * (63 - 6))
    ring = collective("all_reduce", "ring", 64, k, 5e-6, 50e9)
    tree = collective("all_reduce", "tree", 64, k, 5e-6, 50e9)
    assert ring.time_s == pytest.approx(tree.time_s)
    assert crossover_bytes(3, 5e-6, 50e9) == 0.0  # N − 1 ≤ ⌈log₂N⌉: tree never wins


def test_curve_crosses_at_crossover() -> None:
    """Time-vs-size curve for the lab plot: tree below K*, ring above (this module's models)."""
    k = crossover_bytes(32, 10e-6, 25e9)
    for point in allreduce_curve(32, 10e-6, 25e9):
        if point.bytes < k:
            assert point.tree_s < point.ring_s
        elif point.bytes > k:
            assert point.ring_s < point.tree_s
    assert [p.bytes for p in allreduce_curve(4, 1e-6, 1e9)] == default_sizes()
    assert default_sizes()[0] == 8 and default_sizes()[-1] == 8 * 2**30


def test_single_rank_costs_nothing() -> None:
    """One rank has no peers: every term is zero (α–β model)."""
    result = collective("all_reduce", "ring", 1, 1e9, 1e-5, 1e9)
    assert (result.time_s, result.bytes_sent_per_rank, result.algbw_Bps) == (0.0, 0.0, 0.0)


@settings(max_examples=100, deadline=None)
@given(ranks=st.integers(1, 100_000), size=st.floats(1.0, 1e12))
def test_ring_all_reduce_sends_under_2k(ranks: int, size: float) -> None:
    """Ring all-reduce: each rank sends 2(N−1)K/N ≤ 2K (nccl-tests lower bound, facts §2)."""
    sent = collective("all_reduce", "ring", ranks, size, 1e-6, 1e10).bytes_sent_per_rank
    assert sent <= 2 * size
    assert sent == pytest.approx(2 * (ranks - 1) / ranks * size)


def test_ring_all_reduce_tends_to_2k() -> None:
    """Ring all-reduce bytes per rank → 2K as N grows (2(N−1)/N → 2)."""
    sends = [collective("all_reduce", "ring", n, 1.0, 0, 1).bytes_sent_per_rank for n in (2, 8)]
    sends.append(collective("all_reduce", "ring", 10**6, 1.0, 0, 1).bytes_sent_per_rank)
    assert sends == sorted(sends)
    assert math.isclose(sends[-1], 2.0, rel_tol=1e-5)


@settings(max_examples=100, deadline=None)
@given(
    op=st.sampled_from(OPS),
    ranks=st.integers(2, 10_000),
    small=st.floats(0.0, 1e11),
    extra=st.floats(1.0, 1e11),
    alpha=st.floats(0.0, 1e-3),
    bw=st.floats(1e6, 1e12),
)
def test_time_increases_with_bytes(
    op: str, ranks: int, small: float, extra: float, alpha: float, bw: float
) -> None:
    """α–β: time is strictly increasing in K for N ≥ 2 (the β term is positive)."""
    a = collective(op, "ring", ranks, small, alpha, bw).time_s
    b = collective(op, "ring", ranks, small + extra, alpha, bw).time_s
    assert b > a


@settings(max_examples=100, deadline=None)
@given(op=st.sampled_from(OPS), ranks=st.integers(2, 1_000_000))
def test_busbw_factor_in_open_interval(op: str, ranks: int) -> None:
    """nccl-tests factors lie in (0, 2) for N ≥ 2."""
    assert 0 < busbw_factor(op, ranks) < 2


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (("all_sum", "ring", 8, 1.0, 0.0, 1.0), "op"),
        (("all_reduce", "butterfly", 8, 1.0, 0.0, 1.0), "algorithm"),
        (("all_gather", "tree", 8, 1.0, 0.0, 1.0), "algorithm"),
        (("all_reduce", "ring", 0, 1.0, 0.0, 1.0), "ranks"),
        (("all_reduce", "ring", 2.5, 1.0, 0.0, 1.0), "ranks"),
        (("all_reduce", "ring", 8, -1.0, 0.0, 1.0), "bytes"),
        (("all_reduce", "ring", 8, "big", 0.0, 1.0), "bytes"),
        (("all_reduce", "ring", 8, 1.0, -1e-6, 1.0), "alpha_s"),
        (("all_reduce", "ring", 8, 1.0, 0.0, 0.0), "bandwidth_Bps"),
        (("all_reduce", "ring", 8, 1.0, 0.0, float("inf")), "bandwidth_Bps"),
    ],
)
def test_invalid_inputs_name_the_field(args: tuple[object, ...], field: str) -> None:
    """Errors start with the field name, for the web layer's 422 (no source: API contract)."""
    with pytest.raises(ValueError, match=rf"^{field}: "):
        collective(*args)  # type: ignore[arg-type]


def test_helpers_validate_too() -> None:
    """The plot helpers name their fields as well (no source: API contract)."""
    with pytest.raises(ValueError, match="^ranks: "):
        crossover_bytes(0, 1e-6, 1e9)
    with pytest.raises(ValueError, match="^bandwidth_Bps: "):
        allreduce_curve(8, 1e-6, -1.0)
    with pytest.raises(ValueError, match="^time_s: "):
        algbw_from_time(1.0, 0.0)
    with pytest.raises(ValueError, match="^op: "):
        busbw_factor("gather", 4)

"""app.labs.moe against Switch Transformer (Fedus et al. 2021, arXiv 2101.03961)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.labs.moe import drop_curve, expert_capacity, moe, simulate_loads


def test_capacity_formula() -> None:
    """Switch §2.2: capacity = tokens/experts × CF; top-k: k·T/E × CF, rounded up."""
    assert expert_capacity(1024, 8, 1.0) == 128
    assert expert_capacity(1024, 8, 1.25) == 160
    assert expert_capacity(1024, 8, 1.25, top_k=2) == 320
    assert expert_capacity(1000, 3, 1.0) == 334  # ⌈333.3⌉


def test_capacity_is_exact_for_decimal_factors() -> None:
    """⌈1 × 100 × 1.1 / 10⌉ is 11; float arithmetic gives 11.000000000000002, ceiling 12."""
    assert 1 * 100 * 1.1 / 10 > 11
    assert expert_capacity(100, 10, 1.1) == 11


def test_uniform_routing_aux_loss_is_alpha() -> None:
    """Switch eq. 4: with fᵢ = Pᵢ = 1/N the loss α·N·Σ fᵢPᵢ equals α = 0.01."""
    result = moe(1024, 8, 1.0, expert_loads=[128] * 8, router_probs=[1 / 8] * 8)
    assert result.aux_loss == pytest.approx(0.01)
    assert (result.dropped_tokens, result.drop_fraction) == (0, 0.0)


def test_collapse_aux_loss_is_alpha_n() -> None:
    """Switch eq. 4: every token on one expert with P = 1 gives α·N."""
    loads = [1024] + [0] * 7
    result = moe(1024, 8, 1.0, expert_loads=loads, router_probs=[1.0] + [0.0] * 7)
    assert result.aux_loss == pytest.approx(0.01 * 8)
    assert result.dropped_tokens == 1024 - 128
    assert result.drop_fraction == pytest.approx(896 / 1024)


def test_drops_hand_computed() -> None:
    """Switch §2.2: overflow beyond capacity is dropped (rides the residual). C = 25 here."""
    result = moe(100, 4, 1.0, expert_loads=[40, 30, 20, 10])
    assert result.expert_capacity == 25
    assert result.dropped_tokens == 15 + 5
    assert result.drop_fraction == pytest.approx(0.2)
    assert result.aux_loss is None  # no router_probs


def test_top2_drop_fraction_counts_assignments() -> None:
    """Top-k: drop_fraction is over k·T token-expert assignments (GShard-style top-2)."""
    result = moe(100, 4, 1.0, top_k=2, expert_loads=[80, 60, 40, 20])
    assert result.expert_capacity == 50
    assert result.drop_fraction == pytest.approx((30 + 10) / 200)


def test_outputs_absent_without_loads() -> None:
    """Only capacity is defined without loads; the API returns null for the rest."""
    result = moe(100, 4, 1.0, router_probs=[0.25] * 4)
    assert (result.dropped_tokens, result.drop_fraction, result.aux_loss) == (None, None, None)


def test_simulator_is_deterministic_and_balanced_at_zero_skew() -> None:
    """Seeded toy router: same seed, same loads; skew 0 is uniform within sampling noise."""
    a = simulate_loads(8000, 8, seed=7)
    assert a == simulate_loads(8000, 8, seed=7)
    assert sum(a) == 8000
    assert max(a) < 1.15 * 1000 and min(a) > 0.85 * 1000


def test_skew_increases_drops() -> None:
    """More skewed routing drops more at a fixed capacity factor (Switch §2.2 trade-off)."""
    flat = drop_curve(simulate_loads(4096, 16, skew=0.0), 4096, [1.0])[0]
    steep = drop_curve(simulate_loads(4096, 16, skew=1.5), 4096, [1.0])[0]
    assert steep.drop_fraction > flat.drop_fraction


@settings(max_examples=50, deadline=None)
@given(
    tokens=st.integers(1, 2000),
    experts=st.integers(1, 32),
    top_k=st.integers(1, 4),
    skew=st.floats(0.0, 3.0),
    seed=st.integers(0, 2**16),
)
def test_simulated_loads_are_valid(
    tokens: int, experts: int, top_k: int, skew: float, seed: int
) -> None:
    """Every token picks k distinct experts: loads sum to k·T and none exceeds T."""
    top_k = min(top_k, experts)
    loads = simulate_loads(tokens, experts, top_k, skew, seed)
    assert len(loads) == experts and sum(loads) == top_k * tokens
    assert max(loads) <= tokens


@settings(max_examples=50, deadline=None)
@given(loads=st.lists(st.integers(0, 500), min_size=1, max_size=16), k=st.integers(1, 2))
def test_drops_fall_as_capacity_grows(loads: list[int], k: int) -> None:
    """Switch §2.2: raising the capacity factor never drops more; CF = E·max/(k·T) drops none."""
    total = sum(loads)
    if total == 0 or total % k or max(loads) > total // k:
        return
    tokens, experts = total // k, len(loads)
    factors = [0.25, 0.5, 1.0, 1.25, 2.0, experts * max(loads) / (k * tokens) + 1e-9]
    curve = drop_curve(loads, tokens, factors, top_k=k)
    fractions = [p.drop_fraction for p in curve]
    assert fractions == sorted(fractions, reverse=True)
    assert fractions[-1] == 0.0


@settings(max_examples=50, deadline=None)
@given(loads=st.lists(st.integers(0, 100), min_size=2, max_size=16))
def test_aux_loss_at_least_alpha_when_probs_follow_loads(loads: list[int]) -> None:
    """Σ fᵢ² ≥ 1/N (Cauchy–Schwarz), so with P = f the Switch loss is ≥ α, = α iff uniform."""
    total = sum(loads)
    if total == 0:
        return
    probs = [load / total for load in loads]
    result = moe(total, len(loads), 1.0, expert_loads=loads, router_probs=probs)
    assert result.aux_loss is not None
    assert result.aux_loss >= 0.01 - 1e-12


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"tokens": 0, "experts": 8, "capacity_factor": 1.0}, "tokens"),
        ({"tokens": 8, "experts": 0, "capacity_factor": 1.0}, "experts"),
        ({"tokens": 8, "experts": 8, "capacity_factor": 0.0}, "capacity_factor"),
        ({"tokens": 8, "experts": 8, "capacity_factor": 1.0, "top_k": 0}, "top_k"),
        ({"tokens": 8, "experts": 2, "capacity_factor": 1.0, "top_k": 3}, "top_k"),
        ({"tokens": 8, "experts": 2, "capacity_factor": 1.0, "aux_alpha": -1}, "aux_alpha"),
        ({"tokens": 8, "experts": 2, "capacity_factor": 1.0, "expert_loads": [8]}, "expert_loads"),
        (
            {"tokens": 8, "experts": 2, "capacity_factor": 1.0, "expert_loads": [4, 3]},
            "expert_loads",
        ),
        (
            {"tokens": 8, "experts": 2, "capacity_factor": 1.0, "expert_loads": [9, -1]},
            "expert_loads",
        ),
        (
            {"tokens": 8, "experts": 2, "capacity_factor": 1.0, "router_probs": [0.5]},
            "router_probs",
        ),
        (
            {"tokens": 8, "experts": 2, "capacity_factor": 1.0, "router_probs": [0.9, 0.3]},
            "router_probs",
        ),
        (
            {"tokens": 8, "experts": 2, "capacity_factor": 1.0, "router_probs": [1.5, -0.5]},
            "router_probs",
        ),
    ],
)
def test_invalid_inputs_name_the_field(kwargs: dict[str, object], field: str) -> None:
    """Errors start with the field name, for the web layer's 422 (no source: API contract)."""
    with pytest.raises(ValueError, match=rf"^{field}: "):
        moe(**kwargs)  # type: ignore[arg-type]


def test_simulator_validates() -> None:
    """The simulator's inputs name their fields (no source: API contract)."""
    with pytest.raises(ValueError, match="^skew: "):
        simulate_loads(10, 4, skew=-1.0)
    with pytest.raises(ValueError, match="^seed: "):
        simulate_loads(10, 4, seed=-1)
    with pytest.raises(ValueError, match="^tokens: "):
        simulate_loads(10**6, 64, top_k=2)
    with pytest.raises(ValueError, match="^expert_loads: "):
        drop_curve([], 10, [1.0])

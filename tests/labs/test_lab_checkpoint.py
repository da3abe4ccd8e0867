"""app.labs.checkpoint against Young 1974, Daly 2006 (FGCS 22(3)) and Llama 3 (2407.21783)."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.labs.checkpoint import (
    checkpoint,
    cluster_mtbf_s,
    daly_interval_s,
    optimal_interval_s,
    waste_curve,
    waste_fraction,
    young_interval_s,
)

MIN, HOUR = 60.0, 3600.0


@pytest.mark.parametrize(
    ("mtbf_s", "expected_min", "tolerance_min"),
    [(24 * HOUR, 117.0, 0.5), (6 * HOUR, 57.0, 0.5), (15 * MIN, 9.1, 0.05)],
)
def test_daly_published_cases(mtbf_s: float, expected_min: float, tolerance_min: float) -> None:
    """Daly 2006 Figs. 3–5: δ = 5 min, R = 10 min; M = 24 h → 117 min, 6 h → 57, 15 min → 9.1."""
    result = checkpoint(5 * MIN, mtbf_s, restart_cost_s=10 * MIN)
    assert result.daly_interval_s / MIN == pytest.approx(expected_min, abs=tolerance_min)


def test_young_is_sqrt_2_delta_m() -> None:
    """Young 1974: τ = √(2δM); δ = 5 min, M = 24 h → √(2·300·86400) = 7200 s exactly."""
    assert young_interval_s(300, 86400) == pytest.approx(7200.0)


def test_daly_beyond_two_mtbf_is_mtbf() -> None:
    """Daly 2006: for δ ≥ 2M the optimum is τ = M."""
    assert daly_interval_s(1000, 500) == 500
    assert daly_interval_s(1000, 400) == 400


def test_daly_approximates_the_exact_optimum() -> None:
    """Daly 2006's perturbation series tracks the exact minimiser of its own T_wall."""
    for m in (24 * HOUR, 6 * HOUR, 15 * MIN):
        assert daly_interval_s(300, m) == pytest.approx(optimal_interval_s(300, m), rel=0.01)


def test_waste_matches_daly_wall_time_model() -> None:
    """T_wall = M·e^{R/M}(e^{(τ+δ)/M} − 1)·T_s/τ (Daly 2006), checked by hand for one case."""
    tau, delta, m, r = 3600.0, 300.0, 21600.0, 600.0
    wall_per_work = m * math.exp(r / m) * (math.exp((tau + delta) / m) - 1) / tau
    assert waste_fraction(tau, delta, m, r) == pytest.approx(1 - 1 / wall_per_work)


def test_llama3_mtbf() -> None:
    """Llama 3 §3.3.4: 419 unexpected interruptions in 54 days on 16,384 GPUs → M ≈ 3.1 h."""
    m = cluster_mtbf_s(419, 54, 16384)
    assert m / HOUR == pytest.approx(54 * 24 / 419)
    assert m / HOUR == pytest.approx(3.09, abs=0.01)
    assert cluster_mtbf_s(419, 54, 16384, scale_to_gpus=32768) == pytest.approx(m / 2)


def test_llama3_checkpoint_interval() -> None:
    """Llama 3 MTBF with a 1-minute checkpoint: Young √(2·60·11135) ≈ 19.3 min; Daly shorter."""
    result = checkpoint(60, cluster_mtbf_s(419, 54, 16384))
    assert result.young_interval_s / MIN == pytest.approx(19.27, abs=0.01)
    assert result.daly_interval_s < result.young_interval_s


@settings(max_examples=100, deadline=None)
@given(delta=st.floats(1.0, 1e5), ratio=st.floats(0.01, 1e6))
def test_daly_never_exceeds_young(delta: float, ratio: float) -> None:
    """Daly − Young = 2Mx(√x/9 − 2/3) < 0 with x = δ/2M < 1; and M < √(2δM) past δ = 2M."""
    m = delta * ratio
    assert daly_interval_s(delta, m) <= young_interval_s(delta, m)


@settings(max_examples=60, deadline=None)
@given(delta=st.floats(1.0, 3600.0), ratio=st.floats(5.0, 1e4), restart=st.floats(0.0, 1.0))
def test_curve_minimum_is_near_daly(delta: float, ratio: float, restart: float) -> None:
    """Waste against interval bottoms out next to Daly's τ (Daly 2006's own model), R ≤ M."""
    m, r = delta * ratio, restart * delta * ratio
    curve = waste_curve(delta, m, r)
    best = min(curve, key=lambda p: p.waste_fraction)
    daly = daly_interval_s(delta, m)
    assert daly / 1.1 <= best.interval_s <= daly * 1.1
    assert all(0 < p.waste_fraction < 1 for p in curve)
    optimum = waste_fraction(optimal_interval_s(delta, m), delta, m, r)
    assert optimum - 1e-12 <= waste_fraction(daly, delta, m, r) <= optimum + 0.01


def test_result_fields() -> None:
    """The API fields and the 61-point curve centred on Daly's interval (lab page contract)."""
    result = checkpoint(300, 6 * HOUR)
    assert len(result.curve) == 61
    assert result.curve[30].interval_s == pytest.approx(result.daly_interval_s)
    assert result.waste_fraction == pytest.approx(result.curve[30].waste_fraction)
    assert result.young_waste_fraction >= result.waste_fraction - 1e-6


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: checkpoint(0, 3600), "checkpoint_cost_s"),
        (lambda: checkpoint(60, -1), "mtbf_s"),
        (lambda: checkpoint(60, 3600, restart_cost_s=-5), "restart_cost_s"),
        (lambda: checkpoint("60", 3600), "checkpoint_cost_s"),  # type: ignore[arg-type]
        (lambda: waste_curve(60, 3600, points=1), "points"),
        (lambda: waste_curve(60, 3600, low_s=10, high_s=5), "high_s"),
        (lambda: waste_fraction(0, 60, 3600), "interval_s"),
        (lambda: cluster_mtbf_s(0, 54, 16384), "interruptions"),
        (lambda: cluster_mtbf_s(419, 0, 16384), "days"),
        (lambda: cluster_mtbf_s(419, 54, 0), "gpus"),
        (lambda: cluster_mtbf_s(419, 54, 16384, 0), "scale_to_gpus"),
    ],
)
def test_invalid_inputs_name_the_field(call: object, field: str) -> None:
    """Errors start with the field name, for the web layer's 422 (no source: API contract)."""
    assert callable(call)
    with pytest.raises(ValueError, match=rf"^{field}: "):
        call()

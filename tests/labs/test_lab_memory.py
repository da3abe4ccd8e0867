"""app.labs.memory against ZeRO (1910.02054) and Korthikanti et al. 2022 (2205.05198)."""

import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.labs.memory import activation_bytes_per_layer, memory

GB = 1e9
LLAMA70: dict[str, Any] = {
    "seq_len": 4096,
    "micro_batch": 1,
    "hidden": 8192,
    "heads": 64,
    "layers": 80,
}


@pytest.mark.parametrize(
    ("stage", "expected_gb"),
    [(0, 120.0), (1, 31.406), (2, 16.641), (3, 1.875)],
)
def test_zero_figure_1(stage: int, expected_gb: float) -> None:
    """ZeRO Figure 1: Ψ = 7.5B, N = 64, K = 12 gives 120 → 31.4 → 16.6 → 1.9 GB per GPU."""
    result = memory(7.5e9, dp=64, zero_stage=stage)
    assert result.model_states_bytes / GB == pytest.approx(expected_gb, abs=5e-4)
    assert result.total_bytes == result.model_states_bytes
    assert result.activations_bytes == 0


@pytest.mark.parametrize(
    ("params", "dp", "stage", "expected_gb"),
    [
        (7.5e9, 4, 3, 30.0),
        (7.5e9, 16, 2, 21.5625),  # printed as 21.6
        (128e9, 64, 3, 32.0),
        (1e12, 1024, 3, 15.625),  # printed as 15.6
    ],
)
def test_zero_table_1(params: float, dp: int, stage: int, expected_gb: float) -> None:
    """ZeRO Table 1 (via secondary): 30, 21.6, 32 and 15.6 GB; the formula gives these exactly."""
    assert memory(params, dp=dp, zero_stage=stage).model_states_bytes / GB == pytest.approx(
        expected_gb
    )


def test_sixteen_bytes_per_parameter_split() -> None:
    """ZeRO §3.1: 2 (fp16 weights) + 2 (fp16 grads) + 12 (fp32 master, momentum, variance)."""
    result = memory(1e9)
    assert (result.params_bytes, result.grads_bytes, result.optimizer_bytes) == (2e9, 2e9, 12e9)


def test_tp_and_pp_split_the_model_before_zero() -> None:
    """Facts §4 worked example: 70B, TP = 8 plus ZeRO-1 over d = 8 is 35 + 105/8 = 48.1 GB."""
    assert memory(70e9, tp=8).model_states_bytes / GB == pytest.approx(140.0)
    assert memory(70e9, tp=8, dp=8, zero_stage=1).model_states_bytes / GB == pytest.approx(48.125)
    assert memory(70e9, tp=4, pp=2).total_bytes == memory(70e9, tp=8).total_bytes


def test_korthikanti_70b_no_parallelism() -> None:
    """Korthikanti Table 2 row 1, sbhL(34 + 5as/h), 5as/h = 160: 520.8 GB for the 70B example."""
    result = memory(70e9, **LLAMA70)
    sbh = 4096 * 8192
    assert result.activations_per_layer_bytes == sbh * (34 + 160)
    assert result.activations_bytes / GB == pytest.approx(520.76, abs=0.01)


def test_korthikanti_70b_tp_sp() -> None:
    """Korthikanti Table 2, TP + SP: sbhL(34 + 5as/h)/t; 65.1 GB at t = 8 (facts §4)."""
    result = memory(70e9, tp=8, sequence_parallel=True, **LLAMA70)
    assert result.activations_bytes / GB == pytest.approx(65.10, abs=0.01)


def test_korthikanti_70b_selective_sp() -> None:
    """Korthikanti Table 2, TP + SP + selective: 34sbhL/t; 11.4 GB at t = 8, 59.5 GB in all."""
    result = memory(
        70e9, tp=8, dp=8, zero_stage=1, sequence_parallel=True, recompute="selective", **LLAMA70
    )
    assert result.activations_bytes / GB == pytest.approx(11.41, abs=0.01)
    assert result.total_bytes / GB == pytest.approx(59.53, abs=0.01)


def test_korthikanti_table_2_rows() -> None:
    """Korthikanti 2022 Table 2, every row, per layer, at s=2048, b=1, h=12288, a=96, t=8."""
    s, b, h, a, t = 2048, 1, 12288, 96, 8
    sbh = s * b * h
    assert 5 * a * s / h == 80  # GPT-3's 5as/h, as the paper quotes
    rows = {
        ("none", False): sbh * (10 + 24 / t + 80 / t),
        ("none", True): sbh * (34 + 80) / t,
        ("selective", False): sbh * (10 + 24 / t),
        ("selective", True): 34 * sbh / t,
        ("full", False): 2 * sbh,
        ("full", True): 2 * sbh / t,
    }
    for (recompute, sp), expected in rows.items():
        got = activation_bytes_per_layer(s, b, h, a, t, recompute, sp)
        assert got == pytest.approx(expected), (recompute, sp)


def test_activations_do_not_depend_on_pp() -> None:
    """Korthikanti §4.2.3: under 1F1B the first stage holds about L layers' worth for any p."""
    one = memory(70e9, tp=8, sequence_parallel=True, **LLAMA70)
    four = memory(70e9, tp=8, pp=4, sequence_parallel=True, **LLAMA70)
    assert one.activations_bytes == four.activations_bytes


def test_steps_end_with_total() -> None:
    """The lab page's derivation ends with the total (no source: presentation contract)."""
    result = memory(70e9, tp=8, dp=8, zero_stage=1, **LLAMA70)
    assert result.steps[-1].value == result.total_bytes
    assert all(step.formula and step.substituted for step in result.steps)
    assert "steps" in dataclasses.asdict(result)


@settings(max_examples=80, deadline=None)
@given(
    params=st.floats(1e6, 1e13),
    dp=st.integers(1, 4096),
    tp=st.sampled_from([1, 2, 4, 8]),
    pp=st.integers(1, 64),
)
def test_each_zero_stage_saves_memory(params: float, dp: int, tp: int, pp: int) -> None:
    """ZeRO §5: stage k+1 never needs more than stage k; stage 3 is 16Ψ/N."""
    totals = [memory(params, dp=dp, tp=tp, pp=pp, zero_stage=z).total_bytes for z in range(4)]
    assert all(a >= b for a, b in zip(totals, totals[1:], strict=False))
    assert totals[3] == pytest.approx(16 * params / (tp * pp * dp))


@settings(max_examples=60, deadline=None)
@given(
    t=st.sampled_from([1, 2, 4, 8]),
    s=st.sampled_from([512, 2048, 8192]),
    heads_per_t=st.integers(1, 16),
)
def test_recompute_and_sp_only_reduce(t: int, s: int, heads_per_t: int) -> None:
    """Korthikanti Table 2: SP and recompute (none > selective > full) never add memory."""
    a, h = heads_per_t * t, heads_per_t * t * 128
    per = {
        (rc, sp): activation_bytes_per_layer(s, 1, h, a, t, rc, sp)
        for rc in ("none", "selective", "full")
        for sp in (False, True)
    }
    for sp in (False, True):
        assert per[("none", sp)] >= per[("selective", sp)] >= per[("full", sp)]
    for rc in ("none", "selective", "full"):
        assert per[(rc, True)] <= per[(rc, False)]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"params": 0}, "params"),
        ({"params": float("nan")}, "params"),
        ({"params": 1e9, "dp": 0}, "dp"),
        ({"params": 1e9, "tp": 1.5}, "tp"),
        ({"params": 1e9, "pp": True}, "pp"),
        ({"params": 1e9, "zero_stage": 4}, "zero_stage"),
        ({"params": 1e9, "zero_stage": -1}, "zero_stage"),
        ({"params": 1e9, "optimizer_bytes_per_param": -1}, "optimizer_bytes_per_param"),
        ({"params": 1e9, "recompute": "some"}, "recompute"),
        ({"params": 1e9, "sequence_parallel": "yes"}, "sequence_parallel"),
        ({"params": 1e9, "seq_len": 4096}, "micro_batch"),
        ({"params": 1e9, **LLAMA70, "layers": 0}, "layers"),
        ({"params": 1e9, **LLAMA70, "tp": 3}, "heads"),
    ],
)
def test_invalid_inputs_name_the_field(kwargs: dict[str, object], field: str) -> None:
    """Errors start with the field name, for the web layer's 422 (no source: API contract)."""
    with pytest.raises(ValueError, match=rf"^{field}: "):
        memory(**kwargs)  # type: ignore[arg-type]

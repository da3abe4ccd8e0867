"""app.labs.layout: the mapper's choices for known models, and invariants over random inputs."""

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.labs._traffic import Plan, recompute_factor, traffic
from app.labs.layout import HEADROOM, layout
from app.labs.memory import memory

H100: dict[str, Any] = {
    "gpu_memory_bytes": 80e9,
    "intra_node_Bps": 450e9,  # NVLink 4, per direction (facts §5)
    "inter_node_Bps": 50e9,  # 400 Gb/s NIC per GPU (facts §5)
    "peak_flops": 989e12,  # dense BF16
}
MODEL_7B: dict[str, Any] = {
    "params": 7e9,
    "layers": 32,
    "hidden": 4096,
    "heads": 32,
    "seq_len": 4096,
}
MODEL_70B: dict[str, Any] = {
    "params": 70e9,
    "layers": 80,
    "hidden": 8192,
    "heads": 64,
    "seq_len": 4096,
}
MODEL_405B: dict[str, Any] = {
    "params": 405e9,
    "layers": 126,
    "hidden": 16384,
    "heads": 128,
    "seq_len": 8192,
}


def _70b(gpus: int = 64, **extra: Any) -> Any:
    return layout(
        **MODEL_70B, global_batch_tokens=4 * 2**20, gpus=gpus, gpus_per_node=8, **H100, **extra
    )


def test_candidates_are_every_fitting_layout_fastest_first() -> None:
    """The answer is the first candidate; the list is sorted by step time and all of it fits."""
    result = _70b()
    ranked = result.candidates
    assert len(ranked) > 10
    best = ranked[0]
    assert (result.tp, result.pp, result.dp, result.zero_stage, result.recompute) == (
        best.tp, best.pp, best.dp, best.zero_stage, best.recompute,
    )  # fmt: skip
    assert result.step_time_estimate_s == best.step_time_estimate_s
    times = [c.step_time_estimate_s for c in ranked]
    assert all(b >= a * (1 - 1e-9) for a, b in zip(times, times[1:], strict=False))
    shapes = {(c.tp, c.pp, c.zero_stage, c.recompute) for c in ranked}
    assert len(shapes) == len(ranked)
    for c in ranked:
        assert c.tp * c.pp * c.dp == 64 and c.memory_bytes <= (1 - HEADROOM) * 80e9
        parts = c.compute_time_s + c.bubble_s + c.tensor_exposed_s
        parts += c.pipeline_exposed_s + c.data_exposed_s
        assert c.step_time_estimate_s == pytest.approx(parts)


def test_70b_on_64_keeps_the_essays_layout_as_a_fitting_candidate() -> None:
    """Facts §4 worked example: TP = 8 + ZeRO-1 over d = 8 + SP + selective = 59.5 GB on 80 GB.
    It fits, but FSDP over TP = 2 hides its traffic behind 32 microbatches and is faster."""
    result = _70b()
    essay = next(
        c for c in result.candidates
        if (c.tp, c.pp, c.zero_stage, c.recompute) == (8, 1, 1, "selective")
    )  # fmt: skip
    assert essay.memory_bytes / 1e9 == pytest.approx(59.53, abs=0.01)
    assert essay.step_time_estimate_s > result.step_time_estimate_s
    assert (result.tp, result.pp, result.dp, result.zero_stage) == (2, 1, 32, 3)
    assert any("runner-up" in reason for reason in result.reasons)


def test_7b_on_one_node_ranks_pure_dp_within_a_percent_of_the_winner() -> None:
    """7B on 8×80 GB: ZeRO-1 over 8 with selective recompute fits (16Ψ = 112 GB would not)."""
    result = layout(**MODEL_7B, global_batch_tokens=4 * 2**20, gpus=8, gpus_per_node=8, **H100)
    pure = next(c for c in result.candidates if (c.tp, c.pp, c.zero_stage) == (1, 1, 1))
    assert pure.step_time_estimate_s < 1.01 * result.step_time_estimate_s
    assert all(item.link == "nvlink" for item in result.traffic)


def test_tensor_traffic_counts_the_sequence_parallel_backward_all_gather() -> None:
    """Narayanan 2021 §3.2 (4 all-reduces of bsh per layer per microbatch) as AG + RS under SP,
    plus Korthikanti §4.2.2's extra backward all-gather per column-parallel linear: +25%."""
    plan = Plan(70e9, 80, 8192, 4096, 64, 8, 8, 1, 8, 1, "selective", 128, 450e9, 50e9)
    tensor = next(item for item in traffic(plan, 60.0) if item.name == "tensor")
    per_call = 7 / 8 * 2 * 4096 * 8192  # one all-gather or reduce-scatter of bsh
    assert tensor.calls_per_step == (8 + 2) * 80 * 128
    assert tensor.bytes_per_step_per_gpu == pytest.approx(per_call * tensor.calls_per_step)
    megatron = 4 * 80 * 128 * 2 * per_call  # the 4 all-reduces, 2(t−1)/t·2bsh each
    assert tensor.bytes_per_step_per_gpu == pytest.approx(1.25 * megatron)
    assert tensor.exposed_s == pytest.approx(megatron / 450e9)  # the extra AG overlaps dgrad
    full = Plan(70e9, 80, 8192, 4096, 64, 8, 8, 1, 8, 1, "full", 128, 450e9, 50e9)
    again = next(item for item in traffic(full, 60.0) if item.name == "tensor")
    assert again.calls_per_step == (12 + 2) * 80 * 128


def test_dp_hides_only_behind_the_last_microbatch() -> None:
    """Topics-01-02 finding 10: 70B, TP = 8, DP = 128 (one GPU per node: 50 GB/s), 8
    microbatches, compute 4.35 s. ZeRO-1's reduce-scatter (0.35 s) must fit the last
    microbatch's backward (2/3 × 4.35/8 = 0.36 s); the all-gather (0.35 s) the next step's
    first forward (0.18 s): 0.17 s exposed, where the whole-step window said 0."""
    compute = 6 * 70e9 * 4 * 2**20 / (1024 * 989e12 * 0.4)
    plan = Plan(70e9, 80, 8192, 4096, 1024, 8, 8, 1, 128, 1, "none", 8, 450e9, 50e9, 2, 5e-6)
    data = next(item for item in traffic(plan, compute) if item.name == "data")
    shard = 127 / 128 * 70e9 / 8
    hop = 127 * 5e-6
    reduce, gather = shard * 2 / 50e9 + hop, shard * 2 / 50e9 + hop
    backward, forward = 2 / 3 * compute / 8, compute / 8 / 3
    assert data.bandwidth_Bps == 50e9 and data.link == "network"
    assert data.time_s == pytest.approx(reduce + gather)
    assert data.exposed_s == pytest.approx(max(0, reduce - backward) + gather - forward)
    assert 0.16 < data.exposed_s < 0.18
    fp32 = Plan(70e9, 80, 8192, 4096, 1024, 8, 8, 1, 128, 1, "none", 8, 450e9, 50e9, 4, 5e-6)
    doubled = next(item for item in traffic(fp32, compute) if item.name == "data")
    assert doubled.bytes_per_step_per_gpu == pytest.approx(shard * 6)  # 4-byte RS + 2-byte AG
    assert doubled.exposed_s == pytest.approx(shard * 4 / 50e9 + hop - backward + gather - forward)


def test_fsdp_only_group_uses_every_nic_of_the_node() -> None:
    """Topics-01-02 finding 5: TP = 1 × DP = 1,024 on 8-GPU nodes: 8 rings, min(450, 8 × 50)."""
    plan = Plan(70e9, 80, 8192, 4096, 1024, 8, 1, 1, 1024, 3, "full", 1, 450e9, 50e9, 2, 0.0)
    data = next(item for item in traffic(plan, 10.0) if item.name == "data")
    assert data.bandwidth_Bps == 400e9
    assert data.time_s == pytest.approx(4 * 1023 / 1024 * 140e9 / 400e9)  # 3 AG + RS


def test_llama3_405b_layout_hides_its_data_parallel_traffic() -> None:
    """Llama 3 (arXiv 2407.21783, Table 4): TP 8 × PP 16 × DP 128 on 16,384 H100s, 16
    sequences of 8,192 per replica, fp32 gradient reduce-scatter. Its DP traffic is hidden."""
    compute = 6 * 405e9 * 16 * 2**20 / (16384 * 989e12 * 0.4)
    plan = Plan(405e9, 126, 16384, 8192, 16384, 8, 8, 16, 128, 1, "none", 16, 450e9, 50e9, 4)
    data = next(item for item in traffic(plan, compute) if item.name == "data")
    assert data.link == "network" and data.bandwidth_Bps == 50e9
    assert data.exposed_s == 0.0 and data.time_s > 0.3


def test_405b_on_16k_gpus_keeps_dp_mostly_hidden() -> None:
    """The issue's check: for a Llama-3-405B-like run on 16,384 H100s the chosen layout keeps
    its data-parallel traffic mostly hidden, as Llama 3 did."""
    result = layout(
        **MODEL_405B, global_batch_tokens=16 * 2**20, gpus=16384, gpus_per_node=8, **H100
    )
    assert result.tp == 8
    assert result.tp * result.pp * result.dp == 16384
    assert result.microbatches >= result.pp
    assert result.bubble_fraction == pytest.approx((result.pp - 1) / result.microbatches)
    data = next(item for item in result.traffic if item.name == "data")
    assert data.exposed_s < 0.25 * data.time_s
    assert data.exposed_s < 0.05 * result.step_time_estimate_s
    assert len(result.candidates) >= 2


def test_mfu_is_not_multiplied_by_recomputation_again() -> None:
    """Korthikanti §6.3 / PaLM App. B: a measured MFU contains recomputation. The chosen
    layout's compute is exactly 6ΨT/(n·peak·MFU); as HFU it is multiplied by the factor."""
    model_only = 6 * 70e9 * 4 * 2**20 / (64 * 989e12 * 0.4)
    measured = _70b()
    assert measured.recompute == "selective"
    assert measured.compute_time_s == pytest.approx(model_only)
    hardware = _70b(efficiency="hfu")
    factor = recompute_factor(hardware.recompute, 4096, 8192)
    assert hardware.compute_time_s == pytest.approx(model_only * factor)
    for c in measured.candidates:  # other layouts pay their recompute relative to the choice
        ratio = recompute_factor(c.recompute, 4096, 8192) / recompute_factor(
            "selective", 4096, 8192
        )
        assert c.compute_time_s == pytest.approx(model_only * ratio)


def test_fp32_gradients_cost_memory_and_bytes() -> None:
    """Megatron-LM dist_optimizer.md: fp32 main grads are 6 + 12/d bytes per parameter."""
    bf16, fp32 = _70b(1024), _70b(1024, grad_dtype="fp32")
    a = next(c for c in bf16.candidates if (c.tp, c.pp, c.zero_stage) == (8, 1, 1))
    b = next(c for c in fp32.candidates if (c.tp, c.pp, c.zero_stage) == (8, 1, 1))
    psi = 70e9 / 8
    assert b.memory_bytes - a.memory_bytes == pytest.approx(2 * psi)
    assert b.data_time_s > 1.4 * a.data_time_s
    assert any("18 bytes per parameter" in reason for reason in fp32.reasons)


def test_step_time_is_compute_plus_bubble_plus_exposed_comm() -> None:
    """Step = compute × (1 + bubble) + exposed traffic (module doc), and the steps say so."""
    result = _70b()
    exposed = sum(item.exposed_s for item in result.traffic)
    total = result.compute_time_s * (1 + result.bubble_fraction) + exposed
    assert result.step_time_estimate_s == pytest.approx(total)
    assert result.steps[-1].label == "Step time"
    assert result.steps[-1].value == pytest.approx(total)
    assert any("Left out" in note for note in result.notes)


def test_no_fit_names_gpu_memory() -> None:
    """A 1T model on 8 GPUs cannot fit anywhere: the error names gpu_memory_bytes and why."""
    with pytest.raises(ValueError, match=r"^gpu_memory_bytes: no layout fits .* needs"):
        layout(
            params=1e12, layers=96, hidden=25600, heads=160, seq_len=2048,
            global_batch_tokens=2048 * 64, gpus=8, gpus_per_node=8, **H100,
        )  # fmt: skip


def test_uneven_batch_names_global_batch_tokens() -> None:
    """3 sequences cannot be split over 2 single-GPU nodes: no TP, and 1 layer rules out PP."""
    with pytest.raises(ValueError, match="^global_batch_tokens: "):
        layout(
            params=1e6, layers=1, hidden=64, heads=1, seq_len=128,
            global_batch_tokens=3 * 128, gpus=2, gpus_per_node=1, **H100,
        )  # fmt: skip


GOOD: dict[str, Any] = {
    **MODEL_7B,
    "global_batch_tokens": 4 * 2**20,
    "gpus": 8,
    "gpus_per_node": 8,
    **H100,
}


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ({"params": -1.0}, "params"),
        ({"layers": 0}, "layers"),
        ({"hidden": 4097}, "hidden"),
        ({"heads": 0}, "heads"),
        ({"seq_len": 0}, "seq_len"),
        ({"global_batch_tokens": 4097}, "global_batch_tokens"),
        ({"gpus": 12}, "gpus"),
        ({"gpus_per_node": 0}, "gpus_per_node"),
        ({"gpu_memory_bytes": 0}, "gpu_memory_bytes"),
        ({"intra_node_Bps": -1}, "intra_node_Bps"),
        ({"inter_node_Bps": 0}, "inter_node_Bps"),
        ({"peak_flops": 0}, "peak_flops"),
        ({"mfu": 0}, "mfu"),
        ({"mfu": 1.5}, "mfu"),
        ({"efficiency": "tflops"}, "efficiency"),
        ({"grad_dtype": "fp16"}, "grad_dtype"),
        ({"alpha_s": -1e-6}, "alpha_s"),
    ],
)
def test_invalid_inputs_name_the_field(override: dict[str, object], field: str) -> None:
    """Errors start with the field name, for the web layer's 422 (no source: API contract)."""
    with pytest.raises(ValueError, match=rf"^{field}: "):
        layout(**{**GOOD, **override})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    params=st.floats(1e8, 5e11),
    heads=st.sampled_from([8, 16, 32, 64, 96, 128]),
    head_dim=st.sampled_from([64, 128]),
    layers=st.sampled_from([12, 24, 32, 48, 80, 96, 126]),
    seq_len=st.sampled_from([1024, 2048, 4096, 8192]),
    gpus_per_node=st.sampled_from([1, 2, 4, 8]),
    nodes=st.sampled_from([1, 2, 4, 8, 16, 64, 256]),
    sequences_per_gpu=st.sampled_from([1, 2, 4, 8]),
    memory_gb=st.sampled_from([24, 40, 80, 141]),
)
def test_layout_invariants(
    params: float,
    heads: int,
    head_dim: int,
    layers: int,
    seq_len: int,
    gpus_per_node: int,
    nodes: int,
    sequences_per_gpu: int,
    memory_gb: int,
) -> None:
    """tp·pp·dp = gpus, TP within a node and dividing heads, memory within the headroom."""
    gpus = gpus_per_node * nodes
    try:
        result = layout(
            params=params, layers=layers, hidden=heads * head_dim, heads=heads,
            seq_len=seq_len, global_batch_tokens=seq_len * gpus * sequences_per_gpu,
            gpus=gpus, gpus_per_node=gpus_per_node, gpu_memory_bytes=memory_gb * 1e9,
            intra_node_Bps=450e9, inter_node_Bps=50e9, peak_flops=989e12,
        )  # fmt: skip
    except ValueError as error:
        assert str(error).startswith(("gpu_memory_bytes: ", "global_batch_tokens: "))
        return
    assert result.tp * result.pp * result.dp == gpus
    assert result.tp <= gpus_per_node and gpus_per_node % result.tp == 0
    assert heads % result.tp == 0 and layers % result.pp == 0
    assert result.memory.total_bytes <= (1 - HEADROOM) * memory_gb * 1e9
    assert result.step_time_estimate_s >= result.compute_time_s > 0
    assert all(item.link == "nvlink" for item in result.traffic if item.name == "tensor")
    times = [c.step_time_estimate_s for c in result.candidates]
    assert times[0] == result.step_time_estimate_s
    assert all(b >= a * (1 - 1e-9) for a, b in zip(times, times[1:], strict=False))
    for item in result.traffic:
        assert 0.0 <= item.exposed_s <= item.time_s + 1e-12
        assert item.bandwidth_Bps <= max(450e9, 50e9 * gpus_per_node)


def test_each_candidates_memory_is_the_memory_labs() -> None:
    """The ranking screens layouts without the worked steps; its bytes are memory.memory's."""
    result = _70b(256, grad_dtype="fp32")
    for c in result.candidates:
        full = memory(
            70e9, dp=c.dp, tp=c.tp, pp=c.pp, zero_stage=c.zero_stage,
            optimizer_bytes_per_param=12.0, seq_len=4096, micro_batch=1, hidden=8192,
            heads=64, layers=80, recompute=c.recompute, sequence_parallel=c.tp > 1,
            grad_bytes_per_param=4.0,
        )  # fmt: skip
        assert c.memory_bytes == pytest.approx(full.total_bytes, rel=1e-12)


def test_an_uneven_stride_is_one_rank_per_node() -> None:
    """PP = 3 on 8-GPU nodes does not tile a node: the DP group is taken as one rank per node."""
    plan = Plan(1e9, 24, 2048, 1024, 48, 8, 1, 3, 16, 1, "none", 4, 450e9, 50e9)
    data = next(item for item in traffic(plan, 10.0) if item.name == "data")
    assert data.bandwidth_Bps == 50e9

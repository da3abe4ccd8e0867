"""app.labs.layout: the mapper's choices for known models, and invariants over random inputs."""

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.labs.layout import HEADROOM, layout

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


def test_7b_on_one_node_is_data_parallel_with_zero() -> None:
    """7B on 8×80 GB: 16Ψ = 112 GB > 80, ZeRO-1 over 8 gives 38.5 GB states; no TP or PP."""
    result = layout(**MODEL_7B, global_batch_tokens=4 * 2**20, gpus=8, gpus_per_node=8, **H100)
    assert (result.tp, result.pp, result.dp) == (1, 1, 8)
    assert result.zero_stage == 1
    assert result.memory.model_states_bytes == pytest.approx(28e9 + 84e9 / 8)
    assert [item.name for item in result.traffic] == ["data"]
    assert result.traffic[0].link == "nvlink"


def test_70b_on_64_h100_is_tp8_within_node() -> None:
    """Facts §4 worked example: TP = 8 + ZeRO-1 over d = 8 + SP + selective = 59.5 GB on 80 GB."""
    result = layout(**MODEL_70B, global_batch_tokens=4 * 2**20, gpus=64, gpus_per_node=8, **H100)
    assert (result.tp, result.pp, result.dp) == (8, 1, 8)
    assert (result.zero_stage, result.recompute, result.sequence_parallel) == (1, "selective", True)
    assert result.memory.total_bytes / 1e9 == pytest.approx(59.53, abs=0.01)
    links = {item.name: item.link for item in result.traffic}
    assert links == {"tensor": "nvlink", "data": "network"}
    assert any("TP=8 keeps the 4 all-reduces per layer" in reason for reason in result.reasons)


def test_70b_tensor_traffic_matches_megatron() -> None:
    """Narayanan 2021 §3.2: 4 all-reduces of bsh per layer per microbatch, 2(t−1)/t·2bsh each."""
    result = layout(**MODEL_70B, global_batch_tokens=4 * 2**20, gpus=64, gpus_per_node=8, **H100)
    tensor = next(item for item in result.traffic if item.name == "tensor")
    per_call = 2 * 7 / 8 * 2 * 4096 * 8192
    assert tensor.calls_per_step == 4 * 80 * result.microbatches
    assert tensor.bytes_per_step_per_gpu == pytest.approx(per_call * tensor.calls_per_step)
    assert tensor.time_s == pytest.approx(tensor.bytes_per_step_per_gpu / 450e9)


def test_405b_on_16k_gpus_needs_pipeline() -> None:
    """Llama 3 405B on 16,384 H100s (16M-token batch): TP = 8 within node is not enough; PP."""
    result = layout(
        **MODEL_405B, global_batch_tokens=16 * 2**20, gpus=16384, gpus_per_node=8, **H100
    )
    assert result.tp == 8
    assert result.pp > 1
    assert result.tp * result.pp * result.dp == 16384
    assert result.microbatches >= result.pp
    assert result.bubble_fraction == pytest.approx((result.pp - 1) / result.microbatches)
    assert {item.name for item in result.traffic} == {"tensor", "pipeline", "data"}


def test_step_time_is_compute_plus_exposed_comm() -> None:
    """Step = 6ΨD/(gpus·peak·MFU) × recompute × (1 + bubble) + exposed traffic (module doc)."""
    result = layout(**MODEL_70B, global_batch_tokens=4 * 2**20, gpus=64, gpus_per_node=8, **H100)
    tokens = 4 * 2**20
    model_only = 6 * 70e9 * tokens / (64 * 989e12 * 0.4)
    assert result.compute_time_s > model_only  # selective recompute adds a little
    assert result.compute_time_s < 1.05 * model_only
    exposed = sum(item.exposed_s for item in result.traffic)
    assert result.step_time_estimate_s == pytest.approx(result.compute_time_s + exposed)


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

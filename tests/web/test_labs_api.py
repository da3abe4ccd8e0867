"""The labs' JSON API: its published numbers, and a 422 naming the field for every bad input."""

import math
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.labs import checkpoint, layout, memory

H100_70B = {
    "params": 70e9,
    "layers": 80,
    "hidden": 8192,
    "heads": 64,
    "seq_len": 4096,
    "global_batch_tokens": 4_194_304,
    "gpus": 64,
    "gpus_per_node": 8,
    "gpu_memory_bytes": 80e9,
    "intra_node_Bps": 450e9,
    "inter_node_Bps": 50e9,
    "peak_flops": 989e12,
    "mfu": 0.4,
}
VALID: dict[str, dict[str, Any]] = {
    "memory": {"params": 7.5e9, "dp": 64, "zero_stage": 3},
    "collective": {
        "op": "all_reduce",
        "algorithm": "ring",
        "ranks": 8,
        "bytes": 1e9,
        "alpha_s": 5e-6,
        "bandwidth_Bps": 450e9,
    },
    "pipeline": {"stages": 4, "microbatches": 8, "schedule": "gpipe"},
    "checkpoint": {"checkpoint_cost_s": 60.0, "mtbf_s": 11_135.0, "restart_cost_s": 600.0},
    "moe": {"tokens": 1000, "experts": 10, "capacity_factor": 1.1},
    "layout": H100_70B,
}


def post(client: TestClient, lab: str, body: dict[str, Any]) -> Any:
    return client.post(f"/api/labs/{lab}", json=body)


def assert_422(response: Any, field: str | None) -> str:
    """A 422 shaped like FastAPI's own whose loc names `field`; returns the message."""
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, list) and detail
    for error in detail:
        assert set(error) == {"loc", "msg", "type"}
        assert error["loc"][0] == "body" and isinstance(error["msg"], str) and error["msg"]
    if field is not None:
        assert any(
            error["loc"][-1] == field or (len(error["loc"]) > 1 and error["loc"][1] == field)
            for error in detail
        ), detail
    message: str = detail[0]["msg"]
    return message


def test_memory_pins_zero_figure_1(client: TestClient) -> None:
    # ZeRO Figure 1: 7.5B parameters, 64 GPUs, K = 12: stage 0 needs 120 GB, stage 3 1.875 GB.
    body = post(client, "memory", VALID["memory"]).json()
    assert body["total_bytes"] == pytest.approx(1.875e9)
    assert body["model_states_bytes"] == pytest.approx(1.875e9)
    assert body["activations_bytes"] == 0
    stage0 = post(client, "memory", {"params": 7.5e9, "dp": 64}).json()
    assert stage0["total_bytes"] == pytest.approx(120e9)
    assert stage0["params_bytes"] == pytest.approx(15e9)
    assert stage0["optimizer_bytes"] == pytest.approx(90e9)
    assert body["steps"] and set(body["steps"][0]) == {
        "label",
        "formula",
        "substituted",
        "value",
        "unit",
    }


def test_memory_with_activations_matches_the_lab_function(client: TestClient) -> None:
    inputs = {
        "params": 70e9,
        "dp": 8,
        "tp": 8,
        "pp": 4,
        "zero_stage": 1,
        "seq_len": 4096,
        "micro_batch": 1,
        "hidden": 8192,
        "heads": 64,
        "layers": 80,
        "recompute": "selective",
        "sequence_parallel": True,
    }
    body = post(client, "memory", inputs).json()
    expected = memory.memory(**inputs)  # type: ignore[arg-type]
    for name in ("params_bytes", "grads_bytes", "optimizer_bytes", "activations_bytes"):
        assert body[name] == pytest.approx(getattr(expected, name))
    assert body["activations_bytes"] > 0
    assert body["total_bytes"] == pytest.approx(expected.total_bytes)


def test_collective_busbw_factors_are_nccl_tests(client: TestClient) -> None:
    body = post(client, "collective", VALID["collective"]).json()
    assert body["busbw_factor"] == pytest.approx(2 * 7 / 8)  # 2(n−1)/n
    assert body["bytes_sent_per_rank"] == pytest.approx(1.75e9)
    assert body["latency_term_s"] == pytest.approx(14 * 5e-6)
    assert body["time_s"] == pytest.approx(14 * 5e-6 + 1.75e9 / 450e9)
    # K* = N·B·α·(N − 1 − ⌈log₂N⌉)
    assert body["crossover_bytes"] == pytest.approx(8 * 450e9 * 5e-6 * (7 - 3))
    for op, factor in (
        ("all_gather", 7 / 8),
        ("reduce_scatter", 7 / 8),
        ("broadcast", 1.0),
        ("all_to_all", 7 / 8),
    ):
        other = post(client, "collective", {**VALID["collective"], "op": op}).json()
        assert other["busbw_factor"] == pytest.approx(factor), op
    tree = post(client, "collective", {**VALID["collective"], "algorithm": "tree"}).json()
    assert tree["latency_term_s"] == pytest.approx(2 * 3 * 5e-6)


def test_pipeline_bubbles(client: TestClient) -> None:
    gpipe = post(client, "pipeline", VALID["pipeline"]).json()
    assert gpipe["bubble_fraction"] == pytest.approx(3 / 8)
    assert gpipe["bubble_share"] == pytest.approx(3 / 11)
    assert gpipe["first_stage_inflight_microbatches"] == 8
    one = post(client, "pipeline", {"stages": 4, "microbatches": 8}).json()  # 1F1B by default
    assert one["bubble_fraction"] == pytest.approx(3 / 8)
    assert one["first_stage_inflight_microbatches"] == 4
    inter = post(
        client,
        "pipeline",
        {"stages": 4, "microbatches": 8, "interleave": 2, "schedule": "interleaved"},
    ).json()
    assert inter["bubble_fraction"] == pytest.approx(3 / 16)


def test_checkpoint_intervals_and_curve(client: TestClient) -> None:
    body = post(client, "checkpoint", VALID["checkpoint"]).json()
    assert body["young_interval_s"] == pytest.approx(math.sqrt(2 * 60 * 11_135))
    assert body["daly_interval_s"] == pytest.approx(checkpoint.daly_interval_s(60, 11_135))
    assert 0 < body["waste_fraction"] < 1
    assert len(body["curve"]) == 61 and set(body["curve"][0]) == {"interval_s", "waste_fraction"}
    lowest = min(body["curve"], key=lambda p: p["waste_fraction"])
    assert lowest["interval_s"] == pytest.approx(body["optimal_interval_s"], rel=0.1)


def test_moe_capacity_drops_and_aux_loss(client: TestClient) -> None:
    body = post(client, "moe", VALID["moe"]).json()
    assert body["expert_capacity"] == 110  # ⌈1000 × 1.1 / 10⌉, exactly
    assert body["dropped_tokens"] is None and body["aux_loss"] is None
    loads = [200, 100, 100, 100, 100, 100, 100, 100, 50, 50]
    probs = [0.1] * 10
    full = post(client, "moe", {**VALID["moe"], "expert_loads": loads, "router_probs": probs})
    result = full.json()
    assert result["dropped_tokens"] == 90 and result["drop_fraction"] == pytest.approx(0.09)
    assert result["aux_loss"] == pytest.approx(0.01)  # uniform probabilities: exactly α


def test_layout_chooses_and_explains(client: TestClient) -> None:
    body = post(client, "layout", H100_70B).json()
    expected = layout.layout(**H100_70B)  # type: ignore[arg-type]
    assert (body["tp"], body["pp"], body["dp"]) == (expected.tp, expected.pp, expected.dp)
    assert body["tp"] * body["pp"] * body["dp"] == 64
    assert body["zero_stage"] == expected.zero_stage and body["recompute"] == expected.recompute
    assert body["memory"]["total_bytes"] <= 0.9 * 80e9
    assert body["step_time_estimate_s"] == pytest.approx(expected.step_time_estimate_s)
    assert body["reasons"] and {item["name"] for item in body["traffic"]} == {"tensor", "data"}
    assert set(body["traffic"][0]) == {
        "name",
        "collective",
        "frequency",
        "calls_per_step",
        "bytes_per_step_per_gpu",
        "link",
        "time_s",
        "exposed_s",
        "bandwidth_Bps",
        "overlap_window_s",
        "latency_s",
    }
    ranked = body["candidates"]
    assert len(ranked) == len(expected.candidates) > 1
    first = ranked[0]
    assert (first["tp"], first["pp"], first["dp"]) == (body["tp"], body["pp"], body["dp"])
    assert first["step_time_estimate_s"] == pytest.approx(body["step_time_estimate_s"])
    times = [c["step_time_estimate_s"] for c in ranked]
    assert all(b >= a * (1 - 1e-9) for a, b in zip(times, times[1:], strict=False))
    assert {"zero_stage", "recompute", "compute_time_s", "bubble_s", "data_exposed_s"} <= set(first)
    assert body["steps"] and body["notes"]


def test_layout_takes_the_utilisation_kind_and_gradient_dtype(client: TestClient) -> None:
    mfu = post(client, "layout", H100_70B).json()
    hfu = post(client, "layout", {**H100_70B, "efficiency": "hfu"}).json()
    assert hfu["compute_time_s"] >= mfu["compute_time_s"]
    assert mfu["compute_time_s"] == pytest.approx(6 * 70e9 * 4_194_304 / (64 * 989e12 * 0.4))
    fp32 = post(client, "layout", {**H100_70B, "grad_dtype": "fp32"}).json()
    assert fp32["reasons"][0].count("18 bytes per parameter") == 1


def test_collective_defaults_answer_as_before_and_show_the_rate(client: TestClient) -> None:
    flat = post(client, "collective", VALID["collective"]).json()
    explicit = {**VALID["collective"], "ranks_per_node": 1, "tree_efficiency": 1.0}
    same = post(client, "collective", explicit).json()
    assert flat == same
    assert flat["effective_bandwidth_Bps"] == 450e9
    assert flat["notes"] and "Effective bandwidth" in flat["steps"][0]["label"]


def test_collective_is_node_aware(client: TestClient) -> None:
    across = {
        **VALID["collective"],
        "ranks": 1024,
        "alpha_s": 0.0,
        "bandwidth_Bps": 50e9,
        "ranks_per_node": 8,
        "intra_node_bandwidth_Bps": 450e9,
    }
    body = post(client, "collective", across).json()
    assert body["effective_bandwidth_Bps"] == 400e9  # min(450, 8 × 50)
    assert body["time_s"] == pytest.approx(2 * 1023 / 1024 * 1e9 / 400e9)
    assert body["busbw_Bps"] == pytest.approx(400e9)
    inside = post(client, "collective", {**across, "ranks": 8}).json()
    assert inside["effective_bandwidth_Bps"] == 450e9
    pcie = post(client, "collective", {**across, "intra_node_bandwidth_Bps": 25e9}).json()
    assert pcie["effective_bandwidth_Bps"] == 25e9
    derated = post(client, "collective", {**across, "algorithm": "tree", "tree_efficiency": 0.9})
    assert derated.json()["bandwidth_term_s"] == pytest.approx(2e9 / (0.9 * 400e9))
    halving = {**across, "algorithm": "rabenseifner"}
    assert post(client, "collective", halving).json()["latency_term_s"] == 0.0
    pat = {**VALID["collective"], "op": "all_gather", "algorithm": "pat", "ranks": 16}
    assert post(client, "collective", pat).json()["latency_term_s"] == pytest.approx(4 * 5e-6)


def test_collective_takes_two_hop_latencies_and_alpha_s_alone_means_one(
    client: TestClient,
) -> None:
    """The old request, alpha_s only, answers as before: every hop costs it (1,024 ranks at
    5 µs: 10.23 ms of latency, an 18 GB crossover). intra_node_alpha_s prices the NVLink hops
    apart: at the topic's 0.85 and 2.7 µs, 2.21 ms and 3.85 GB."""
    across = {
        **VALID["collective"],
        "ranks": 1024,
        "bandwidth_Bps": 50e9,
        "ranks_per_node": 8,
        "intra_node_bandwidth_Bps": 450e9,
        "tree_efficiency": 0.9,
    }
    old = post(client, "collective", across).json()
    assert old["latency_term_s"] == pytest.approx(2046 * 5e-6)
    assert old["crossover_bytes"] / 1e9 == pytest.approx(18.0, abs=0.05)
    assert (old["intra_node_hops"], old["network_hops"]) == (1792, 254)
    assert post(client, "collective", {**across, "intra_node_alpha_s": 5e-6}).json() == old
    split = {**across, "alpha_s": 2.7e-6, "intra_node_alpha_s": 0.85e-6}
    body = post(client, "collective", split).json()
    assert body["latency_term_s"] == pytest.approx(1792 * 0.85e-6 + 254 * 2.7e-6)
    assert body["crossover_bytes"] / 1e9 == pytest.approx(3.85, abs=0.01)
    assert "254" in body["steps"][1]["substituted"]


def test_the_collective_page_url_redirects(client: TestClient) -> None:
    response = client.get("/labs/collective?ranks=16&op=all_gather", follow_redirects=False)
    assert response.status_code == 308
    assert response.headers["location"] == "/labs/collectives?ranks=16&op=all_gather"
    assert client.get("/labs/collective").status_code == 200


def test_page_and_api_share_their_bounds(client: TestClient) -> None:
    """Code review §1.2: GET /labs/memory?params=1e16 was refused while the API took it."""
    assert post(client, "memory", {"params": 1e16}).status_code == 200
    assert client.get("/labs/memory", params={"params": "1e16"}).status_code == 200
    assert_422(post(client, "memory", {"params": 2e18}), "params")
    page = client.get("/labs/memory", params={"params": "2e18"})
    assert page.status_code == 422 and 'id="err-params"' in page.text


def test_layout_that_cannot_fit_is_a_422_saying_why(client: TestClient) -> None:
    body = {**H100_70B, "params": 405e9, "layers": 126, "hidden": 16384, "heads": 128, "gpus": 8}
    message = assert_422(post(client, "layout", body), "gpu_memory_bytes")
    assert "no layout fits" in message


BAD: list[tuple[str, dict[str, Any], str | None]] = [
    # negative, zero and missing sizes
    ("memory", {"params": -1.0}, "params"),
    ("memory", {"params": 0}, "params"),
    ("memory", {}, "params"),
    ("collective", {**VALID["collective"], "bytes": -5.0}, "bytes"),
    ("collective", {**VALID["collective"], "bytes": 0}, "bytes"),
    ("collective", {**VALID["collective"], "bandwidth_Bps": 0}, "bandwidth_Bps"),
    ("collective", {**VALID["collective"], "alpha_s": -1e-6}, "alpha_s"),
    ("collective", {**VALID["collective"], "intra_node_alpha_s": -1e-6}, "intra_node_alpha_s"),
    ("collective", {**VALID["collective"], "intra_node_alpha_s": "1e-6"}, "intra_node_alpha_s"),
    ("checkpoint", {**VALID["checkpoint"], "mtbf_s": 0}, "mtbf_s"),
    ("checkpoint", {**VALID["checkpoint"], "restart_cost_s": -1}, "restart_cost_s"),
    ("checkpoint", {"mtbf_s": 100.0}, "checkpoint_cost_s"),
    ("moe", {**VALID["moe"], "capacity_factor": 0}, "capacity_factor"),
    ("layout", {**H100_70B, "gpu_memory_bytes": -80e9}, "gpu_memory_bytes"),
    # zero ranks and degrees
    ("collective", {**VALID["collective"], "ranks": 0}, "ranks"),
    ("memory", {"params": 7e9, "dp": 0}, "dp"),
    ("pipeline", {"stages": 0, "microbatches": 8}, "stages"),
    ("moe", {**VALID["moe"], "experts": 0}, "experts"),
    ("layout", {**H100_70B, "gpus": 0}, "gpus"),
    # unknown enum values
    ("collective", {**VALID["collective"], "op": "allreduce"}, "op"),
    ("collective", {**VALID["collective"], "algorithm": "butterfly"}, "algorithm"),
    ("pipeline", {"stages": 4, "microbatches": 8, "schedule": "zb-h1"}, "schedule"),
    ("memory", {"params": 7e9, "recompute": "some"}, "recompute"),
    ("memory", {"params": 7e9, "zero_stage": 4}, "zero_stage"),
    # non-integer degrees and strings for numbers
    ("memory", {"params": 7e9, "tp": 2.5}, "tp"),
    ("memory", {"params": 7e9, "pp": 2.0}, "pp"),
    ("memory", {"params": 7e9, "dp": "8"}, "dp"),
    ("pipeline", {"stages": 4, "microbatches": 7.5}, "microbatches"),
    ("layout", {**H100_70B, "gpus_per_node": 8.5}, "gpus_per_node"),
    ("memory", {"params": "7e9"}, "params"),
    # extra fields
    ("memory", {"params": 7e9, "gpus": 8}, "gpus"),
    ("layout", {**H100_70B, "tp": 8}, "tp"),
    # the lab functions' own checks, mapped to their field
    (
        "memory",
        {
            "params": 7e9,
            "tp": 3,
            "seq_len": 4096,
            "micro_batch": 1,
            "hidden": 4096,
            "heads": 32,
            "layers": 32,
        },
        "heads",
    ),
    ("memory", {"params": 7e9, "seq_len": 4096}, "micro_batch"),
    ("collective", {**VALID["collective"], "op": "all_gather", "algorithm": "tree"}, "algorithm"),
    ("collective", {**VALID["collective"], "ranks_per_node": 8}, "intra_node_bandwidth_Bps"),
    ("collective", {**VALID["collective"], "ranks_per_node": 0}, "ranks_per_node"),
    ("collective", {**VALID["collective"], "ranks_per_node": 2.5}, "ranks_per_node"),
    (
        "collective",
        {**VALID["collective"], "ranks_per_node": 8, "intra_node_bandwidth_Bps": 0},
        "intra_node_bandwidth_Bps",
    ),
    (
        "collective",
        {
            **VALID["collective"],
            "ranks": 12,
            "ranks_per_node": 8,
            "intra_node_bandwidth_Bps": 450e9,
        },
        "ranks",
    ),
    ("collective", {**VALID["collective"], "tree_efficiency": 1.5}, "tree_efficiency"),
    ("collective", {**VALID["collective"], "tree_efficiency": 0}, "tree_efficiency"),
    ("collective", {**VALID["collective"], "algorithm": "rabenseifner", "ranks": 12}, "ranks"),
    (
        "collective",
        {
            **VALID["collective"],
            "op": "all_gather",
            "algorithm": "pat",
            "ranks_per_node": 8,
            "intra_node_bandwidth_Bps": 450e9,
        },
        "ranks_per_node",
    ),
    ("collective", {**VALID["collective"], "algorithm": "pat"}, "algorithm"),
    ("layout", {**H100_70B, "efficiency": "tflops"}, "efficiency"),
    ("layout", {**H100_70B, "grad_dtype": "fp8"}, "grad_dtype"),
    ("layout", {**H100_70B, "alpha_s": -1.0}, "alpha_s"),
    (
        "pipeline",
        {"stages": 4, "microbatches": 6, "interleave": 2, "schedule": "interleaved"},
        "microbatches",
    ),
    ("pipeline", {"stages": 4, "microbatches": 8, "schedule": "interleaved"}, "interleave"),
    (
        "pipeline",
        {"stages": 4, "microbatches": 8, "interleave": 2, "schedule": "1f1b"},
        "interleave",
    ),
    ("moe", {**VALID["moe"], "top_k": 11}, "top_k"),
    ("moe", {**VALID["moe"], "expert_loads": [100] * 9}, "expert_loads"),
    (
        "moe",
        {**VALID["moe"], "expert_loads": [100] * 10, "router_probs": [0.5] * 10},
        "router_probs",
    ),
    ("moe", {**VALID["moe"], "router_probs": [1.5] + [0.0] * 9}, "router_probs"),
    ("layout", {**H100_70B, "gpus": 60}, "gpus"),
    ("layout", {**H100_70B, "hidden": 8191}, "hidden"),
    ("layout", {**H100_70B, "global_batch_tokens": 4_194_305}, "global_batch_tokens"),
    ("layout", {**H100_70B, "mfu": 1.5}, "mfu"),
    (
        "checkpoint",
        {**VALID["checkpoint"], "checkpoint_cost_s": 1e6, "mtbf_s": 1.0},
        "checkpoint_cost_s",
    ),
    # too large to be meaningful (and to overflow a float)
    ("collective", {**VALID["collective"], "ranks": 10**30}, "ranks"),
    ("layout", {**H100_70B, "layers": 10**9}, "layers"),
]


@pytest.mark.parametrize("lab", sorted(VALID))
def test_bad_input_is_a_422_naming_the_field(
    client: TestClient, lab: str, subtests: pytest.Subtests
) -> None:
    # One app per lab rather than per case: building an app costs far more than a request.
    cases = [(body, field) for name, body, field in BAD if name == lab]
    assert cases
    for body, field in cases:
        with subtests.test(field=field, body=body):
            assert_422(post(client, lab, body), field)


def test_non_finite_numbers_and_broken_json_are_422s(client: TestClient) -> None:
    for raw in ('{"params": Infinity}', '{"params": NaN}'):
        response = client.post(
            "/api/labs/memory", content=raw, headers={"content-type": "application/json"}
        )
        assert_422(response, "params")
    broken = client.post(
        "/api/labs/memory", content="{not json", headers={"content-type": "application/json"}
    )
    assert_422(broken, None)


def test_arithmetic_errors_are_422s_not_500s(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def overflow(**_: object) -> None:
        raise OverflowError("math range error")

    monkeypatch.setattr(memory, "memory", overflow)
    message = assert_422(post(client, "memory", {"params": 7e9}), None)
    assert "out of the range" in message


def test_the_openapi_schema_documents_requests_and_responses(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    for lab, model in (
        ("memory", "Memory"),
        ("collective", "Collective"),
        ("pipeline", "Pipeline"),
        ("checkpoint", "Checkpoint"),
        ("moe", "Moe"),
        ("layout", "Layout"),
    ):
        operation = schema["paths"][f"/api/labs/{lab}"]["post"]
        body_ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        assert body_ref.endswith(f"/{model}In")
        ok = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
        assert ok.endswith(f"/{model}Out")
        assert "422" in operation["responses"]
    memory_in = schema["components"]["schemas"]["MemoryIn"]
    assert memory_in["additionalProperties"] is False
    assert set(schema["components"]["schemas"]["MemoryOut"]["properties"]) >= {
        "params_bytes",
        "grads_bytes",
        "optimizer_bytes",
        "model_states_bytes",
        "activations_bytes",
        "total_bytes",
    }


def test_get_is_not_allowed_on_the_api(client: TestClient) -> None:
    assert client.get("/api/labs/memory").status_code == 405


@pytest.mark.parametrize("lab", sorted(VALID))
def test_every_answer_says_what_it_leaves_out(client: TestClient, lab: str) -> None:
    notes = post(client, lab, VALID[lab]).json()["notes"]
    assert notes and any("left out" in note.lower() for note in notes)

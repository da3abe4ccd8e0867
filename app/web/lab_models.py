"""Request and response shapes of the labs' JSON API (they are its OpenAPI schema).

Requests are strict: unknown fields, strings for numbers, fractional degrees and non-finite
numbers are refused. Upper bounds keep every request cheap and every answer finite.
"""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

Count = Annotated[int, Field(gt=0, le=10_000_000)]
Size = Annotated[float, Field(gt=0, le=1e18)]
Seconds = Annotated[float, Field(ge=0, le=1e9)]
Rate = Annotated[float, Field(gt=0, le=1e18)]


class LabIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


class LabOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class StepOut(LabOut):
    """One line of the worked derivation: LaTeX before and after substituting the numbers."""

    label: str
    formula: str
    substituted: str
    value: float
    unit: str = Field(description='"B", "s", "B/s", or "" for a pure number')


class MemoryIn(LabIn):
    params: Size = Field(description="Model parameters (a count, e.g. 7e9)")
    dp: Count = 1
    tp: Count = 1
    pp: Count = 1
    zero_stage: Annotated[int, Field(ge=0, le=3)] = 0
    optimizer_bytes_per_param: Annotated[float, Field(ge=0, le=1024)] = 12.0
    seq_len: Count | None = None
    micro_batch: Count | None = None
    hidden: Count | None = None
    heads: Count | None = None
    layers: Count | None = None
    recompute: Literal["none", "selective", "full"] = "none"
    sequence_parallel: bool = False


class MemoryOut(LabOut):
    """Bytes per GPU."""

    params_bytes: float
    grads_bytes: float
    optimizer_bytes: float
    model_states_bytes: float
    activations_bytes: float = Field(description="0 when the activation inputs are absent")
    total_bytes: float
    activations_per_layer_bytes: float
    steps: list[StepOut]


class CollectiveIn(LabIn):
    op: Literal["all_reduce", "reduce_scatter", "all_gather", "broadcast", "all_to_all"]
    algorithm: Literal["ring", "tree"] = "ring"
    ranks: Count
    bytes: Size = Field(description="The full buffer K, as nccl-tests counts it")
    alpha_s: Annotated[float, Field(ge=0, le=10)] = Field(description="Latency per message")
    bandwidth_Bps: Rate = Field(description="Link bandwidth per rank, bytes per second")


class CollectiveOut(LabOut):
    bytes_sent_per_rank: float
    latency_term_s: float
    bandwidth_term_s: float
    time_s: float
    busbw_factor: float
    algbw_Bps: float
    busbw_Bps: float
    crossover_bytes: float = Field(description="All-reduce size where ring and tree tie")
    steps: list[StepOut]


class PipelineIn(LabIn):
    stages: Count
    microbatches: Count
    interleave: Annotated[int, Field(gt=0, le=1024)] = 1
    schedule: Literal["gpipe", "1f1b", "interleaved"] = "1f1b"


class PipelineOut(LabOut):
    bubble_fraction: float = Field(description="Bubble time over ideal compute time")
    bubble_share: float = Field(description="Bubble time over total time")
    first_stage_inflight_microbatches: float
    steps: list[StepOut]


class CheckpointIn(LabIn):
    checkpoint_cost_s: Annotated[float, Field(gt=0, le=1e9)]
    mtbf_s: Annotated[float, Field(gt=0, le=1e12)]
    restart_cost_s: Seconds = 0.0


class WastePointOut(LabOut):
    interval_s: float
    waste_fraction: float


class CheckpointOut(LabOut):
    young_interval_s: float
    daly_interval_s: float
    waste_fraction: float = Field(description="Share of wall time lost at Daly's interval")
    optimal_interval_s: float
    young_waste_fraction: float
    curve: list[WastePointOut] = Field(description="Waste against checkpoint interval")
    steps: list[StepOut]


class MoeIn(LabIn):
    tokens: Annotated[int, Field(gt=0, le=10**12)]
    experts: Annotated[int, Field(gt=0, le=65_536)]
    top_k: Annotated[int, Field(gt=0, le=65_536)] = 1
    capacity_factor: Annotated[float, Field(gt=0, le=1e6)]
    expert_loads: list[Annotated[int, Field(ge=0)]] | None = Field(default=None, max_length=65_536)
    router_probs: list[Annotated[float, Field(ge=0, le=1)]] | None = Field(
        default=None, max_length=65_536
    )
    aux_alpha: Annotated[float, Field(ge=0, le=1e6)] = 0.01


class MoeOut(LabOut):
    expert_capacity: int
    dropped_tokens: int | None = Field(description="Set when expert_loads are given")
    drop_fraction: float | None = Field(description="Set when expert_loads are given")
    aux_loss: float | None = Field(description="Set when expert_loads and router_probs are given")
    steps: list[StepOut]


class LayoutIn(LabIn):
    params: Size
    layers: Annotated[int, Field(gt=0, le=10_000)]
    hidden: Count
    heads: Annotated[int, Field(gt=0, le=100_000)]
    seq_len: Count
    global_batch_tokens: Annotated[int, Field(gt=0, le=10**12)]
    gpus: Count
    gpus_per_node: Annotated[int, Field(gt=0, le=1024)]
    gpu_memory_bytes: Size
    intra_node_Bps: Rate
    inter_node_Bps: Rate
    peak_flops: Annotated[float, Field(gt=0, le=1e21)]
    mfu: Annotated[float, Field(gt=0, le=1)] = 0.4


class TrafficOut(LabOut):
    name: str = Field(description='"tensor", "pipeline" or "data"')
    collective: str
    frequency: str
    calls_per_step: int
    bytes_per_step_per_gpu: float
    link: str = Field(description='"nvlink" or "network"')
    time_s: float
    exposed_s: float = Field(description="The part not hidden behind compute")


class LayoutOut(LabOut):
    tp: int
    pp: int
    dp: int
    zero_stage: int
    recompute: str
    sequence_parallel: bool
    microbatches: int
    memory: MemoryOut
    usable_memory_bytes: float
    traffic: list[TrafficOut]
    compute_time_s: float
    bubble_fraction: float
    step_time_estimate_s: float
    reasons: list[str]

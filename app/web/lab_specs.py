"""What each lab page asks for: its fields with units and defaults, and its presets."""

from dataclasses import dataclass
from typing import Any

from app.web.lab_forms import Field, Preset


@dataclass(frozen=True)
class LabSpec:
    name: str
    title: str
    summary: str
    fields: tuple[Field, ...]
    presets: tuple[Preset, ...]

    @property
    def groups(self) -> list[tuple[str, list[Field]]]:
        """Fields by fieldset, in the order they first appear ("" is the ungrouped head)."""
        groups: dict[str, list[Field]] = {}
        for spec in self.fields:
            groups.setdefault(spec.group, []).append(spec)
        return list(groups.items())


def _int(name: str, label: str, default: str, *, high: float = 1e7, **extra: Any) -> Field:
    return Field(
        name, label, "int", default, low=1.0, low_inclusive=True, high=high, step="1", **extra
    )


def _choice(name: str, label: str, default: str, *choices: tuple[str, str], **extra: Any) -> Field:
    return Field(name, label, "choice", default, choices=choices, **extra)


MODEL, PARALLEL, ACTIVATIONS = "Model", "Parallelism", "Activations"
MODEL_GPU = "Model and GPU"
CLUSTER, LOG = "Cluster", "Failure log"

# fmt: off

MEMORY = LabSpec(
    "memory",
    "Memory per GPU",
    "Weights, gradients, optimizer state and activations per GPU, under ZeRO, tensor and "
    "pipeline parallelism, against the GPU's memory.",
    (
        Field("params", "Parameters", "float", "7e9", hint="e.g. 70e9 for a 70B model",
              group=MODEL_GPU, high=1e15),
        Field("gpu_memory", "GPU memory", "float", "80", unit="GB", api="gpu_memory_bytes",
              scale=1e9, group=MODEL_GPU, high=1e6),
        Field("optimizer_bytes_per_param", "Optimizer bytes per parameter", "float", "12",
              unit="B", hint="12 for mixed-precision Adam", low_inclusive=True, high=1024,
              group=MODEL_GPU),
        _int("dp", "Data parallel (DP)", "8", group=PARALLEL),
        _int("tp", "Tensor parallel (TP)", "1", group=PARALLEL),
        _int("pp", "Pipeline parallel (PP)", "1", group=PARALLEL),
        _choice("zero_stage", "ZeRO stage", "1", ("0", "0: none"), ("1", "1: optimizer"),
                ("2", "2: + gradients"), ("3", "3: + weights"), group=PARALLEL),
        _int("seq_len", "Sequence length", "4096", unit="tokens", optional=True,
             group=ACTIVATIONS),
        _int("micro_batch", "Micro-batch", "1", unit="sequences", optional=True,
             group=ACTIVATIONS),
        _int("hidden", "Hidden size", "4096", optional=True, group=ACTIVATIONS),
        _int("heads", "Attention heads", "32", optional=True, group=ACTIVATIONS),
        _int("layers", "Layers", "32", optional=True, group=ACTIVATIONS),
        _choice("recompute", "Recomputation", "selective", ("none", "None"),
                ("selective", "Selective"), ("full", "Full"), group=ACTIVATIONS),
        Field("sequence_parallel", "Sequence parallelism", "bool", "", group=ACTIVATIONS),
    ),
    (
        Preset("7B on one H100 node", {}),
        Preset("70B: TP 8 × PP 4 × DP 8", {
            "params": "70e9", "dp": "8", "tp": "8", "pp": "4", "hidden": "8192",
            "heads": "64", "layers": "80", "sequence_parallel": "1"}),
        Preset("405B: TP 8 × PP 16 × DP 128", {
            "params": "405e9", "dp": "128", "tp": "8", "pp": "16", "seq_len": "8192",
            "hidden": "16384", "heads": "128", "layers": "126", "recompute": "full",
            "sequence_parallel": "1"}),
        Preset("ZeRO paper: 7.5B on 64 GPUs, stage 3", {
            "params": "7.5e9", "dp": "64", "zero_stage": "3", "seq_len": "", "micro_batch": "",
            "hidden": "", "heads": "", "layers": "", "recompute": "none"}),
    ),
)

COLLECTIVES = LabSpec(
    "collectives",
    "Collectives",
    "The α–β cost of all-reduce and its relatives on a ring or a tree, the bus bandwidth "
    "nccl-tests would report, and the message size where the tree overtakes the ring.",
    (
        _choice("op", "Operation", "all_reduce", ("all_reduce", "All-reduce"),
                ("reduce_scatter", "Reduce-scatter"), ("all_gather", "All-gather"),
                ("broadcast", "Broadcast"), ("all_to_all", "All-to-all")),
        _choice("algorithm", "Algorithm", "ring", ("ring", "Ring"),
                ("tree", "Tree (all-reduce only)")),
        _int("ranks", "Ranks", "8", unit="GPUs"),
        Field("bytes", "Message size", "float", "1e9", unit="B",
              hint="The whole buffer, as nccl-tests counts it: 1e9 is 1 GB"),
        Field("alpha_us", "Latency per message (α)", "float", "5", unit="µs", api="alpha_s",
              scale=1e-6, low_inclusive=True, high=1e7),
        Field("bandwidth", "Bandwidth per rank", "float", "450", unit="GB/s",
              api="bandwidth_Bps", scale=1e9, high=1e9,
              hint="One direction. H100 NVLink: 450; a 400 Gb/s NIC: 50"),
    ),
    (
        Preset("1 GB on one H100 node", {}),
        Preset("1 GB over 128 nodes", {"ranks": "1024", "alpha_us": "10", "bandwidth": "50"}),
        Preset("1 MB over 128 nodes, tree", {
            "ranks": "1024", "bytes": "1e6", "alpha_us": "10", "bandwidth": "50",
            "algorithm": "tree"}),
        Preset("All-gather of 1 GB, 8 GPUs", {"op": "all_gather"}),
    ),
)

PIPELINE = LabSpec(
    "pipeline",
    "Pipeline schedules",
    "The bubble of GPipe, 1F1B and interleaved schedules, how many microbatches the first "
    "stage holds, and the schedule drawn stage by stage.",
    (
        _choice("schedule", "Schedule", "1f1b", ("gpipe", "GPipe"), ("1f1b", "1F1B"),
                ("interleaved", "Interleaved 1F1B")),
        _int("stages", "Stages (p)", "4", high=100_000),
        _int("microbatches", "Microbatches (m)", "8", high=1e6),
        _int("interleave", "Chunks per stage (v)", "1", high=1024,
             hint="1 for GPipe and 1F1B; at least 2 for interleaved"),
    ),
    (
        Preset("GPipe, 4 × 8", {"schedule": "gpipe"}),
        Preset("1F1B, 4 × 8", {}),
        Preset("Interleaved, 4 × 8, v = 2", {"schedule": "interleaved", "interleave": "2"}),
        Preset("8 stages, 8 microbatches", {"stages": "8"}),
        Preset("8 stages, 32 microbatches", {"stages": "8", "microbatches": "32"}),
    ),
)

CHECKPOINT = LabSpec(
    "checkpoint",
    "Checkpoint interval",
    "How often to checkpoint when failures come every few hours: Young's and Daly's "
    "intervals, and the share of the run lost to checkpoints, restarts and rework.",
    (
        Field("checkpoint_cost_s", "Time to write a checkpoint (δ)", "float", "60", unit="s",
              high=1e9),
        Field("restart_cost_s", "Time to restart (R)", "float", "600", unit="s",
              low_inclusive=True, high=1e9, hint="Detect, reschedule, reload"),
        Field("mtbf_h", "Mean time between failures (M)", "float", "", unit="h", api="mtbf_s",
              scale=3600.0, optional=True, high=1e8,
              hint="Leave blank to work it out from the failure log below"),
        _int("interruptions", "Interruptions", "419", group=LOG),
        Field("days", "Over", "float", "54", unit="days", group=LOG, high=1e5),
        _int("log_gpus", "On", "16384", unit="GPUs", group=LOG),
        _int("gpus", "Your cluster", "16384", unit="GPUs", group=LOG,
             hint="The failure rate grows with the GPU count"),
    ),
    (
        Preset("Llama 3: 16,384 GPUs", {}),
        Preset("Same failure rate, 4,096 GPUs", {"gpus": "4096"}),
        Preset("Same failure rate, 100,000 GPUs", {"gpus": "100000"}),
        Preset("MTBF of 24 hours", {"mtbf_h": "24"}),
    ),
)

MOE = LabSpec(
    "moe",
    "MoE routing",
    "Expert capacity, the tokens dropped when a router favours some experts, and the "
    "Switch load-balancing loss, from a simulated router.",
    (
        _int("tokens", "Tokens in the batch (T)", "4096", high=1e12),
        _int("experts", "Experts (E)", "8", high=65_536),
        _int("top_k", "Experts per token (k)", "2", high=65_536),
        Field("capacity_factor", "Capacity factor (CF)", "float", "1.25", high=1e6),
        Field("skew", "Router skew", "float", "0.5", low_inclusive=True, high=20,
              hint="0 spreads tokens evenly; larger values favour the first experts"),
        Field("aux_alpha", "Aux loss weight (α)", "float", "0.01", low_inclusive=True, high=1e6),
    ),
    (
        Preset("Even router", {"skew": "0"}),
        Preset("Mild skew", {}),
        Preset("Heavy skew", {"skew": "1.5"}),
        Preset("Near collapse", {"skew": "4"}),
        Preset("Switch: 64 experts, top-1, CF 1", {
            "tokens": "16384", "experts": "64", "top_k": "1", "capacity_factor": "1",
            "skew": "0.3"}),
    ),
)

LAYOUT = LabSpec(
    "layout",
    "Parallelism layout",
    "Pick TP × PP × DP, the ZeRO stage and recomputation for a model on a cluster, with the "
    "memory it needs, the traffic each strategy sends and a step-time estimate.",
    (
        Field("params", "Parameters", "float", "70e9", group=MODEL, high=1e15),
        _int("layers", "Layers", "80", group=MODEL, high=10_000),
        _int("hidden", "Hidden size", "8192", group=MODEL),
        _int("heads", "Attention heads", "64", group=MODEL, high=100_000),
        _int("seq_len", "Sequence length", "4096", unit="tokens", group=MODEL),
        _int("global_batch_tokens", "Global batch", "4194304", unit="tokens", group=MODEL,
             high=1e12, hint="4194304 is 1,024 sequences of 4,096"),
        _int("gpus", "GPUs", "64", group=CLUSTER),
        _int("gpus_per_node", "GPUs per node", "8", group=CLUSTER, high=1024),
        Field("gpu_memory", "GPU memory", "float", "80", unit="GB", api="gpu_memory_bytes",
              scale=1e9, group=CLUSTER, high=1e6),
        Field("intra_node", "NVLink per GPU", "float", "450", unit="GB/s",
              api="intra_node_Bps", scale=1e9, group=CLUSTER, high=1e9),
        Field("inter_node", "Network per GPU", "float", "50", unit="GB/s", api="inter_node_Bps",
              scale=1e9, group=CLUSTER, high=1e9, hint="A 400 Gb/s NIC per GPU is 50 GB/s"),
        Field("peak", "Peak compute per GPU", "float", "989", unit="TFLOP/s", api="peak_flops",
              scale=1e12, group=CLUSTER, high=1e9, hint="H100 dense bf16: 989"),
        Field("mfu", "Model FLOPs utilisation", "float", "0.4", group=CLUSTER, high=1.0),
    ),
    (
        Preset("7B on one H100 node", {
            "params": "7e9", "layers": "32", "hidden": "4096", "heads": "32", "gpus": "8"}),
        Preset("70B on 64 H100s", {}),
        Preset("70B on 256 H100s", {"gpus": "256"}),
        Preset("405B on 16,384 H100s", {
            "params": "405e9", "layers": "126", "hidden": "16384", "heads": "128",
            "seq_len": "8192", "global_batch_tokens": "16777216", "gpus": "16384"}),
    ),
)

# fmt: on

LABS: dict[str, LabSpec] = {
    spec.name: spec for spec in (MEMORY, COLLECTIVES, PIPELINE, CHECKPOINT, MOE, LAYOUT)
}

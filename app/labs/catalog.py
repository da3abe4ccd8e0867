"""The labs by name: the title and one-line summary the pages, the glossary and the CLI show."""

from dataclasses import dataclass


@dataclass(frozen=True)
class LabInfo:
    """A lab's stable name (its URL, /labs/NAME) and how it is introduced."""

    name: str
    title: str
    summary: str


LABS: dict[str, LabInfo] = {
    info.name: info
    for info in (
        LabInfo(
            "memory",
            "Memory per GPU",
            "Weights, gradients, optimizer state and activations per GPU, under ZeRO, tensor "
            "and pipeline parallelism, against the GPU's memory.",
        ),
        LabInfo(
            "collectives",
            "Collectives",
            "The α–β cost of all-reduce and its relatives on a ring, a tree, recursive "
            "halving and doubling or NCCL's PAT, on node-aware links; the bus bandwidth "
            "nccl-tests would report, and the message size where the tree overtakes the ring.",
        ),
        LabInfo(
            "pipeline",
            "Pipeline schedules",
            "The bubble of GPipe, 1F1B and interleaved schedules, how many microbatches the "
            "first stage holds, and the schedule drawn stage by stage.",
        ),
        LabInfo(
            "checkpoint",
            "Checkpoint interval",
            "How often to checkpoint when failures come every few hours: Young's and Daly's "
            "intervals, and the share of the run lost to checkpoints, restarts and rework.",
        ),
        LabInfo(
            "moe",
            "MoE routing",
            "Expert capacity, the tokens dropped when a router favours some experts, and the "
            "Switch load-balancing loss, from a simulated router.",
        ),
        LabInfo(
            "layout",
            "Parallelism layout",
            "Every TP × PP × DP, ZeRO stage and recomputation that fits a model on a cluster, "
            "ranked by estimated step time: memory, the traffic each strategy sends on "
            "node-aware links, and how much of it compute can hide.",
        ),
    )
}


def titles() -> dict[str, str]:
    """Lab name → title, as the glossary's link check wants them."""
    return {name: info.title for name, info in LABS.items()}

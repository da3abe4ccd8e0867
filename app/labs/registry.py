"""The lab functions a numeric drill may name, as `module.function`.

A drill calls one of these with its fixed and drawn inputs and reads one field of the result
(or the number itself, when the function returns a float): the expected answer always comes
from the same code the lab pages use.
"""

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

from app.labs import checkpoint, collectives, layout, memory, moe, pipeline

LabFunction = Callable[..., Any]

DRILL_FUNCTIONS: dict[str, LabFunction] = {
    "memory.memory": memory.memory,
    "memory.model_states_bytes": memory.model_states_bytes,
    "memory.activation_bytes_per_layer": memory.activation_bytes_per_layer,
    "collectives.collective": collectives.collective,
    "collectives.busbw_factor": collectives.busbw_factor,
    "collectives.busbw_from_algbw": collectives.busbw_from_algbw,
    "collectives.algbw_from_time": collectives.algbw_from_time,
    "collectives.crossover_bytes": collectives.crossover_bytes,
    "pipeline.pipeline": pipeline.pipeline,
    "checkpoint.checkpoint": checkpoint.checkpoint,
    "checkpoint.young_interval_s": checkpoint.young_interval_s,
    "checkpoint.daly_interval_s": checkpoint.daly_interval_s,
    "checkpoint.waste_fraction": checkpoint.waste_fraction,
    "checkpoint.cluster_mtbf_s": checkpoint.cluster_mtbf_s,
    "moe.moe": moe.moe,
    "moe.expert_capacity": moe.expert_capacity,
    "layout.layout": layout.layout,
}


def parameters(function_name: str) -> tuple[set[str], set[str]]:
    """(all parameter names, the required ones) of a registered function."""
    signature = inspect.signature(DRILL_FUNCTIONS[function_name])
    names = set(signature.parameters)
    required = {n for n, p in signature.parameters.items() if p.default is inspect.Parameter.empty}
    return names, required


def numeric_fields(result: Any) -> dict[str, float]:
    """The numbers a drill may ask for: the float itself as `value`, or a result's fields."""
    if isinstance(result, int | float) and not isinstance(result, bool):
        return {"value": float(result)}
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return {
            f.name: float(getattr(result, f.name))
            for f in dataclasses.fields(result)
            if isinstance(getattr(result, f.name), int | float)
            and not isinstance(getattr(result, f.name), bool)
        }
    return {}

"""MoE routing: expert capacity, dropped tokens and the Switch load-balancing loss.

Switch Transformer (Fedus et al. 2021, arXiv 2101.03961), with top-k routing as GShard does it:

    expert_capacity  ⌈k · tokens · capacity_factor / experts⌉              (§2.2)
    dropped_tokens   Σᵢ max(0, loadᵢ − capacity)  (overflow rides the residual connection)
    drop_fraction    dropped_tokens / (k · tokens)
    aux_loss         α · N · Σᵢ fᵢ Pᵢ, fᵢ = loadᵢ / Σ load, Pᵢ = mean router probability  (eq. 4)

Uniform routing (fᵢ = Pᵢ = 1/N) gives aux_loss = α; total collapse onto one expert with P = 1
gives α·N. `simulate_loads` is a seeded toy router for the "drops against capacity factor" plot:
expert i is preferred with weight (i + 1)^(−skew), so skew = 0 is uniform and larger skews
approach collapse. `MoeResult.steps` is a list of `app.labs._common.Step`.
"""

import math
import random
from dataclasses import dataclass, field
from fractions import Fraction

from app.errors import FieldError
from app.labs._common import Step, check_int, check_real, tex

PROBS_TOLERANCE = 1e-3  # router_probs are means of softmaxes; typed-in values are rounded
MAX_SIMULATION_TOKENS = 5_000_000  # top_k = 1 samples all tokens in one call: ~1 s, ~40 MB
MAX_SIMULATION_WORK = 2_000_000  # tokens × experts for top_k > 1, about half a second


@dataclass(frozen=True)
class MoeResult:
    """Capacity, drops and aux loss; None where the inputs they need were not given."""

    expert_capacity: int
    dropped_tokens: int | None
    drop_fraction: float | None
    aux_loss: float | None
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class DropPoint:
    """Drop fraction at one capacity factor."""

    capacity_factor: float
    expert_capacity: int
    drop_fraction: float


def expert_capacity(tokens: int, experts: int, capacity_factor: float, top_k: int = 1) -> int:
    """⌈k·tokens·CF/experts⌉: Switch Transformer (Fedus et al. 2021) §2.2, "expert capacity"."""
    check_int("tokens", tokens, 1)
    check_int("experts", experts, 1)
    check_int("top_k", top_k, 1)
    cf = check_real("capacity_factor", capacity_factor, positive=True)
    # Exact rational arithmetic: 1.1 × 1000 / 10 must be 110, not ⌈110.00000000000001⌉ = 111.
    return math.ceil(top_k * tokens * Fraction(str(cf)) / experts)


def _check_loads(expert_loads: list[int], tokens: int, experts: int, top_k: int) -> None:
    """Loads must be one count per expert summing to k·tokens: Switch §2.2 routing."""
    if len(expert_loads) != experts:
        raise FieldError("expert_loads", f"must have one entry per expert ({experts})")
    for load in expert_loads:
        check_int("expert_loads", load, 0)
        if load > tokens:
            raise FieldError("expert_loads", "an expert cannot receive more than tokens")
    if sum(expert_loads) != top_k * tokens:
        raise FieldError(
            "expert_loads",
            f"must sum to top_k × tokens ({top_k * tokens}), got {sum(expert_loads)}",
        )


def _check_probs(router_probs: list[float], experts: int) -> None:
    """Mean router probabilities: one per expert, each in [0, 1], summing to 1 (Switch eq. 6)."""
    if len(router_probs) != experts:
        raise FieldError("router_probs", f"must have one entry per expert ({experts})")
    for prob in router_probs:
        if check_real("router_probs", prob, positive=False) > 1.0:
            raise FieldError("router_probs", "each probability must be at most 1")
    if abs(sum(router_probs) - 1.0) > PROBS_TOLERANCE:
        raise FieldError("router_probs", f"must sum to 1 (within {PROBS_TOLERANCE})")


def moe(
    tokens: int,
    experts: int,
    capacity_factor: float,
    top_k: int = 1,
    expert_loads: list[int] | None = None,
    router_probs: list[float] | None = None,
    aux_alpha: float = 0.01,
) -> MoeResult:
    """Capacity, drops and aux loss: Switch Transformer (Fedus et al. 2021) §2.2 and eq. 4."""
    capacity = expert_capacity(tokens, experts, capacity_factor, top_k)
    if top_k > experts:
        raise FieldError("top_k", f"must be at most experts ({experts})")
    alpha = check_real("aux_alpha", aux_alpha, positive=False)
    steps = [
        Step(
            "Expert capacity",
            r"C = \left\lceil \frac{k \cdot T \cdot \text{CF}}{E} \right\rceil",
            rf"\left\lceil \frac{{{top_k} \times {tokens} \times {tex(capacity_factor)}}}"
            rf"{{{experts}}} \right\rceil",
            capacity,
            "",
        )
    ]
    dropped: int | None = None
    drop_fraction: float | None = None
    aux: float | None = None
    if expert_loads is not None:
        _check_loads(expert_loads, tokens, experts, top_k)
        dropped = sum(max(0, load - capacity) for load in expert_loads)
        drop_fraction = dropped / (top_k * tokens)
        steps.append(
            Step(
                "Dropped token assignments",
                r"\sum_i \max(0, \text{load}_i - C)",
                rf"C = {capacity},\ \max_i \text{{load}}_i = {max(expert_loads)}",
                dropped,
                "",
            )
        )
        steps.append(
            Step(
                "Drop fraction",
                r"\frac{\text{dropped}}{k \cdot T}",
                rf"\frac{{{dropped}}}{{{top_k * tokens}}}",
                drop_fraction,
                "",
            )
        )
    if router_probs is not None:
        _check_probs(router_probs, experts)
        if expert_loads is not None:
            total = sum(expert_loads)
            dot = sum(
                load / total * prob for load, prob in zip(expert_loads, router_probs, strict=True)
            )
            aux = alpha * experts * dot
            steps.append(
                Step(
                    "Switch load-balancing loss",
                    r"\alpha N \sum_i f_i P_i",
                    rf"{tex(alpha)} \times {experts} \times {tex(dot)}",
                    aux,
                    "",
                )
            )
    return MoeResult(
        expert_capacity=capacity,
        dropped_tokens=dropped,
        drop_fraction=drop_fraction,
        aux_loss=aux,
        steps=steps,
        notes=_notes(),
    )


def simulate_loads(
    tokens: int, experts: int, top_k: int = 1, skew: float = 0.0, seed: int = 0
) -> list[int]:
    """Seeded toy router, Zipf-like preference (i+1)^−skew, k distinct experts per token."""
    check_int("tokens", tokens, 1)
    check_int("experts", experts, 1)
    check_int("top_k", top_k, 1)
    if top_k > experts:
        raise FieldError("top_k", f"must be at most experts ({experts})")
    s = check_real("skew", skew, positive=False)
    check_int("seed", seed, 0)
    if tokens > MAX_SIMULATION_TOKENS:
        raise FieldError("tokens", f"must be at most {MAX_SIMULATION_TOKENS:,} for the simulator")
    if top_k > 1 and tokens * experts > MAX_SIMULATION_WORK:
        raise FieldError(
            "tokens", f"tokens × experts must be at most {MAX_SIMULATION_WORK:,} when top_k > 1"
        )
    rng = random.Random(seed)
    weights = [(i + 1) ** -s for i in range(experts)]
    loads = [0] * experts
    if top_k == 1:
        for choice in rng.choices(range(experts), weights=weights, k=tokens):
            loads[choice] += 1
        return loads
    # Gumbel top-k: the k largest log wᵢ + Gumbel noise are a weighted sample without replacement.
    log_w = [math.log(w) for w in weights]
    for _ in range(tokens):
        keys = [lw - math.log(-math.log(rng.random() or 1e-300)) for lw in log_w]
        for i in sorted(range(experts), key=keys.__getitem__)[-top_k:]:
            loads[i] += 1
    return loads


def drop_curve(
    expert_loads: list[int],
    tokens: int,
    capacity_factors: list[float],
    top_k: int = 1,
) -> list[DropPoint]:
    """Drop fraction against capacity factor for fixed loads: Switch Transformer §2.2."""
    experts = len(expert_loads)
    if experts == 0:
        raise FieldError("expert_loads", "must have at least one entry")
    _check_loads(expert_loads, tokens, experts, top_k)
    points = []
    for cf in capacity_factors:
        capacity = expert_capacity(tokens, experts, cf, top_k)
        dropped = sum(max(0, load - capacity) for load in expert_loads)
        points.append(DropPoint(float(cf), capacity, dropped / (top_k * tokens)))
    return points


def _notes() -> list[str]:
    """Where the numbers come from and what the model leaves out (module docstring)."""
    return [
        "Capacity and the load-balancing loss follow Switch Transformer (Fedus et al. 2021, "
        "§2.2 and eq. 4); tokens over capacity are dropped and ride the residual connection.",
        "Left out: dropless routing (token-choice with padding or MegaBlocks), expert-choice "
        "routing, the all-to-all's cost, and the router z-loss.",
    ]

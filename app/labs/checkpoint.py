"""Checkpoint interval and waste: Young 1974, Daly 2006, and cluster MTBF from failure logs.

δ = checkpoint_cost_s (time to write one checkpoint), M = mtbf_s, R = restart_cost_s.

    Young 1974     τ = √(2δM)
    Daly 2006      τ = √(2δM)·[1 + ⅓√(δ/2M) + (1/9)(δ/2M)] − δ   for δ < 2M, else τ = M

Waste uses Daly's complete cost function for Poisson failures (Daly 2006, FGCS 22(3)):
T_wall = M·e^{R/M}·(e^{(τ+δ)/M} − 1)·T_s/τ for T_s of useful work, so the fraction of wall time
not spent on useful work is waste = 1 − τ / (M·e^{R/M}·(e^{(τ+δ)/M} − 1)). R scales T_wall but
does not move its minimum; `optimal_interval_s` is that exact minimum, the root of
e^{(τ+δ)/M}(1 − τ/M) = 1, which Daly's series approximates.

`CheckpointResult.steps` is a list of `app.labs._common.Step`.
"""

import math
from dataclasses import dataclass, field

from app.errors import FieldError
from app.labs._common import Step, check_int, check_real, tex

SECONDS_PER_DAY = 86_400.0
MAX_CHECKPOINT_PER_MTBF = 100  # a longer checkpoint never completes between failures


@dataclass(frozen=True)
class WastePoint:
    """Waste fraction at one checkpoint interval."""

    interval_s: float
    waste_fraction: float


@dataclass(frozen=True)
class CheckpointResult:
    """Checkpoint intervals and waste; field names are the JSON API's."""

    young_interval_s: float
    daly_interval_s: float
    waste_fraction: float
    optimal_interval_s: float
    young_waste_fraction: float
    curve: list[WastePoint] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def young_interval_s(checkpoint_cost_s: float, mtbf_s: float) -> float:
    """First-order optimum τ = √(2δM): Young 1974, CACM 17(9)."""
    delta = check_real("checkpoint_cost_s", checkpoint_cost_s, positive=True)
    m = check_real("mtbf_s", mtbf_s, positive=True)
    return math.sqrt(2.0 * delta * m)


def daly_interval_s(checkpoint_cost_s: float, mtbf_s: float) -> float:
    """Higher-order optimum: Daly 2006, FGCS 22(3) 303–312, perturbation solution (Figs. 3–5)."""
    delta = check_real("checkpoint_cost_s", checkpoint_cost_s, positive=True)
    m = check_real("mtbf_s", mtbf_s, positive=True)
    if delta >= 2.0 * m:
        return m  # Daly: past δ = 2M the series diverges; checkpoint once per MTBF
    x = delta / (2.0 * m)
    return math.sqrt(2.0 * delta * m) * (1.0 + math.sqrt(x) / 3.0 + x / 9.0) - delta


def waste_fraction(
    interval_s: float, checkpoint_cost_s: float, mtbf_s: float, restart_cost_s: float = 0.0
) -> float:
    """1 − T_s/T_wall, Daly 2006's complete model T_wall = M·e^{R/M}(e^{(τ+δ)/M} − 1)·T_s/τ."""
    tau = check_real("interval_s", interval_s, positive=True)
    delta = check_real("checkpoint_cost_s", checkpoint_cost_s, positive=True)
    m = check_real("mtbf_s", mtbf_s, positive=True)
    r = check_real("restart_cost_s", restart_cost_s, positive=False)
    # expm1 keeps precision when τ + δ ≪ M; exponents past ~700 overflow, i.e. waste → 1.
    exponent = (tau + delta) / m + r / m
    if exponent > 700.0:
        return 1.0
    wall_per_work = m * math.exp(r / m) * math.expm1((tau + delta) / m) / tau
    return 1.0 - 1.0 / wall_per_work


def optimal_interval_s(checkpoint_cost_s: float, mtbf_s: float) -> float:
    """Exact minimiser of Daly 2006's T_wall: root of e^{(τ+δ)/M}(1 − τ/M) = 1 on (0, M)."""
    delta = check_real("checkpoint_cost_s", checkpoint_cost_s, positive=True)
    m = check_real("mtbf_s", mtbf_s, positive=True)
    lo, hi = 0.0, m  # g(0) = e^{δ/M} − 1 > 0, g(M) = −1 and g is decreasing: one root
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if math.exp((mid + delta) / m) * (1.0 - mid / m) > 1.0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def waste_curve(
    checkpoint_cost_s: float,
    mtbf_s: float,
    restart_cost_s: float = 0.0,
    points: int = 61,
    low_s: float | None = None,
    high_s: float | None = None,
) -> list[WastePoint]:
    """Waste against interval, log-spaced over two decades around Daly's τ: Daly 2006 model."""
    check_int("points", points, 2)
    centre = daly_interval_s(checkpoint_cost_s, mtbf_s)
    low = centre / 10.0 if low_s is None else check_real("low_s", low_s, positive=True)
    high = centre * 10.0 if high_s is None else check_real("high_s", high_s, positive=True)
    if high <= low:
        raise FieldError("high_s", "must be greater than low_s")
    ratio = high / low
    return [
        WastePoint(
            interval_s=(tau := low * ratio ** (i / (points - 1))),
            waste_fraction=waste_fraction(tau, checkpoint_cost_s, mtbf_s, restart_cost_s),
        )
        for i in range(points)
    ]


def checkpoint(
    checkpoint_cost_s: float, mtbf_s: float, restart_cost_s: float = 0.0
) -> CheckpointResult:
    """Young 1974 and Daly 2006 intervals, waste at Daly's interval (Daly 2006 T_wall model)."""
    delta = check_real("checkpoint_cost_s", checkpoint_cost_s, positive=True)
    m = check_real("mtbf_s", mtbf_s, positive=True)
    r = check_real("restart_cost_s", restart_cost_s, positive=False)
    if delta > MAX_CHECKPOINT_PER_MTBF * m:
        # The waste model's exponentials overflow near e^700, and long before that no run
        # makes progress: refuse rather than answer with an overflow.
        raise FieldError(
            "checkpoint_cost_s",
            f"must be at most {MAX_CHECKPOINT_PER_MTBF} × the time between failures",
        )
    young = young_interval_s(delta, m)
    daly = daly_interval_s(delta, m)
    waste = waste_fraction(daly, delta, m, r)
    x = delta / (2.0 * m)
    steps = [
        Step("Young's interval", r"\tau_Y = \sqrt{2\delta M}",
             rf"\sqrt{{2 \times {tex(delta)} \times {tex(m)}}}", young, "s"),
        Step(
            "Daly's interval" + ("" if delta < 2 * m else r" (δ ≥ 2M, so τ = M)"),
            r"\tau_D = \sqrt{2\delta M}\left[1 + \tfrac{1}{3}\sqrt{\tfrac{\delta}{2M}}"
            r" + \tfrac{1}{9}\tfrac{\delta}{2M}\right] - \delta",
            rf"{tex(young)}\left[1 + \tfrac{{1}}{{3}}\sqrt{{{tex(x)}}} + \tfrac{{1}}{{9}}"
            rf"\times {tex(x)}\right] - {tex(delta)}",
            daly,
            "s",
        ),
        Step("Waste at Daly's interval",
             r"1 - \frac{\tau}{M e^{R/M}\left(e^{(\tau+\delta)/M} - 1\right)}",
             rf"\tau = {tex(daly)},\ \delta = {tex(delta)},\ M = {tex(m)},\ R = {tex(r)}",
             waste, ""),
    ]  # fmt: skip
    return CheckpointResult(
        young_interval_s=young,
        daly_interval_s=daly,
        waste_fraction=waste,
        optimal_interval_s=optimal_interval_s(delta, m),
        young_waste_fraction=waste_fraction(young, delta, m, r),
        curve=waste_curve(delta, m, r),
        steps=steps,
        notes=_notes(),
    )


def cluster_mtbf_s(
    interruptions: int, days: float, gpus: int, scale_to_gpus: int | None = None
) -> float:
    """Cluster MTBF from a failure log, scaled as 1/GPUs: Llama 3 (arXiv 2407.21783) §3.3.4."""
    n = check_int("interruptions", interruptions, 1)
    span = check_real("days", days, positive=True) * SECONDS_PER_DAY
    g = check_int("gpus", gpus, 1)
    target = g if scale_to_gpus is None else check_int("scale_to_gpus", scale_to_gpus, 1)
    # Independent GPU failures add rates, so the MTBF falls as 1/GPUs (per-GPU MTBF = M·gpus).
    return span / n * g / target


def _notes() -> list[str]:
    """Where the numbers come from and what the model leaves out (module docstring)."""
    return [
        "Failures arrive as a Poisson process with mean time M (Daly 2006); δ is the time the "
        "run stops to write, R the time from a failure to training again.",
        "Left out: asynchronous checkpoints that overlap training (which shrink δ), failures "
        "during restart, and failure rates that change over a run.",
    ]

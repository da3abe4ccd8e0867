"""Pipeline-parallel bubbles, in-flight microbatches and schedule timelines.

Conventions of Megatron-LM (Narayanan et al. 2021, arXiv 2104.04473, §2.2): p stages, m
microbatches per batch, v model chunks per stage for the interleaved schedule.

    bubble_fraction  bubble time / ideal compute time: (p−1)/m; interleaved (p−1)/(v·m)
    bubble_share     bubble time / total time:          (p−1)/(m+p−1); interleaved (p−1)/(v·m+p−1)

1F1B has the same bubble as GPipe: it bounds the activations in flight (p instead of m
microbatches on the first stage), it does not shrink the bubble.

`first_stage_inflight_microbatches` counts microbatches whose activations the first stage holds
at its peak, in units of one microbatch through all of the stage's layers: GPipe m, 1F1B
min(p, m). Interleaved: Megatron's schedule runs 2(p−1) + (v−1)p warm-up chunk forwards plus one
more before its first backward, so vp + p − 1 chunk-microbatches (each 1/v of the stage) are
live: p + (p−1)/v stage-microbatches, i.e. Korthikanti 2022's 1 + (p−1)/(pv) activation factor.

`schedule_timeline` simulates the per-stage order each schedule prescribes (Megatron's
schedules.py orders) with forward/backward durations and send/receive dependencies; it returns
`TimelineEvent`s for drawing. `PipelineResult.steps` is a list of `app.labs._common.Step`.
"""

from dataclasses import dataclass, field

from app.errors import FieldError
from app.labs._common import Step, check_choice, check_int, check_real

SCHEDULES = ("gpipe", "1f1b", "interleaved")
MAX_TIMELINE_EVENTS = 20_000  # p·m·v forward+backward ops drawn; keeps a request cheap


@dataclass(frozen=True)
class PipelineResult:
    """Bubble and memory figures of one schedule; field names are the JSON API's."""

    bubble_fraction: float
    bubble_share: float
    first_stage_inflight_microbatches: float
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class TimelineEvent:
    """One forward or backward pass of one model chunk on one stage, for the schedule chart."""

    stage: int
    start: float
    end: float
    kind: str  # "forward" | "backward"
    microbatch: int
    chunk: int = 0


def _validate(stages: int, microbatches: int, interleave: int, schedule: str) -> None:
    """Check the schedule's inputs: Megatron-LM arXiv 2104.04473 §2.2 (interleaved needs m % p)."""
    check_int("stages", stages, 1)
    check_int("microbatches", microbatches, 1)
    check_int("interleave", interleave, 1)
    check_choice("schedule", schedule, SCHEDULES)
    if schedule == "interleaved":
        if interleave < 2:
            raise FieldError("interleave", "must be at least 2 for the interleaved schedule")
        if microbatches % stages:
            raise FieldError(
                "microbatches",
                f"must be a multiple of stages ({stages}) for the interleaved "
                "schedule, as Megatron-LM requires",
            )
    elif interleave != 1:
        raise FieldError("interleave", f"must be 1 for the {schedule} schedule")


def pipeline(
    stages: int, microbatches: int, schedule: str = "1f1b", interleave: int = 1
) -> PipelineResult:
    """Bubble and in-flight microbatches: Narayanan et al. 2021 (2104.04473) §2.2.1–2.2.2."""
    _validate(stages, microbatches, interleave, schedule)
    p, m, v = stages, microbatches, interleave
    bubble = (p - 1) / (v * m)
    share = (p - 1) / (v * m + p - 1)
    if schedule == "gpipe":
        inflight = float(m)
        inflight_tex, inflight_sub = "m", f"{m}"
    elif schedule == "1f1b":
        inflight = float(min(p, m))
        inflight_tex, inflight_sub = r"\min(p, m)", rf"\min({p}, {m})"
    else:
        # Megatron caps warm-up at all m·v chunk-microbatches (the m == p case).
        inflight = min(m * v, v * p + p - 1) / v
        inflight_tex = r"\frac{\min(mv,\ vp + p - 1)}{v}"
        inflight_sub = rf"\frac{{\min({m * v},\ {v * p + p - 1})}}{{{v}}}"
    bubble_tex = r"\frac{p-1}{vm}" if schedule == "interleaved" else r"\frac{p-1}{m}"
    steps = [
        Step(
            "Bubble over ideal compute time",
            bubble_tex,
            rf"\frac{{{p}-1}}{{{v * m}}}",
            bubble,
            "",
        ),
        Step(
            "Bubble over total time",
            r"\frac{p-1}{vm+p-1}" if schedule == "interleaved" else r"\frac{p-1}{m+p-1}",
            rf"\frac{{{p}-1}}{{{v * m}+{p}-1}}",
            share,
            "",
        ),
        Step("Microbatches in flight on stage 1", inflight_tex, inflight_sub, inflight, ""),
    ]
    return PipelineResult(
        bubble_fraction=bubble,
        bubble_share=share,
        first_stage_inflight_microbatches=inflight,
        steps=steps,
        notes=_notes(schedule),
    )


# An op is (kind, microbatch, chunk); kind is "F" or "B".
Op = tuple[str, int, int]


def _stage_order(stage: int, p: int, m: int, v: int, schedule: str) -> list[Op]:
    """One stage's op order: GPipe (Huang 2019), 1F1B and interleaved per Megatron schedules.py."""
    if schedule == "gpipe":
        return [("F", i, 0) for i in range(m)] + [("B", i, 0) for i in range(m)]
    total = m * v

    def chunk_op(kind: str, k: int) -> Op:
        """Virtual microbatch k → (microbatch, chunk): Megatron schedules.py get_model_chunk_id."""
        in_group = k % (p * v)
        chunk = in_group // p
        if kind == "B":
            chunk = v - 1 - chunk
        return kind, (k // (p * v)) * p + k % p, chunk

    if schedule == "1f1b":
        warmup = min(p - stage - 1, m)
    elif m == p:
        warmup = total  # Megatron runs every forward first when m == p
    else:
        warmup = min((p - stage - 1) * 2 + (v - 1) * p, total)
    order = [chunk_op("F", k) for k in range(warmup)]
    for k in range(total - warmup):
        order += [chunk_op("F", warmup + k), chunk_op("B", k)]
    order += [chunk_op("B", k) for k in range(total - warmup, total)]
    return order


def schedule_timeline(
    stages: int,
    microbatches: int,
    schedule: str = "1f1b",
    interleave: int = 1,
    forward_s: float = 1.0,
    backward_s: float = 2.0,
) -> list[TimelineEvent]:
    """Per-stage start/end of every pass: schedules of Narayanan et al. 2021 §2.2, Figures 3–4."""
    _validate(stages, microbatches, interleave, schedule)
    tf = check_real("forward_s", forward_s, positive=True)
    tb = check_real("backward_s", backward_s, positive=True)
    p, m, v = stages, microbatches, interleave
    if 2 * p * m * v > MAX_TIMELINE_EVENTS:
        raise FieldError(
            "microbatches",
            f"stages × microbatches × interleave must be at most "
            f"{MAX_TIMELINE_EVENTS // 2} to draw a timeline",
        )
    orders = [_stage_order(s, p, m, v, schedule) for s in range(p)]
    done: dict[tuple[str, int, int], float] = {}  # (kind, virtual stage, microbatch) → end
    cursor = [0] * p
    free_at = [0.0] * p
    events: list[TimelineEvent] = []
    last_virtual = p * v - 1
    while len(events) < 2 * p * m * v:
        progressed = False
        for s in range(p):
            while cursor[s] < len(orders[s]):
                kind, mb, chunk = orders[s][cursor[s]]
                vs = chunk * p + s  # chunk c of stage s is virtual stage c·p + s
                if kind == "F":
                    dep = ("F", vs - 1, mb) if vs > 0 else None
                else:
                    dep = ("B", vs + 1, mb) if vs < last_virtual else ("F", vs, mb)
                if dep is not None and dep not in done:
                    break
                start = max(free_at[s], done[dep] if dep else 0.0)
                end = start + (tf if kind == "F" else tb) / v
                done[(kind, vs, mb)] = end
                free_at[s] = end
                name = "forward" if kind == "F" else "backward"
                events.append(TimelineEvent(s, start, end, name, mb, chunk))
                cursor[s] += 1
                progressed = True
        if not progressed:  # pragma: no cover - the orders above never deadlock
            raise RuntimeError("pipeline schedule deadlocked")
    return sorted(events, key=lambda e: (e.stage, e.start))


def timeline_bubble_fraction(events: list[TimelineEvent], stages: int) -> float:
    """Idle time over busy time per stage, read off a timeline: Narayanan et al. 2021 §2.2.1."""
    makespan = max(e.end for e in events)
    busy = sum(e.end - e.start for e in events) / stages
    return (makespan - busy) / busy


def _notes(schedule: str) -> list[str]:
    """Where the numbers come from and what the model leaves out (module docstring)."""
    return [
        "Narayanan et al. 2021 §2.2: equal stages, a backward pass twice a forward, "
        + ("v model chunks per stage; " if schedule == "interleaved" else "")
        + "the bubble counted against ideal compute and against the whole step.",
        "Left out: pipeline send/receive time, uneven stages (embedding and output layers), "
        "zero-bubble and DualPipe schedules, and the data-parallel reduction after the last "
        "microbatch.",
    ]

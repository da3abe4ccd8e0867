"""app.labs.pipeline against Megatron-LM (Narayanan et al. 2021, arXiv 2104.04473, §2.2)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.labs.pipeline import (
    TimelineEvent,
    pipeline,
    schedule_timeline,
    timeline_bubble_fraction,
)


def test_gpipe_bubble() -> None:
    """Narayanan 2021 §2.2.1: bubble fraction (p−1)/m; p = 4, m = 8 → 3/8; share 3/11."""
    result = pipeline(4, 8, "gpipe")
    assert result.bubble_fraction == pytest.approx(3 / 8)
    assert result.bubble_share == pytest.approx(3 / 11)
    assert result.first_stage_inflight_microbatches == 8


def test_1f1b_has_the_same_bubble_as_gpipe() -> None:
    """Narayanan 2021 §2.2.1: 1F1B keeps the bubble, cuts in-flight microbatches from m to p."""
    gpipe, one = pipeline(8, 32, "gpipe"), pipeline(8, 32, "1f1b")
    assert one.bubble_fraction == gpipe.bubble_fraction == pytest.approx(7 / 32)
    assert (gpipe.first_stage_inflight_microbatches, one.first_stage_inflight_microbatches) == (
        32,
        8,
    )
    assert pipeline(8, 4, "1f1b").first_stage_inflight_microbatches == 4  # min(p, m)


def test_interleaved_bubble() -> None:
    """Narayanan 2021 §2.2.2: interleaving v chunks divides the bubble by v: (p−1)/(v·m)."""
    result = pipeline(4, 8, "interleaved", interleave=2)
    assert result.bubble_fraction == pytest.approx(3 / 16)
    assert result.bubble_share == pytest.approx(3 / 19)


def test_interleaved_inflight_matches_korthikanti_factor() -> None:
    """Megatron warm-up 2(p−1) + (v−1)p + 1 chunks → p(1 + (p−1)/(pv)), Korthikanti §4.2.3."""
    p, v = 8, 2
    result = pipeline(p, 16, "interleaved", interleave=v)
    assert result.first_stage_inflight_microbatches == pytest.approx(p * (1 + (p - 1) / (p * v)))
    assert pipeline(4, 4, "interleaved", interleave=3).first_stage_inflight_microbatches == 4


@pytest.mark.parametrize("schedule", ["gpipe", "1f1b"])
def test_timeline_makespan(schedule: str) -> None:
    """Narayanan 2021 Figures 3–4: p = 4, m = 8, t_f = 1, t_b = 2 ends at (m + p − 1)·3 = 33."""
    events = schedule_timeline(4, 8, schedule)
    assert max(e.end for e in events) == pytest.approx(33.0)
    assert len(events) == 2 * 4 * 8
    assert timeline_bubble_fraction(events, 4) == pytest.approx(3 / 8)


def test_1f1b_timeline_first_stage_order() -> None:
    """1F1B (PipeDream-Flush): stage 0 warms up with p−1 forwards, then alternates F and B."""
    events = [e for e in schedule_timeline(4, 6, "1f1b") if e.stage == 0]
    kinds = "".join(e.kind[0].upper() for e in events)
    assert kinds == "FFF" + "FB" * 3 + "BBB"


def test_timeline_respects_dependencies() -> None:
    """Each forward follows the previous stage's; each backward the next stage's (§2.2)."""
    events = schedule_timeline(3, 6, "interleaved", interleave=2)
    done = {(e.kind, e.stage, e.chunk, e.microbatch): e for e in events}
    for e in events:
        virtual = e.chunk * 3 + e.stage
        if e.kind == "forward" and virtual > 0:
            prev = done[("forward", (virtual - 1) % 3, (virtual - 1) // 3, e.microbatch)]
            assert prev.end <= e.start
        if e.kind == "backward" and virtual < 5:
            nxt = done[("backward", (virtual + 1) % 3, (virtual + 1) // 3, e.microbatch)]
            assert nxt.end <= e.start


def _peak_inflight(events: list[TimelineEvent], v: int) -> float:
    """Most chunk-microbatches stage 0 holds (forward started, backward not done), over v."""
    marks = sorted(
        (e.start, 1) if e.kind == "forward" else (e.end, -1) for e in events if e.stage == 0
    )
    live = peak = 0
    for _, delta in marks:
        live += delta
        peak = max(peak, live)
    return peak / v


@settings(max_examples=60, deadline=None)
@given(
    p=st.integers(1, 8),
    groups=st.integers(1, 4),
    schedule=st.sampled_from(["gpipe", "1f1b", "interleaved"]),
    v=st.integers(2, 3),
    tf=st.sampled_from([1.0, 1.5]),
    tb=st.sampled_from([1.0, 2.0, 3.0]),
)
def test_timeline_agrees_with_closed_forms(
    p: int, groups: int, schedule: str, v: int, tf: float, tb: float
) -> None:
    """The simulated schedule reproduces §2.2's bubble and the in-flight counts exactly."""
    m = p * groups
    v = v if schedule == "interleaved" else 1
    result = pipeline(p, m, schedule, v)
    events = schedule_timeline(p, m, schedule, v, tf, tb)
    assert timeline_bubble_fraction(events, p) == pytest.approx(result.bubble_fraction)
    assert _peak_inflight(events, v) == pytest.approx(result.first_stage_inflight_microbatches)


@settings(max_examples=100, deadline=None)
@given(p=st.integers(1, 128), m=st.integers(1, 4096))
def test_bubble_share_is_fraction_over_one_plus_fraction(p: int, m: int) -> None:
    """share = bubble/(ideal + bubble) = f/(1 + f), in [0, 1) (Narayanan 2021 §2.2.1)."""
    result = pipeline(p, m, "1f1b")
    f = result.bubble_fraction
    assert result.bubble_share == pytest.approx(f / (1 + f))
    assert 0 <= result.bubble_share < 1


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ((0, 8, "1f1b"), "stages"),
        ((4, 0, "1f1b"), "microbatches"),
        ((4, 8, "zb-v"), "schedule"),
        ((4, 8, "1f1b", 2), "interleave"),
        ((4, 8, "gpipe", 0), "interleave"),
        ((4, 8, "interleaved", 1), "interleave"),
        ((4, 6, "interleaved", 2), "microbatches"),
        ((4.0, 8, "1f1b"), "stages"),
    ],
)
def test_invalid_inputs_name_the_field(args: tuple[object, ...], field: str) -> None:
    """Errors start with the field name, for the web layer's 422 (no source: API contract)."""
    with pytest.raises(ValueError, match=rf"^{field}: "):
        pipeline(*args)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=rf"^{field}: "):
        schedule_timeline(*args)  # type: ignore[arg-type]


def test_timeline_validates_durations_and_size() -> None:
    """Timeline-only inputs name their fields too (no source: API contract)."""
    with pytest.raises(ValueError, match="^forward_s: "):
        schedule_timeline(2, 2, "1f1b", forward_s=0)
    with pytest.raises(ValueError, match="^microbatches: "):
        schedule_timeline(64, 4096, "1f1b")

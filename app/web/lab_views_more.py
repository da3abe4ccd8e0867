"""What the collectives, pipeline, checkpoint and MoE lab pages show (see lab_views)."""

import math

from app.charts import svg
from app.labs import Step, checkpoint, collectives, moe, pipeline
from app.web import lab_format as fmt
from app.web.lab_views import Context, Values, render_steps

TIMELINE_LIMIT = 512  # stages × microbatches × chunks drawn; beyond it the boxes are unreadable
SIM_TOKENS_TOP1 = 250_000  # simulated tokens for top-1 routing, about 0.1 s
SIM_WORK_TOPK = 200_000  # tokens × experts for top-k > 1, about 0.07 s
COLUMN_LIMIT = 256  # experts drawn one column each
MAX_CHECKPOINT_PER_MTBF = 100  # a longer checkpoint never completes between failures


def collectives_view(values: Values) -> Context:
    n, alpha, bw = values["ranks"], values["alpha_s"], values["bandwidth_Bps"]
    size = values["bytes"]
    result = collectives.collective(values["op"], values["algorithm"], n, size, alpha, bw)
    cross = collectives.crossover_bytes(n, alpha, bw)
    context: Context = {
        "rows": [
            ("Bytes sent per rank", fmt.nbytes_both(result.bytes_sent_per_rank)),
            ("Latency term", fmt.seconds(result.latency_term_s)),
            ("Bandwidth term", fmt.seconds(result.bandwidth_term_s)),
            ("Time", fmt.seconds(result.time_s)),
            ("Algorithm bandwidth (size ÷ time)", fmt.rate(result.algbw_Bps)),
            ("Bus bandwidth factor", fmt.sig(result.busbw_factor, 4)),
            ("Bus bandwidth (what nccl-tests reports)", fmt.rate(result.busbw_Bps)),
        ],
        "steps": render_steps(result.steps),
        "crossover": cross,
        "crossover_text": fmt.nbytes(cross),
        "chart": None,
    }
    if n == 1:
        return context
    top = max(size, cross) * 4
    exponents = range(3, min(max(34, math.ceil(math.log2(top)) + 1), 60))
    curve = collectives.allreduce_curve(n, alpha, bw, [float(2**e) for e in exponents])
    marks = [svg.Mark(f"Your message, {fmt.nbytes(size)}", size, "ch-mark-2")]
    if cross > 0:
        marks.insert(0, svg.Mark(f"Crossover, {fmt.nbytes(cross)}", cross))
    context["chart"] = svg.line_chart(
        [
            svg.Series("Ring", [(p.bytes, p.ring_s) for p in curve], "c1"),
            svg.Series("Tree", [(p.bytes, p.tree_s) for p in curve], "c2"),
        ],
        chart_id="collectives-chart",
        title=f"All-reduce time against message size, {n:,} ranks",
        desc=f"Log-log plot of ring and tree all-reduce time from {fmt.nbytes(curve[0].bytes)} "
        f"to {fmt.nbytes(curve[-1].bytes)}; "
        + (f"the lines cross at {fmt.nbytes(cross)}." if cross else "the ring is never slower."),
        x_label="message size",
        y_label="time",
        fmt_x=fmt.axis_bytes,
        fmt_y=fmt.axis_seconds,
        log_x=True,
        log_y=True,
        marks=marks,
    )
    return context


def pipeline_view(values: Values) -> Context:
    p, m, v = values["stages"], values["microbatches"], values["interleave"]
    schedule = values["schedule"]
    result = pipeline.pipeline(p, m, schedule, v)
    context: Context = {
        "rows": [
            ("Bubble, as a share of ideal compute", fmt.percent(result.bubble_fraction)),
            ("Bubble, as a share of the whole step", fmt.percent(result.bubble_share)),
            (
                "Microbatches held by stage 1 at its peak",
                fmt.sig(result.first_stage_inflight_microbatches, 4),
            ),
        ],
        "steps": render_steps(result.steps),
        "chart": None,
        "measured": None,
        "limit": TIMELINE_LIMIT,
    }
    if p * m * v > TIMELINE_LIMIT:
        return context
    events = pipeline.schedule_timeline(p, m, schedule, v)
    shade = v > 1
    blocks = [
        svg.Block(
            e.stage,
            e.start,
            e.end,
            f"{'fwd' if e.kind == 'forward' else 'bwd'} k{e.chunk % 2 if shade else 0}",
            str(e.microbatch + 1),
        )
        for e in events
    ]
    legend = [("forward", "fwd k0"), ("backward", "bwd k0")]
    if shade:
        legend = [
            ("forward, odd chunks", "fwd k0"),
            ("forward, even chunks", "fwd k1"),
            ("backward, odd chunks", "bwd k0"),
            ("backward, even chunks", "bwd k1"),
        ]
    measured = pipeline.timeline_bubble_fraction(events, p)
    end = svg.blocks_end(blocks)
    context["measured"] = fmt.percent(measured)
    context["chart"] = svg.timeline(
        blocks,
        [f"Stage {s + 1}" for s in range(p)],
        chart_id="pipeline-chart",
        title=f"{schedule.upper()} schedule, {p} stages, {m} microbatches",
        desc=f"Each stage's forward and backward passes over time, numbered by microbatch; the "
        f"step takes {fmt.sig(end)} forward-pass times and each stage idles "
        f"{fmt.percent(measured)} of its busy time.",
        x_label="time, in forward passes (a backward pass takes 2)",
        legend=legend,
    )
    return context


def _mtbf_step(values: Values, mtbf: float) -> Step:
    n, days = values["interruptions"], values["days"]
    logged, gpus = values["log_gpus"], values["gpus"]
    return Step(
        "Cluster MTBF from the failure log, scaled to your GPU count",
        r"M = \frac{\text{days} \times 86400}{\text{interruptions}} \times "
        r"\frac{\text{GPUs in log}}{\text{your GPUs}}",
        rf"\frac{{{fmt.sig(days, 4)} \times 86400}}{{{n}}} \times \frac{{{logged}}}{{{gpus}}}",
        mtbf,
        "s",
    )


def bounded_checkpoint(
    checkpoint_cost_s: float, mtbf_s: float, restart_cost_s: float = 0.0
) -> checkpoint.CheckpointResult:
    """checkpoint.checkpoint, refusing a checkpoint longer than 100 MTBFs: the waste model's
    exponentials overflow near 700, and long before that no run makes progress."""
    if checkpoint_cost_s > MAX_CHECKPOINT_PER_MTBF * mtbf_s:
        raise ValueError(
            f"checkpoint_cost_s: must be at most {MAX_CHECKPOINT_PER_MTBF} × the time between "
            "failures"
        )
    return checkpoint.checkpoint(checkpoint_cost_s, mtbf_s, restart_cost_s)


def checkpoint_view(values: Values) -> Context:
    cost, restart = values["checkpoint_cost_s"], values["restart_cost_s"]
    mtbf = values["mtbf_s"]
    from_log = mtbf is None
    if mtbf is None:
        mtbf = checkpoint.cluster_mtbf_s(
            values["interruptions"], values["days"], values["log_gpus"], values["gpus"]
        )
    result = bounded_checkpoint(cost, mtbf, restart)
    steps = ([_mtbf_step(values, mtbf)] if from_log else []) + result.steps
    curve = [(p.interval_s, 100 * p.waste_fraction) for p in result.curve]
    chart = svg.line_chart(
        [svg.Series("Share of time lost", curve, "c1")],
        chart_id="checkpoint-chart",
        title="Time lost against checkpoint interval",
        desc=f"Waste falls, then rises again as the interval grows; Daly's interval of "
        f"{fmt.seconds(result.daly_interval_s)} loses {fmt.percent(result.waste_fraction)}.",
        x_label="checkpoint interval",
        y_label="time lost, %",
        fmt_x=fmt.axis_seconds,
        fmt_y=lambda y: f"{y:g}%",
        log_x=True,
        x_ticks=fmt.time_ticks(curve[0][0], curve[-1][0]),
        marks=[
            svg.Mark(
                f"Young, {fmt.seconds(result.young_interval_s)}",
                result.young_interval_s,
                "ch-mark-2",
            ),
            svg.Mark(f"Daly, {fmt.seconds(result.daly_interval_s)}", result.daly_interval_s),
        ],
    )
    return {
        "from_log": from_log,
        "rows": [
            ("Mean time between failures", fmt.seconds(mtbf)),
            ("Young's interval", fmt.seconds(result.young_interval_s)),
            ("Daly's interval", fmt.seconds(result.daly_interval_s)),
            ("Best interval (exact)", fmt.seconds(result.optimal_interval_s)),
            ("Time lost at Daly's interval", fmt.percent(result.waste_fraction)),
            ("Time lost at Young's interval", fmt.percent(result.young_waste_fraction)),
            ("Time lost per day", fmt.seconds(result.waste_fraction * 86_400)),
        ],
        "steps": render_steps(steps),
        "chart": chart,
    }


def _can_simulate(tokens: int, experts: int, top_k: int) -> bool:
    return tokens <= SIM_TOKENS_TOP1 if top_k == 1 else tokens * experts <= SIM_WORK_TOPK


def _moe_charts(
    loads: list[int], tokens: int, k: int, cf: float, result: moe.MoeResult
) -> list[str]:
    capacity, dropped = result.expert_capacity, result.dropped_tokens or 0
    charts = []
    if len(loads) <= COLUMN_LIMIT:
        charts.append(
            svg.columns(
                loads,
                limit=svg.Mark(f"Capacity, {capacity:,}", capacity),
                chart_id="moe-loads",
                title="Tokens routed to each expert against its capacity",
                desc=f"{len(loads)} experts; the busiest gets {max(loads):,} tokens against a "
                f"capacity of {capacity:,}; {dropped:,} assignments overflow and are dropped.",
                x_label="expert",
                y_label="tokens",
                within_label="kept",
                over_label="dropped",
            )
        )
    curve = moe.drop_curve(loads, tokens, [0.25 * i for i in range(2, 17)], k)
    points = [(p.capacity_factor, 100 * p.drop_fraction) for p in curve]
    charts.append(
        svg.line_chart(
            [svg.Series("Drop fraction", points, "c2")],
            chart_id="moe-drops",
            title="Dropped tokens against capacity factor",
            desc=f"Drop fraction for capacity factors 0.5 to 4 with these routed loads; at "
            f"{fmt.sig(cf)} it is {fmt.percent(result.drop_fraction or 0.0)}.",
            x_label="capacity factor",
            y_label="dropped, %",
            fmt_y=lambda y: f"{y:g}%",
            marks=[svg.Mark(f"Your capacity factor, {fmt.sig(cf)}", cf, "ch-mark-2")],
        )
    )
    return charts


def moe_view(values: Values) -> Context:
    tokens, experts, k = values["tokens"], values["experts"], values["top_k"]
    cf, alpha, skew = values["capacity_factor"], values["aux_alpha"], values["skew"]
    base = moe.moe(tokens, experts, cf, k, aux_alpha=alpha)
    capacity_row = ("Expert capacity", f"{base.expert_capacity:,} tokens")
    if not _can_simulate(tokens, experts, k):
        limit = f"{SIM_TOKENS_TOP1:,} tokens" if k == 1 else f"{SIM_WORK_TOPK:,} tokens × experts"
        steps = render_steps(base.steps)
        return {"rows": [capacity_row], "steps": steps, "simulated": False, "sim_limit": limit}
    loads = moe.simulate_loads(tokens, experts, k, skew)
    weights = [(i + 1) ** -skew for i in range(experts)]
    total = sum(weights)
    probs = [w / total for w in weights]
    result = moe.moe(tokens, experts, cf, k, loads, probs, alpha)
    busiest = max(loads) * experts / (k * tokens)
    rows = [
        capacity_row,
        ("Busiest expert", f"{max(loads):,} tokens ({fmt.sig(busiest)}× an even share)"),
        ("Dropped token assignments", f"{result.dropped_tokens or 0:,}"),
        ("Drop fraction", fmt.percent(result.drop_fraction or 0.0)),
        (
            "Load-balancing loss",
            f"{fmt.sig(result.aux_loss or 0.0, 4)} (even: {fmt.sig(alpha, 4)})",
        ),
    ]
    return {
        "rows": rows,
        "steps": render_steps(result.steps),
        "simulated": True,
        "charts": _moe_charts(loads, tokens, k, cf, result),
    }

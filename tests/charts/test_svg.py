"""The SVG helpers: well-formed, accessible, themed by classes, with the marks they were given."""

import math
import xml.etree.ElementTree as ET

from app.charts import svg

NS = {"s": "http://www.w3.org/2000/svg"}


def parse(markup: str) -> ET.Element:
    root = ET.fromstring(markup)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def with_class(root: ET.Element, name: str, tag: str = "*") -> list[ET.Element]:
    return [
        e
        for e in root.iter()
        if name in (e.get("class") or "").split() and (tag == "*" or e.tag.endswith("}" + tag))
    ]


def assert_accessible(root: ET.Element, chart_id: str, title: str) -> None:
    assert root.get("role") == "img"
    assert root.get("aria-labelledby") == f"{chart_id}-title"
    assert root.get("aria-describedby") == f"{chart_id}-desc"
    found = root.find("s:title", NS)
    assert found is not None and found.get("id") == f"{chart_id}-title" and found.text == title
    desc = root.find("s:desc", NS)
    assert desc is not None and desc.get("id") == f"{chart_id}-desc" and desc.text
    assert root.get("viewBox", "").startswith("0 0 ")
    width, height = root.get("width"), root.get("height")
    assert root.get("viewBox") == f"0 0 {width} {height}"


def no_hard_coded_colours(markup: str) -> None:
    for colour in ("#000", "#fff", "black", "white", 'fill="', 'stroke="'):
        assert colour not in markup


def test_line_chart_draws_each_series_and_mark() -> None:
    markup = svg.line_chart(
        [
            svg.Series("Ring", [(8.0, 1e-5), (1e9, 4e-3)], "c1"),
            svg.Series("Tree", [(8.0, 5e-6), (1e9, 5e-3)], "c2"),
        ],
        chart_id="t",
        title="Time <against> size & more",
        desc="A test chart.",
        x_label="size",
        y_label="time",
        log_x=True,
        log_y=True,
        marks=[svg.Mark("Crossover", 7e7), svg.Mark("Yours", 1e9, "ch-mark-2")],
    )
    root = parse(markup)
    assert_accessible(root, "t", "Time <against> size & more")
    lines = with_class(root, "ch-line", "path")
    assert [e.get("class") for e in lines] == ["ch-line c1", "ch-line c2"]
    assert all(e.get("d", "").startswith("M") and e.get("d", "").count("L") == 1 for e in lines)
    rules = with_class(root, "ch-rule", "line")
    assert len(rules) == 4  # each mark: a legend swatch and the line on the plot
    assert len(with_class(root, "ch-mark-2")) == 2
    legend = with_class(root, "ch-legend")[0]
    texts = [t.text for t in legend.iter("{http://www.w3.org/2000/svg}text")]
    assert texts == ["Ring", "Tree", "Crossover", "Yours"]
    ticks = [
        t.text for t in with_class(root, "ch-axis")[0].iter("{http://www.w3.org/2000/svg}text")
    ]
    assert "1e+08" in ticks and "size" in ticks  # log axis: ticks at whole decades
    no_hard_coded_colours(markup)


def test_line_chart_points_stay_inside_the_plot() -> None:
    markup = svg.line_chart(
        [svg.Series("Waste", [(100.0, 40.0), (1000.0, 15.0), (10_000.0, 45.0)], "c1")],
        chart_id="w",
        title="Waste",
        desc="d",
        x_label="interval",
        y_label="%",
        log_x=True,
        x_ticks=[120.0, 600.0, 3600.0],
    )
    root = parse(markup)
    width = float(root.get("width", "0"))
    path = with_class(root, "ch-line", "path")[0].get("d", "")
    xs = [float(part.split()[0]) for part in path.replace("M", "L").split("L") if part]
    assert all(0 < x < width for x in xs) and xs == sorted(xs)
    axis_texts = [t.text for t in with_class(root, "ch-axis")[0].iter() if t.tag.endswith("text")]
    assert axis_texts[:3] == ["120", "600", "3600"]


def test_line_chart_survives_zeros_infinities_and_no_series() -> None:
    parse(
        svg.line_chart(
            [svg.Series("z", [(0.0, 0.0), (1.0, math.inf)], "c1")],
            chart_id="z",
            title="z",
            desc="z",
            x_label="",
            y_label="",
            log_x=True,
            log_y=True,
        )
    )
    parse(svg.line_chart([], chart_id="e", title="e", desc="e", x_label="", y_label=""))


def test_stacked_bars_one_rect_per_segment() -> None:
    bars = [
        svg.Bar(
            f"ZeRO-{stage}",
            [
                svg.Segment("Weights", 2.0, "c1"),
                svg.Segment("Gradients", 2.0, "c2"),
                svg.Segment("Optimizer", 12.0 / (stage + 1), "c3"),
            ],
            highlight=stage == 1,
        )
        for stage in range(4)
    ]
    root = parse(
        svg.stacked_bars(
            bars,
            chart_id="m",
            title="Memory",
            desc="d",
            marks=[svg.Mark("GPU memory", 10.0)],
            x_label="bytes",
        )
    )
    assert_accessible(root, "m", "Memory")
    segments = with_class(root, "ch-seg", "rect")
    assert len(segments) == 12
    assert segments[0].find("s:title", NS) is not None  # a tooltip names the part and its size
    assert len(with_class(root, "ch-swatch", "rect")) == 3  # legend: one swatch per kind
    assert len(with_class(root, "ch-strong")) == 1
    widths = [float(s.get("width", "0")) for s in segments[:3]]
    assert widths[2] == max(widths)


def test_columns_split_overflow_above_the_limit() -> None:
    root = parse(
        svg.columns(
            [100, 150, 80, 120],
            limit=svg.Mark("Capacity", 110),
            chart_id="c",
            title="Loads",
            desc="d",
            x_label="expert",
            y_label="tokens",
            within_label="kept",
            over_label="dropped",
        )
    )
    assert_accessible(root, "c", "Loads")
    assert len(with_class(root, "ch-col", "rect")) == 4 + 2
    assert len(with_class(root, "ch-over", "rect")) == 2 + 1  # two columns and the legend
    assert len(with_class(root, "ch-rule", "line")) == 2


def test_timeline_draws_lanes_blocks_and_numbers_that_fit() -> None:
    blocks = [
        svg.Block(0, 0.0, 1.0, "fwd k0", "1"),
        svg.Block(1, 1.0, 2.0, "fwd k0", "1"),
        svg.Block(1, 2.0, 4.0, "bwd k0", "1"),
        svg.Block(0, 4.0, 4.01, "bwd k0", "1"),
    ]
    root = parse(
        svg.timeline(
            blocks,
            ["Stage 1", "Stage 2"],
            chart_id="p",
            title="Schedule",
            desc="d",
            x_label="time",
            legend=[("forward", "fwd k0"), ("backward", "bwd k0")],
        )
    )
    assert_accessible(root, "p", "Schedule")
    assert len(with_class(root, "ch-block", "rect")) == 4
    assert len(with_class(root, "ch-lane", "rect")) == 2 + 1  # two lanes and the "idle" swatch
    assert len(with_class(root, "ch-block-text", "text")) == 3  # the sliver has no room for "1"
    assert svg.blocks_end(blocks) == 4.01 and svg.blocks_end([]) == 0.0

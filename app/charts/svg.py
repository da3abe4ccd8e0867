"""SVG charts as strings: lines, stacked bars, columns against a limit, and a timeline.

Colours come from CSS classes (the caller's `css` names and this module's `ch-*`), text from
currentColor, so one chart reads in light and dark themes. Every chart has role="img", a
<title> and a <desc>, and width/height attributes that CSS scales down with the viewBox.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

Fmt = Callable[[float], str]
FONT = 13  # text size in viewBox units
CHAR = 0.62 * FONT  # rough advance of one character, to lay out legends and labels
RIGHT = 34  # room on the right for the last tick label


@dataclass(frozen=True)
class Series:
    """A line through `points` (x, y), coloured by the CSS class `css`."""

    label: str
    points: Sequence[tuple[float, float]]
    css: str


@dataclass(frozen=True)
class Mark:
    """A labelled reference line at `value`: vertical on a line chart, else along the value axis."""

    label: str
    value: float
    css: str = "ch-mark"


@dataclass(frozen=True)
class Segment:
    """One part of a stacked bar."""

    label: str
    value: float
    css: str


@dataclass(frozen=True)
class Bar:
    """A stacked bar: its segments left to right; `highlight` makes its label bold."""

    label: str
    segments: Sequence[Segment]
    highlight: bool = False


@dataclass(frozen=True)
class Block:
    """One box of a timeline: lane `row`, from `start` to `end`, with optional text inside."""

    row: int
    start: float
    end: float
    css: str
    text: str = ""


def _n(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _plain(value: float) -> str:
    return f"{value:g}"


@dataclass(frozen=True)
class _Scale:
    """Data → pixels, linear or log10, with the tick positions of its axis."""

    lo: float
    hi: float
    a: float
    b: float
    log: bool = False
    step: float = 1.0
    fixed: tuple[float, ...] = ()  # tick positions chosen by the caller

    def __call__(self, value: float) -> float:
        lo, hi = self.lo, self.hi
        if self.log:
            lo, hi, value = math.log10(lo), math.log10(hi), math.log10(max(value, self.lo))
        return self.a + (value - lo) / (hi - lo) * (self.b - self.a)

    def ticks(self) -> list[float]:
        if self.fixed:
            return list(self.fixed)
        if self.log:
            first, last = round(math.log10(self.lo)), round(math.log10(self.hi))
            stride = max(1, math.ceil((last - first) / 6))
            return [10.0**e for e in range(first, last + 1, stride)]
        count = math.floor((self.hi - self.lo) / self.step + 1e-9)
        return [round(self.lo + k * self.step, 12) for k in range(count + 1)]


def _fit(
    values: Sequence[float],
    a: float,
    b: float,
    log: bool = False,
    ticks: Sequence[float] = (),
    exact: bool = False,
) -> _Scale:
    """A scale covering `values`: whole decades (log) or round steps from 0 (linear).

    With `ticks` (at least two) the domain is exactly the data and ticks; `exact` ends a linear
    domain at the largest value instead of the next round step.
    """
    if len(ticks) >= 2:
        both = [v for v in [*values, *ticks] if 0 < v < math.inf or not log]
        return _Scale(min(both), max(both), a, b, log=log, fixed=tuple(ticks))
    if log:
        positive = [v for v in values if 0 < v < math.inf] or [1.0]
        lo = 10.0 ** math.floor(math.log10(min(positive)))
        hi = 10.0 ** math.ceil(math.log10(max(positive)))
        return _Scale(lo, hi if hi > lo else lo * 10, a, b, log=True)
    finite = [v for v in values if math.isfinite(v)]
    lo, hi = min([0.0, *finite]), max([0.0, *finite])
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / 5
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if raw <= m * power * (1 + 1e-9))
    top = hi if exact else math.ceil(hi / step - 1e-9) * step
    return _Scale(math.floor(lo / step) * step, top, a, b, step=step)


def _open(chart_id: str, kind: str, width: float, height: float, title: str, desc: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart chart-{kind}" '
        f'width="{_n(width)}" height="{_n(height)}" viewBox="0 0 {_n(width)} {_n(height)}" '
        f'role="img" aria-labelledby="{chart_id}-title" aria-describedby="{chart_id}-desc" '
        f'font-size="{FONT}">'
        f'<title id="{chart_id}-title">{escape(title)}</title>'
        f'<desc id="{chart_id}-desc">{escape(desc)}</desc>'
    )


def _text(x: float, y: float, text: str, anchor: str = "start", css: str = "ch-label") -> str:
    return (
        f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="{anchor}" class="{css}">{escape(text)}</text>'
    )


def _line(x1: float, y1: float, x2: float, y2: float, css: str) -> str:
    return f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" class="{css}"/>'


def _rect(x: float, y: float, w: float, h: float, css: str, tip: str = "") -> str:
    title = f"<title>{escape(tip)}</title>" if tip else ""
    return (
        f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(max(w, 0.0))}" height="{_n(max(h, 0.0))}" '
        f'class="{css}">{title}</rect>'
    )


def _legend(items: Sequence[tuple[str, str, str]], width: float) -> tuple[str, float]:
    """Swatches (kind "line", "dash" or "box") and labels, wrapped to `width`; (svg, height)."""
    parts, x, y = ['<g class="ch-legend">'], 12.0, 16.0
    for label, css, kind in items:
        needed = 22 + len(label) * CHAR + 16
        if x > 12 and x + needed > width:
            x, y = 12.0, y + 20
        if kind == "box":
            parts.append(_rect(x, y - 10, 14, 12, f"ch-swatch {css}"))
        else:
            parts.append(
                _line(
                    x, y - 4, x + 16, y - 4, f"{'ch-rule' if kind == 'dash' else 'ch-line'} {css}"
                )
            )
        parts.append(_text(x + 22, y, label))
        x += needed
    parts.append("</g>")
    return "".join(parts), y + 8


def _x_axis(x: _Scale, fmt: Fmt, top: float, bottom: float, label: str) -> str:
    parts = ['<g class="ch-axis">']
    for tick in x.ticks():
        parts.append(_line(x(tick), top, x(tick), bottom, "ch-grid"))
        parts.append(_text(x(tick), bottom + 17, fmt(tick), "middle"))
    parts.append(_line(x.a, bottom, x.b, bottom, "ch-axis-line"))
    if label:
        parts.append(_text((x.a + x.b) / 2, bottom + 36, label, "middle", "ch-axis-title"))
    return "".join(parts) + "</g>"


def _y_axis(y: _Scale, fmt: Fmt, left: float, right: float, label: str) -> str:
    parts = ['<g class="ch-axis">']
    for tick in y.ticks():
        parts.append(_line(left, y(tick), right, y(tick), "ch-grid"))
        parts.append(_text(left - 6, y(tick) + 4, fmt(tick), "end"))
    parts.append(_line(left, y.a, left, y.b, "ch-axis-line"))
    if label:
        parts.append(_text(12, y.b - 12, label, "start", "ch-axis-title"))
    return "".join(parts) + "</g>"


def line_chart(
    series: Sequence[Series],
    *,
    chart_id: str,
    title: str,
    desc: str,
    x_label: str,
    y_label: str,
    fmt_x: Fmt = _plain,
    fmt_y: Fmt = _plain,
    log_x: bool = False,
    log_y: bool = False,
    x_ticks: Sequence[float] = (),
    marks: Sequence[Mark] = (),
    width: float = 420,
    height: float = 340,
) -> str:
    """Lines over a shared x axis, with dashed vertical `marks` named in the legend."""
    items = [(s.label, s.css, "line") for s in series] + [(m.label, m.css, "dash") for m in marks]
    legend, legend_height = _legend(items, width)
    left, right, top, bottom = 68.0, width - RIGHT, legend_height + 26, height - 46
    xs = [p[0] for s in series for p in s.points] + [m.value for m in marks]
    x = _fit(xs, left, right, log_x, x_ticks)
    y = _fit([p[1] for s in series for p in s.points], bottom, top, log_y)
    parts = [_open(chart_id, "line", width, height, title, desc), legend]
    parts += [_x_axis(x, fmt_x, top, bottom, x_label), _y_axis(y, fmt_y, left, right, y_label)]
    for s in series:
        d = " ".join(
            f"{'L' if i else 'M'}{_n(x(a))} {_n(y(b))}" for i, (a, b) in enumerate(s.points)
        )
        title_tag = f"<title>{escape(s.label)}</title>"
        parts.append(f'<path d="{d}" class="ch-line {s.css}">{title_tag}</path>')
    for m in marks:
        parts.append(_line(x(m.value), top, x(m.value), bottom, f"ch-rule {m.css}"))
    return "".join(parts) + "</svg>"


def stacked_bars(
    bars: Sequence[Bar],
    *,
    chart_id: str,
    title: str,
    desc: str,
    fmt: Fmt = _plain,
    marks: Sequence[Mark] = (),
    x_label: str = "",
    width: float = 420,
) -> str:
    """Horizontal stacked bars, one per row, with dashed vertical `marks` (e.g. GPU memory)."""
    kinds = list({(s.label, s.css): None for b in bars for s in b.segments})
    items = [(label, css, "box") for label, css in kinds]
    legend, legend_height = _legend(items + [(m.label, m.css, "dash") for m in marks], width)
    left = min(max(max((len(b.label) for b in bars), default=4) * CHAR + 14, 64), width / 3)
    row, gap, top = 26.0, 12.0, legend_height + 10
    bottom = top + len(bars) * (row + gap)
    height = bottom + 46
    totals = [sum(s.value for s in b.segments) for b in bars] + [m.value for m in marks]
    x = _fit(totals, left, width - RIGHT)
    parts = [_open(chart_id, "bars", width, height, title, desc), legend]
    parts.append(_x_axis(x, fmt, top, bottom, x_label))
    for i, bar in enumerate(bars):
        y0 = top + gap / 2 + i * (row + gap)
        css = "ch-bar-label ch-strong" if bar.highlight else "ch-bar-label"
        parts.append(_text(left - 8, y0 + row / 2 + 4, bar.label, "end", css))
        start = 0.0
        for seg in bar.segments:
            tip = f"{bar.label}, {seg.label}: {fmt(seg.value)}"
            w = x(start + seg.value) - x(start)
            parts.append(_rect(x(start), y0, w, row, f"ch-seg {seg.css}", tip))
            start += seg.value
    for m in marks:
        parts.append(_line(x(m.value), top, x(m.value), bottom, f"ch-rule {m.css}"))
    return "".join(parts) + "</svg>"


def columns(
    values: Sequence[float],
    *,
    limit: Mark,
    chart_id: str,
    title: str,
    desc: str,
    x_label: str,
    y_label: str,
    within_label: str,
    over_label: str,
    fmt_y: Fmt = _plain,
    width: float = 420,
    height: float = 300,
) -> str:
    """One column per value; the part above `limit` is drawn as overflow (class `over`)."""
    items = [(within_label, "ch-kept", "box"), (over_label, "ch-over", "box")]
    legend, legend_height = _legend(items + [(limit.label, limit.css, "dash")], width)
    left, right, top, bottom = 68.0, width - RIGHT, legend_height + 26, height - 46
    y = _fit([*values, limit.value], bottom, top)
    band = (right - left) / max(len(values), 1)
    every = max(1, math.ceil(len(values) / 12))
    parts = [_open(chart_id, "columns", width, height, title, desc), legend]
    parts.append(_y_axis(y, fmt_y, left, right, y_label))
    for i, value in enumerate(values):
        x0 = left + i * band + band * 0.1
        kept = min(value, limit.value)
        tip, w = f"{i + 1}: {fmt_y(value)}", band * 0.8
        parts.append(_rect(x0, y(kept), w, y(0) - y(kept), "ch-col ch-kept", tip))
        if value > limit.value:
            parts.append(_rect(x0, y(value), w, y(kept) - y(value), "ch-col ch-over"))
        if i % every == 0:
            parts.append(_text(x0 + band * 0.4, bottom + 17, str(i + 1), "middle"))
    parts.append(_line(left, bottom, right, bottom, "ch-axis-line"))
    parts.append(_text((left + right) / 2, bottom + 36, x_label, "middle", "ch-axis-title"))
    parts.append(_line(left, y(limit.value), right, y(limit.value), f"ch-rule {limit.css}"))
    return "".join(parts) + "</svg>"


def timeline(
    blocks: Sequence[Block],
    rows: Sequence[str],
    *,
    chart_id: str,
    title: str,
    desc: str,
    x_label: str,
    legend: Sequence[tuple[str, str]],
    fmt_x: Fmt = _plain,
    width: float = 720,
) -> str:
    """Lanes of boxes over time; the lane background shows where a row sits idle."""
    items = [(label, css, "box") for label, css in legend] + [("idle", "ch-lane", "box")]
    svg_legend, legend_height = _legend(items, width)
    left = min(max(max((len(r) for r in rows), default=4) * CHAR + 14, 56), width / 4)
    lane, gap, top = 24.0, 6.0, legend_height + 10
    bottom = top + len(rows) * (lane + gap)
    x = _fit([b.end for b in blocks] or [1.0], left, width - RIGHT, exact=True)
    parts = [_open(chart_id, "timeline", width, bottom + 46, title, desc), svg_legend]
    parts.append(_x_axis(x, fmt_x, top, bottom, x_label))
    for r, name in enumerate(rows):
        y0 = top + gap / 2 + r * (lane + gap)
        parts.append(_text(left - 8, y0 + lane / 2 + 4, name, "end", "ch-bar-label"))
        parts.append(_rect(x.a, y0, x(blocks_end(blocks)) - x.a, lane, "ch-lane"))
    for b in blocks:
        y0 = top + gap / 2 + b.row * (lane + gap)
        w = x(b.end) - x(b.start)
        parts.append(_rect(x(b.start), y0, w, lane, f"ch-block {b.css}", b.text))
        if b.text and w >= len(b.text) * 7 + 4:  # a number only where it fits
            centre = x(b.start) + w / 2
            parts.append(
                _text(centre, y0 + lane / 2 + 4, b.text, "middle", f"ch-block-text {b.css}")
            )
    return "".join(parts) + "</svg>"


def blocks_end(blocks: Sequence[Block]) -> float:
    """When the last block ends (0 for none)."""
    return max((b.end for b in blocks), default=0.0)

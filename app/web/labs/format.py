"""Numbers for people: bytes in GB (with GiB), times from ns to days, rates in GB/s.

A number and its unit are joined by a no-break space, so a line never ends between them.
"""

import math

_DECIMAL = ((1e15, "PB"), (1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB"))
_BINARY = ((2.0**50, "PiB"), (2.0**40, "TiB"), (2.0**30, "GiB"), (2.0**20, "MiB"), (2.0**10, "KiB"))
_TIMES = ((86_400.0, "days"), (3600.0, "h"), (60.0, "min"), (1.0, "s"))
_SMALL_TIMES = ((1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))
_WORDS = ((1e12, "trillion"), (1e9, "billion"), (1e6, "million"))


def sig(value: float, digits: int = 3) -> str:
    """`value` to about `digits` significant digits, with thousands separators: 1,235 or 0.0123."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    if abs(value) < 1e-4:
        return f"{value:.{digits - 1}e}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    text = f"{value:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _scaled(value: float, units: tuple[tuple[float, str], ...], base: str) -> str:
    for scale, name in units:
        if abs(value) >= scale:
            return f"{sig(value / scale)}\u00a0{name}"
    return f"{sig(value)}\u00a0{base}"


def nbytes(value: float) -> str:
    """Decimal units (1 GB = 10⁹ B), as GPU datasheets and nccl-tests count."""
    return _scaled(value, _DECIMAL, "B")


def nbytes_both(value: float) -> str:
    """Decimal, then binary in brackets when they differ: 80 GB (74.5 GiB)."""
    if abs(value) < 1e3:
        return nbytes(value)
    return f"{nbytes(value)} ({_scaled(value, _BINARY, 'B')})"


def seconds(value: float) -> str:
    if value == 0:
        return "0\u00a0s"
    if abs(value) >= 120:
        for scale, name in _TIMES[:-1]:
            if abs(value) >= 2 * scale:
                return f"{sig(value / scale)}\u00a0{name}"
    if abs(value) >= 1:
        return f"{sig(value)}\u00a0s"
    for scale, name in _SMALL_TIMES:
        if abs(value) >= scale:
            return f"{sig(value / scale)}\u00a0{name}"
    return f"{sig(value)}\u00a0s"


def rate(value: float) -> str:
    """Bytes per second in decimal units: 450 GB/s."""
    return nbytes(value) + "/s"


def count(value: float) -> str:
    """A count in words when large: 70 billion, 4,096."""
    for scale, name in _WORDS:
        if abs(value) >= scale:
            return f"{sig(value / scale)}\u00a0{name}"
    return sig(value, 4) if value != int(value) else f"{int(value):,}"


def percent(fraction: float) -> str:
    return f"{sig(100 * fraction)}%"


def flops(value: float) -> str:
    for scale, name in ((1e15, "PFLOP/s"), (1e12, "TFLOP/s"), (1e9, "GFLOP/s")):
        if abs(value) >= scale:
            return f"{sig(value / scale)}\u00a0{name}"
    return f"{sig(value)} FLOP/s"


def by_unit(value: float, unit: str) -> str:
    """A lab result in its unit ("B", "s", "B/s" or "" for a number), the way people read it."""
    if unit == "B":
        return nbytes_both(value)
    if unit == "s":
        return seconds(value)
    if unit == "B/s":
        return rate(value)
    return count(value)


axis_bytes = nbytes  # chart tick labels: 1 kB, 10 MB, 1 GB
axis_seconds = seconds


_NICE_TIMES = (
    0.001, 0.01, 0.1, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800,
    21_600, 43_200, 86_400, 172_800, 604_800, 2_592_000,
)  # fmt: skip


def time_ticks(lo: float, hi: float, most: int = 6) -> list[float]:
    """Round times (1 min, 10 min, 1 h…) between `lo` and `hi` for a log axis, at most `most`."""
    inside = [float(t) for t in _NICE_TIMES if lo <= t <= hi]
    return inside[:: math.ceil(len(inside) / most)] if len(inside) >= 2 else []

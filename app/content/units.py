"""Units a numeric card may use, each as a dimension and a factor to the SI base unit.

Decimal prefixes are powers of 10 (1 GB = 10⁹ B) and binary ones powers of 2 (1 GiB = 2³⁰ B),
so an answer typed in GiB is converted, not confused with GB.
"""

from typing import NamedTuple


class Unit(NamedTuple):
    dimension: str
    factor: float  # multiply a value in this unit by `factor` to get base units


def _build() -> dict[str, Unit]:
    units: dict[str, Unit] = {"": Unit("number", 1.0), "x": Unit("number", 1.0)}
    units["%"] = Unit("number", 0.01)
    decimal = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
    binary = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40}
    for prefixes in (decimal, binary):
        for prefix, scale in prefixes.items():
            units[f"{prefix}B"] = Unit("bytes", scale)
            units[f"{prefix}B/s"] = Unit("bytes/s", scale)
    for prefix, scale in decimal.items():
        units[f"{prefix}b"] = Unit("bytes", scale / 8)
        units[f"{prefix}b/s"] = Unit("bytes/s", scale / 8)
    units.update(
        {
            "s": Unit("seconds", 1.0),
            "ms": Unit("seconds", 1e-3),
            "us": Unit("seconds", 1e-6),
            "µs": Unit("seconds", 1e-6),
            "ns": Unit("seconds", 1e-9),
            "min": Unit("seconds", 60.0),
            "h": Unit("seconds", 3600.0),
            "days": Unit("seconds", 86400.0),
        }
    )
    for prefix, scale in {"": 1.0, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}.items():
        units[f"{prefix}FLOP"] = Unit("flop", scale)
        units[f"{prefix}FLOP/s"] = Unit("flop/s", scale)
    return units


UNITS: dict[str, Unit] = _build()


def is_known(unit: str) -> bool:
    return unit in UNITS

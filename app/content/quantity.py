"""Typed answers with units: parse "31.4 GB", "29.2 GiB", "1.75e9 B", "18 min", "0.22", "22%".

A typed quantity is converted to the card's unit through the base unit of its dimension, so
an answer in GiB is compared with an expected value in GB exactly, never confused with it.
"""

import math
import re
from dataclasses import dataclass

from app.content.units import UNITS, Unit

_NUMBER = re.compile(
    r"""^\s*
    (?P<number>[-+]?(?:\d[\d,_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)
    \s*(?:(?:×|x|\*)\s*10\s*\^\s*(?P<power>[-+]?\d+))?
    \s*(?P<unit>.*?)\s*$""",
    re.VERBOSE,
)
_ALIASES = {
    "bytes": "B",
    "byte": "B",
    "sec": "s",
    "secs": "s",
    "second": "s",
    "seconds": "s",
    "minutes": "min",
    "minute": "min",
    "mins": "min",
    "hours": "h",
    "hour": "h",
    "hr": "h",
    "day": "days",
    "μs": "us",
    "gbps": "Gb/s",
    "GBps": "GB/s",
}


class QuantityError(ValueError):
    pass


@dataclass(frozen=True)
class Quantity:
    value: float  # in `unit`
    unit: str

    @property
    def base(self) -> float:
        """The value in the dimension's base unit (bytes, seconds, FLOP, a plain number)."""
        return self.value * UNITS[self.unit].factor


def parse(text: str, expected_unit: str) -> Quantity:
    """Read a typed answer; a bare number is taken to be in `expected_unit`."""
    if not text.strip():
        raise QuantityError("type a number, e.g. 31.4 GB")
    match = _NUMBER.match(text)
    if not match:
        raise QuantityError(f"'{text.strip()}' does not start with a number")
    number = float(match["number"].replace(",", "").replace("_", ""))
    if match["power"]:
        number *= 10.0 ** int(match["power"])
    if not math.isfinite(number):
        raise QuantityError("that number is too large")
    unit = _normalise(match["unit"]) if match["unit"] else expected_unit
    if unit not in UNITS:
        raise QuantityError(f"unknown unit '{match['unit']}'")
    want: Unit = UNITS[expected_unit]
    if UNITS[unit].dimension != want.dimension:
        raise QuantityError(
            f"'{match['unit']}' measures {UNITS[unit].dimension}, the answer is in {expected_unit}"
        )
    return Quantity(number, unit)


def _normalise(unit: str) -> str:
    unit = unit.strip()
    if unit in UNITS:
        return unit
    return _ALIASES.get(unit, _ALIASES.get(unit.lower(), unit))


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """`value` in `from_unit`, expressed in `to_unit` (same dimension)."""
    if UNITS[from_unit].dimension != UNITS[to_unit].dimension:
        raise QuantityError(f"cannot convert {from_unit} to {to_unit}")
    return value * UNITS[from_unit].factor / UNITS[to_unit].factor


def is_close(given: Quantity, expected: float, expected_unit: str, tolerance: float) -> bool:
    """Within a relative `tolerance` of `expected` (in `expected_unit`), after conversion."""
    got = convert(given.value, given.unit, expected_unit)
    if expected == 0:
        return abs(got) <= tolerance
    return abs(got - expected) <= tolerance * abs(expected)

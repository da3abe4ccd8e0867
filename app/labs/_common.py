"""Shared pieces of the labs: the explanation `Step`, input validation and LaTeX numbers.

Every validation error is an `app.errors.FieldError` naming the parameter, e.g.
``FieldError("ranks", "must be at least 1")`` (its text: "ranks: must be at least 1"); the web
layer files its message under that field of an HTTP 422 or of the lab's form.
"""

import math
from collections.abc import Iterable
from dataclasses import dataclass

from app.errors import FieldError


@dataclass(frozen=True)
class Step:
    """One line of a lab's worked derivation, as the lab page shows it.

    `formula` is the symbolic LaTeX, `substituted` the same with the inputs' numbers in it,
    `value` the result in SI units and `unit` one of app.content.units' spellings ("B", "s",
    "B/s", "" for a pure number).
    """

    label: str
    formula: str
    substituted: str
    value: float
    unit: str


def check_int(name: str, value: object, minimum: int) -> int:
    """Return `value` if it is an integer of at least `minimum` (no source: validation)."""
    # bool is an int subclass; True as a rank count is a caller bug, not 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise FieldError(name, "must be an integer")
    if value < minimum:
        raise FieldError(name, f"must be at least {minimum}")
    return value


def check_real(name: str, value: object, *, positive: bool) -> float:
    """Return `value` as a float if finite and > 0 (or >= 0) (no source: validation)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FieldError(name, "must be a number")
    number = float(value)
    if not math.isfinite(number):
        raise FieldError(name, "must be a finite number")
    if positive and number <= 0:
        raise FieldError(name, "must be positive")
    if not positive and number < 0:
        raise FieldError(name, "must not be negative")
    return number


def check_choice(name: str, value: object, choices: Iterable[str]) -> str:
    """Return `value` if it is one of `choices` (no source: validation)."""
    options = tuple(choices)
    if not isinstance(value, str) or value not in options:
        listed = ", ".join(repr(option) for option in options)
        raise FieldError(name, f"must be one of {listed}")
    return value


def tex(value: float) -> str:
    """Format a number for LaTeX with 4 significant digits (no source: presentation)."""
    if value == 0:
        return "0"
    if 1e-3 <= abs(value) < 1e5:
        return f"{value:.4g}"
    mantissa, exponent = f"{value:.3e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    power = int(exponent)
    if mantissa == "1":
        return f"10^{{{power}}}"
    return f"{mantissa}\\times10^{{{power}}}"

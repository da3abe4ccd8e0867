"""Numeric drills: draw fresh inputs, compute the answer with the lab, grade a typed answer.

A draw is a pure function of (card id, seed), so the server keeps no state between showing a
question and grading it: the seed comes back with the answer and the same numbers are drawn
again. Question and worked solution are markdown with `{{ name }}` or `{{ name | UNIT }}`
placeholders, filled from the inputs, the lab result's fields and `answer`.
"""

import math
import random
import re
from dataclasses import dataclass
from typing import Any

from app.content import quantity
from app.content.schema import Drill, DrillRange, NumericCard
from app.content.units import UNITS
from app.labs import registry

MAX_SEED = 2**31 - 1
MAX_TRIES = 25
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\|\s*([^}]*?)\s*)?\}\}")
_SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "percent": 0.01}


class DrillError(ValueError):
    """A drill that cannot be drawn or filled: a content error, caught by `content check`."""


@dataclass(frozen=True)
class Draw:
    card_id: str
    seed: int | None  # None for a fixed numeric card
    values: dict[str, Any]  # every input the lab got, fixed and drawn
    fields: dict[str, float]  # the lab result's numbers, SI units
    expected: float  # in the card's unit
    unit: str
    tolerance: float
    question: str  # markdown, placeholders filled
    solution: str


@dataclass(frozen=True)
class Outcome:
    correct: bool
    given: quantity.Quantity
    given_in_unit: float  # the typed answer converted to the card's unit
    relative_error: float
    suggested_rating: int  # 1 Again, 2 Hard, 3 Good: a suggestion the user can overrule


def new_seed(rng: random.Random | None = None) -> int:
    return (rng or random.SystemRandom()).randint(0, MAX_SEED)


def draw(card: NumericCard, seed: int | None = None) -> Draw:
    """The question for `seed` (a fixed card ignores it); raises DrillError if it can't be."""
    if card.drill is None:
        assert card.value is not None
        return Draw(card.id, None, {}, {}, card.value, card.unit, card.tolerance,
                    card.question, card.answer)  # fmt: skip
    if seed is None or not 0 <= seed <= MAX_SEED:
        raise DrillError(f"seed: a number from 0 to {MAX_SEED}")
    rng = random.Random(f"{card.id}:{seed}")
    problem = "no draw"
    for _ in range(MAX_TRIES):
        values = {**card.drill.inputs, **{k: _pick(r, rng) for k, r in card.drill.vary.items()}}
        try:
            result = registry.DRILL_FUNCTIONS[card.drill.lab](**values)
        except ValueError as error:  # this combination is invalid (e.g. tp > gpus): redraw
            problem = str(error)
            continue
        return _complete(card, card.drill, seed, values, result)
    raise DrillError(f"drill: {MAX_TRIES} draws in a row were invalid, last: {problem}")


def _complete(
    card: NumericCard, drill: Drill, seed: int, values: dict[str, Any], result: Any
) -> Draw:
    fields = registry.numeric_fields(result)
    if drill.output not in fields:
        raise DrillError(
            f"drill.output: {drill.lab} gives no number {drill.output!r}; "
            f"choose from {', '.join(sorted(fields))}"
        )
    expected = quantity.convert(fields[drill.output], _base_unit(card.unit), card.unit)
    names = {**values, **fields, "answer": expected}
    return Draw(
        card_id=card.id,
        seed=seed,
        values=values,
        fields=fields,
        expected=expected,
        unit=card.unit,
        tolerance=card.tolerance,
        question=fill(card.question, names, card.unit),
        solution=fill(card.answer, names, card.unit),
    )


def _base_unit(unit: str) -> str:
    """The unit with factor 1 in `unit`'s dimension: lab results are in it."""
    dimension = UNITS[unit].dimension
    return next(u for u, spec in UNITS.items() if spec.dimension == dimension and spec.factor == 1)


def _pick(spec: DrillRange, rng: random.Random) -> Any:
    if spec.choices is not None:
        return rng.choice(spec.choices)
    low, high = spec.min, spec.max
    assert low is not None and high is not None
    integer = isinstance(low, int) and isinstance(high, int)
    if spec.step is not None:
        count = int(math.floor((high - low) / spec.step + 1e-9))
        value = low + spec.step * rng.randint(0, count)
        return int(round(value)) if integer and float(spec.step).is_integer() else value
    if spec.log:
        value = math.exp(rng.uniform(math.log(low), math.log(high)))
        return int(round(value)) if integer else round_significant(value, 3)
    if isinstance(low, int) and isinstance(high, int):
        return rng.randint(low, high)
    return round_significant(rng.uniform(low, high), 3)


def round_significant(value: float, digits: int) -> float:
    if value == 0:
        return 0.0
    return round(value, digits - 1 - int(math.floor(math.log10(abs(value)))))


def fill(template: str, names: dict[str, Any], unit: str) -> str:
    """Replace each `{{ name }}` / `{{ name | UNIT }}`; raises DrillError for unknown ones."""

    def replace(match: re.Match[str]) -> str:
        name, conversion = match.group(1), (match.group(2) or "").strip()
        if name not in names:
            raise DrillError(f"unknown placeholder {{{{ {name} }}}}")
        value = names[name]
        if isinstance(value, str):
            return value
        if conversion in _SCALES:
            return format_number(value / _SCALES[conversion])
        if conversion:
            if conversion not in UNITS:
                raise DrillError(f"unknown unit {conversion!r} in {{{{ {name} | {conversion} }}}}")
            return format_number(value / UNITS[conversion].factor)
        return format_number(value)

    return _PLACEHOLDER.sub(replace, template)


def format_number(value: float) -> str:
    """4 significant digits; 1.75×10⁹ beyond a million, readable in prose and in formulas."""
    if isinstance(value, bool):
        return str(value)
    if float(value).is_integer() and abs(value) < 1e6:
        return str(int(value))
    if value != 0 and (abs(value) >= 1e6 or abs(value) < 1e-4):
        mantissa, exponent = f"{value:.3e}".split("e")
        power = str(int(exponent)).translate(_SUPERSCRIPTS)
        return f"{mantissa.rstrip('0').rstrip('.')}×10{power}"
    return f"{round_significant(value, 4):g}"


def grade(drawn: Draw, typed: str) -> Outcome:
    """Compare a typed answer with the draw's; raises QuantityError for unreadable input."""
    given = quantity.parse(typed, drawn.unit)
    value = quantity.convert(given.value, given.unit, drawn.unit)
    error = abs(value - drawn.expected) / abs(drawn.expected) if drawn.expected else abs(value)
    correct = quantity.is_close(given, drawn.expected, drawn.unit, drawn.tolerance)
    rating = 3 if correct else (2 if error <= 3 * drawn.tolerance else 1)
    return Outcome(correct, given, value, error, rating)

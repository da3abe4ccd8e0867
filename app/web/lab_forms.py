"""Lab forms: field specs, tolerant number parsing, and one submission's values and errors.

A lab page is a GET form, so a result is a shareable URL. Numbers may be typed as 70e9,
70_000_000_000 or 70,000,000,000. Errors are kept per field, next to what the user typed.
"""

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

MAX_TYPED = 64  # characters; nothing a lab needs is longer
_SEPARATORS = re.compile(r"[_,\s\u00a0\u2009\u202f']")


@dataclass(frozen=True)
class Field:
    """One input. `scale` turns the typed value (in `unit`) into the lab's SI value."""

    name: str
    label: str
    kind: str  # "int" | "float" | "choice" | "bool"
    default: str = ""
    unit: str = ""
    hint: str = ""
    api: str = ""  # the lab function's parameter name, when it differs from `name`
    scale: float = 1.0
    choices: tuple[tuple[str, str], ...] = ()  # (value, label)
    optional: bool = False
    low: float = 0.0
    low_inclusive: bool = False  # True: value ≥ low, False: value > low
    high: float = 1e18
    step: str = "any"
    group: str = ""

    @property
    def key(self) -> str:
        return self.api or self.name

    @property
    def numeric_box(self) -> bool:
        """Small whole numbers get a number box; the rest a text box that takes 70e9."""
        return self.kind == "int" and self.high <= 1e7 and self.default != ""


@dataclass(frozen=True)
class Preset:
    """A named set of typed values; fields it does not name keep their defaults."""

    label: str
    values: Mapping[str, str]


@dataclass
class FormState:
    """What was typed (`raw`), what it means (`values`, keyed by the lab's names), what is wrong."""

    fields: Sequence[Field]
    raw: dict[str, str]
    values: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    general: list[str] = field(default_factory=list)

    def add_lab_error(self, message: str) -> None:
        """File a lab's "name: message" ValueError under the field it names."""
        name, _, text = message.partition(": ")
        for spec in self.fields:
            if name and text and name in (spec.key, spec.name):
                self.errors.setdefault(spec.name, _sentence(text))
                return
        self.general.append(_sentence(message))

    @property
    def ok(self) -> bool:
        return not self.errors and not self.general


def parse_number(text: str) -> float:
    """70e9, 70_000_000_000, "70,000,000,000" or −3 → float; ValueError if not a number."""
    cleaned = _SEPARATORS.sub("", text).replace("\u2212", "-").replace("×10^", "e")
    number = float(cleaned)  # raises ValueError for anything else
    if not math.isfinite(number):
        raise ValueError(text)
    return number


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", ")")) else ".")


def _parse_one(spec: Field, text: str, present: bool) -> Any:
    """The value of one field, or raise ValueError with the message to show beside it."""
    if spec.kind == "bool":
        return text.lower() in ("1", "on", "true", "yes") if present else False
    if text == "":
        if spec.optional:
            return None
        raise ValueError("Enter a value.")
    if len(text) > MAX_TYPED:
        raise ValueError(f"At most {MAX_TYPED} characters, please.")
    if spec.kind == "choice":
        options = [value for value, _ in spec.choices]
        if text not in options:
            raise ValueError(
                "Choose one of: " + ", ".join(label for _, label in spec.choices) + "."
            )
        return int(text) if text.isdigit() else text
    try:
        number = parse_number(text)
    except ValueError:
        raise ValueError("Enter a number, such as 4096 or 70e9.") from None
    if spec.kind == "int" and not number.is_integer():
        raise ValueError("Enter a whole number.")
    low = _plain(spec.low)
    if number < spec.low or (number == spec.low and not spec.low_inclusive):
        raise ValueError(
            f"Must be at least {low}." if spec.low_inclusive else f"Must be above {low}."
        )
    if number > spec.high:
        raise ValueError(f"Must be at most {_plain(spec.high)}.")
    return int(number) if spec.kind == "int" else number * spec.scale


def _plain(number: float) -> str:
    return f"{int(number):,}" if float(number).is_integer() else f"{number:g}"


def parse(fields: Sequence[Field], query: Mapping[str, str]) -> FormState:
    """Read a submission. Without any of the form's fields in `query`, use the defaults."""
    submitted = any(spec.name in query for spec in fields)
    raw: dict[str, str] = {}
    for spec in fields:
        if submitted:
            raw[spec.name] = query.get(spec.name, "").strip()[:200]
        else:
            raw[spec.name] = spec.default
    form = FormState(fields, raw)
    for spec in fields:
        present = spec.name in query if submitted else spec.default != ""
        try:
            form.values[spec.key] = _parse_one(spec, raw[spec.name], present)
        except ValueError as error:
            form.errors[spec.name] = str(error)
    return form


def preset_query(fields: Sequence[Field], preset: Preset) -> str:
    """The full query string of a preset, so its link is the page it shows."""
    pairs = []
    for spec in fields:
        value = preset.values.get(spec.name, spec.default)
        if value != "":
            pairs.append((spec.name, value))
    return urlencode(pairs)


def is_current(form: FormState, preset: Preset) -> bool:
    """Whether the form shows exactly this preset's values."""
    return all(form.raw[f.name] == preset.values.get(f.name, f.default) for f in form.fields)

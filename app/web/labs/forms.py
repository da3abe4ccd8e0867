"""Lab forms: field specs derived from a lab's input model, tolerant parsing, and one submission.

A lab page is a GET form, so a result is a shareable URL. Numbers may be typed as 70e9,
70_000_000_000 or 70,000,000,000. Errors are kept per field, next to what the user typed.

Bounds are not written here: `derive` reads them from the lab's pydantic input model (the
`gt`/`ge`/`le`/`lt` of each field) and converts them into the unit the form asks in, so the page
and the JSON API refuse exactly the same values. After the per-field checks (which word the
message in the form's unit), the whole submission is validated by that model once more.
"""

import math
import re
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal
from urllib.parse import urlencode

import annotated_types
from pydantic import BaseModel, ValidationError

from app.errors import DomainError

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
    low: float = 0.0  # filled in from the input model by `derive`
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

    def add_lab_error(self, error: ValueError) -> None:
        """File a lab's error under the field it names (a FieldError's), else above the form."""
        if isinstance(error, DomainError):
            self.add_error(error.field, error.message)
        else:
            self.add_error(None, str(error))

    def add_error(self, name: str | None, message: str) -> None:
        """`message` beside the field `name` (the lab's name or the form's), else above the
        form with the name in front."""
        for spec in self.fields:
            if name and name in (spec.key, spec.name):
                self.errors.setdefault(spec.name, _sentence(message))
                return
        self.general.append(_sentence(f"{name}: {message}" if name else message))

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


def _constraints(annotation: Any, metadata: Iterable[Any]) -> list[Any]:
    """The annotated_types bounds of a field, looking inside `X | None` and Annotated."""
    found = [m for m in metadata if isinstance(m, annotated_types.BaseMetadata)]
    for meta in metadata:
        found += [
            m for m in getattr(meta, "metadata", []) if isinstance(m, annotated_types.BaseMetadata)
        ]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            found += _constraints(arg, ())
    if typing.get_origin(annotation) is typing.Annotated:
        found += _constraints(typing.get_args(annotation)[0], annotation.__metadata__)
    return found


def model_bounds(model: type[BaseModel], name: str) -> tuple[float, bool, float]:
    """(low, low inclusive, high) of one field of a lab input model, in SI units."""
    info = model.model_fields[name]
    low, inclusive, high = -math.inf, True, math.inf
    for bound in _constraints(info.annotation, info.metadata):
        if isinstance(bound, annotated_types.Gt):
            low, inclusive = float(bound.gt), False  # type: ignore[arg-type]
        elif isinstance(bound, annotated_types.Ge):
            low, inclusive = float(bound.ge), True  # type: ignore[arg-type]
        elif isinstance(bound, annotated_types.Le):
            high = float(bound.le)  # type: ignore[arg-type]
        elif isinstance(bound, annotated_types.Lt):
            high = float(bound.lt)  # type: ignore[arg-type]
    return low, inclusive, high


def model_choices(model: type[BaseModel], name: str) -> tuple[str, ...]:
    """The values a Literal field of a lab input model allows, as the form spells them."""
    annotation = model.model_fields[name].annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) is Literal:
        return tuple(str(value) for value in typing.get_args(annotation))
    return ()


def _round(number: float) -> float:
    """A bound in the form's unit without the float noise of the division (10 / 1e-6)."""
    return float(f"{number:.12g}")


def _within(text: str, low: float, inclusive: bool, high: float) -> bool:
    """Whether a numeric choice lies inside a model field's bounds."""
    number = float(text)
    return (number >= low if inclusive else number > low) and number <= high


def derive(model: type[BaseModel], fields: Iterable[Field]) -> tuple[Field, ...]:
    """Each field with the bounds of its model field, converted into the form's unit."""
    derived = []
    for spec in fields:
        if spec.key not in model.model_fields:
            raise LookupError(f"{model.__name__} has no field {spec.key!r} for the form")
        if spec.kind in ("int", "float"):
            low, inclusive, high = model_bounds(model, spec.key)
            if not (math.isfinite(low) and math.isfinite(high)):
                raise LookupError(f"{model.__name__}.{spec.key} needs both bounds for the form")
            spec = replace(spec, low=_round(low / spec.scale), low_inclusive=inclusive,
                           high=_round(high / spec.scale))  # fmt: skip
        elif spec.kind == "choice":
            allowed = set(model_choices(model, spec.key))
            low, inclusive, high = model_bounds(model, spec.key)
            missing = [
                value
                for value, _ in spec.choices
                if ((value not in allowed) if allowed else not _within(value, low, inclusive, high))
            ]
            if missing:
                raise LookupError(f"{model.__name__}.{spec.key} does not allow {missing}")
        derived.append(spec)
    return tuple(derived)


def validate(model: type[BaseModel], form: "FormState") -> BaseModel | None:
    """Check the parsed values with the lab's input model; file its errors under their fields."""
    try:
        return model.model_validate(form.values)
    except ValidationError as error:
        for problem in error.errors():
            name = str(problem["loc"][0]) if problem["loc"] else None
            form.add_error(name, problem["msg"])
        return None


def parse(fields: Sequence[Field], query: Mapping[str, str]) -> FormState:
    """Read a submission. Without any of the form's fields in `query`, use the defaults."""
    submitted = any(spec.name in query for spec in fields)
    raw: dict[str, str] = {}
    for spec in fields:
        if submitted:
            # A field the query does not name (a link made before the field existed) keeps
            # its default, unless blank or unticked is what its absence means.
            absent = "" if spec.optional or spec.kind == "bool" else spec.default
            raw[spec.name] = query.get(spec.name, absent).strip()[:200]
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

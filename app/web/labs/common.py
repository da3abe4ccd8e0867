"""What every lab page and endpoint shares: the API base models, the page spec, worked steps as
MathML, the topics that use a lab, and the call that turns a lab's FieldError into a 422."""

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Annotated, Any, TypeVar

from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field

from app.content.catalog import CardView, Catalog, Topic
from app.content.mathml import MathError, to_mathml
from app.errors import DomainError
from app.labs import Step
from app.labs.catalog import LABS, LabInfo
from app.web.labs import format as fmt
from app.web.labs.forms import Field as FormField
from app.web.labs.forms import Preset, derive

Context = dict[str, Any]
Values = Mapping[str, Any]
Result = TypeVar("Result")

# Shared bounds: a lab's input model is where each field's bounds are written; these are the
# common shapes. Upper bounds keep every request cheap and every answer finite.
Count = Annotated[int, Field(gt=0, le=10_000_000)]
Size = Annotated[float, Field(gt=0, le=1e18)]
Seconds = Annotated[float, Field(ge=0, le=1e9)]
Rate = Annotated[float, Field(gt=0, le=1e18)]
OUT_OF_RANGE = "These numbers are out of the range the formulas can handle."
INVALID: dict[int | str, dict[str, Any]] = {
    422: {"description": "Invalid input: `detail[].loc` names the field, `msg` says why"}
}


class LabIn(BaseModel):
    """Requests are strict: unknown fields, strings for numbers, fractional degrees and
    non-finite numbers are refused."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


class LabOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)


class StepOut(LabOut):
    """One line of the worked derivation: LaTeX before and after substituting the numbers."""

    label: str
    formula: str
    substituted: str
    value: float
    unit: str = Field(description='"B", "s", "B/s", or "" for a pure number')


@dataclass(frozen=True)
class LabSpec:
    """A lab page: its name and title (app.labs.catalog), the input model its form is derived
    from (the page's own fields added to the API's), the form's fields and its presets."""

    info: LabInfo
    model: type[BaseModel]
    fields: tuple[FormField, ...]
    presets: tuple[Preset, ...]
    view: Callable[[Values], Context]
    group_hints: Mapping[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def title(self) -> str:
        return self.info.title

    @property
    def summary(self) -> str:
        return self.info.summary

    @property
    def groups(self) -> list[tuple[str, list[FormField]]]:
        """Fields by fieldset, in the order they first appear ("" is the ungrouped head)."""
        groups: dict[str, list[FormField]] = {}
        for spec in self.fields:
            groups.setdefault(spec.group, []).append(spec)
        return list(groups.items())


def lab_spec(
    name: str,
    model: type[BaseModel],
    fields: Sequence[FormField],
    presets: Sequence[Preset],
    view: Callable[[Values], Context],
    group_hints: Mapping[str, str] | None = None,
) -> LabSpec:
    """A page spec whose field bounds come from `model` (forms.derive)."""
    return LabSpec(
        LABS[name], model, derive(model, fields), tuple(presets), view, dict(group_hints or {})
    )


def run(body: BaseModel, compute: Callable[[], Result]) -> Result:
    """Call a lab function; its FieldErrors become 422s like FastAPI's own, under the field
    they name when the request has it."""
    try:
        return compute()
    except DomainError as error:
        known = error.field is not None and error.field in type(body).model_fields
        loc = ("body", error.field) if known else ("body",)
        msg = error.message if known else str(error)
    except ValueError as error:  # e.g. "math domain error": no field to name
        loc, msg = ("body",), str(error)
    except ArithmeticError:
        loc, msg = ("body",), OUT_OF_RANGE
    raise RequestValidationError([{"loc": loc, "msg": msg, "type": "value_error"}])


@dataclass(frozen=True)
class StepView:
    label: str
    formula_html: str
    substituted_html: str
    value_text: str


_E_NOTATION = re.compile(r"(\d)e([+-])0*(\d+)")


def math_html(latex: str) -> str:
    """MathML, or the LaTeX as code if it cannot be typeset (a page never fails over a formula)."""
    # Python's "%.4g" writes 11134.6 as 1.113e+04; typeset that as 1.113×10⁴.
    latex = _E_NOTATION.sub(lambda m: rf"{m[1]}\times10^{{{m[2].strip('+')}{m[3]}}}", latex)
    try:
        return to_mathml(latex, display=True)
    except MathError:
        return f'<code class="latex">{escape(latex)}</code>'


def render_steps(steps: Sequence[Step]) -> list[StepView]:
    return [
        StepView(
            s.label, math_html(s.formula), math_html(s.substituted), fmt.by_unit(s.value, s.unit)
        )
        for s in steps
    ]


_PLACEHOLDER = re.compile(r"\{\{[^{}]*\}\}")


@dataclass(frozen=True)
class CardLink:
    """A drill card to practise on: its id and its question as plain words."""

    id: str
    text: str


def _drill_lab(card: CardView) -> str:
    drill = getattr(card.card, "drill", None)
    name: str = getattr(drill, "lab", None) or ""
    return name.split(".", 1)[0]


def _card_link(card: CardView) -> CardLink:
    # A drill's question names its drawn numbers as {{ name | unit }}; show them as "…".
    return CardLink(card.id, " ".join(_PLACEHOLDER.sub("…", card.question_text).split()))


def used_by(catalog: Catalog, lab: str) -> list[tuple[Topic, list[CardLink]]]:
    """Topics that list `lab` or hold a card drilled on it, each with those drill cards."""
    found = []
    for topic in catalog.topics:
        cards = [c for c in topic.cards if _drill_lab(c) == lab]
        if lab in topic.meta.labs or cards:
            found.append((topic, [_card_link(c) for c in cards]))
    return found

"""The shape of a topic file: front matter and cards, as pydantic models (see content/README.md)."""

import re
from datetime import date
from typing import Annotated, Any, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

from app.content import units
from app.labs import registry

Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=80)]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]

CARD_KINDS = ("recall", "derivation", "numeric", "order")


class Strict(BaseModel):
    """Unknown fields are errors, so a typo (`folowups:`) is caught instead of ignored."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Reference(Strict):
    key: Slug
    text: Text
    url: str | None = None


class FrontMatter(Strict):
    slug: Slug
    order: int = Field(ge=1)
    title: Text
    summary: Text
    labs: list[Slug] = []
    related: list[Slug] = []
    references: list[Reference] = Field(min_length=1)
    # What can go stale says when it was true: the day the topic was checked against its
    # sources, and the versions of the software (and papers) whose defaults and names it gives.
    checked_on: date
    checked_against: dict[Text, Text] = Field(min_length=1)


# A keyword is evidence that an answer made its point: one that turns up in any answer (a
# letter, a digit, a unit, a two-letter word) is evidence of nothing.
CLAIM_WORDS = 3  # a mistake's claim of fewer words says too little to be found by its words
_NUMBERISH = re.compile(r"^[\d.,\s×x^eE+\-−/%*]*$")
_BARE_UNITS = frozenset(
    "us µs μs ms s ns b kb kib mb mib gb gib tb tib gb/s tb/s gbps".split()
    + "flops tflops pflops w h min %".split()
)


def weak_keyword(keyword: str) -> str | None:
    """Why a rubric keyword cannot tell a right answer from a wrong one, or None."""
    if len(keyword) < 2:
        return "a single character"
    if _NUMBERISH.match(keyword) and sum(c.isdigit() for c in keyword) < 2:
        return "a bare number"
    if keyword.lower() in _BARE_UNITS:
        return "a bare unit"
    if len(keyword) == 2 and keyword.isalpha() and not keyword.isupper():
        return "a two-letter word"
    return None


def _specific_keywords(keywords: list[str], where: tuple[int | str, ...] = ()) -> None:
    for at, keyword in enumerate(keywords):
        if problem := weak_keyword(keyword):
            raise Misplaced(
                f"{keyword!r} is {problem}: it would match almost any answer", (*where, at)
            )


def _groups(value: Any) -> Any:
    """A group written as one string is a group of one: `[2K, [independent, flat]]`."""
    if isinstance(value, list):
        return [[g] if isinstance(g, str) else g for g in value]
    return value


class RubricPoint(Strict):
    """A key point, the keywords that suggest it, and what it cannot be made without: each
    group of `needs` must be found (any one of its elements: a formula, a number with its
    unit, a phrase such as "grows with N"), or the point's words alone do not make it; and
    where the point is an order ("intra-node tests before inter-node"), each group of `order`
    must be found, the first said before the second, and so on."""

    point: Text
    keywords: list[Text] = Field(min_length=1)
    needs: list[list[Text]] = []
    order: list[list[Text]] = []

    @field_validator("keywords")
    @classmethod
    def _specific(cls, keywords: list[str]) -> list[str]:
        _specific_keywords(keywords)
        return keywords

    @field_validator("needs", "order", mode="before")
    @classmethod
    def _plain_groups(cls, groups: Any) -> Any:
        return _groups(groups)

    @field_validator("needs", "order")
    @classmethod
    def _specific_groups(cls, groups: list[list[str]]) -> list[list[str]]:
        for index, group in enumerate(groups):
            if not group:
                raise Misplaced("an empty group: name at least one element", (index,))
            _specific_keywords(group, (index,))
        return groups

    @field_validator("order")
    @classmethod
    def _two_or_more_steps(cls, order: list[list[str]]) -> list[list[str]]:
        if len(order) == 1:
            raise ValueError("an order needs at least two groups: what comes first, then next")
        return order


class Mistake(Strict):
    """A common mistake and what is true instead; `evidence` finds it in an answer (any one
    element; an element that is a list needs all of its parts in one statement), `claims`
    are the wrong assertion as candidates type it, each found by most of its words in one
    statement, and `contradicts` names the rubric points (0-based) an answer making it cannot
    be credited."""

    text: Text
    evidence: list[list[Text]] = []
    claims: list[Text] = []  # the wrong assertion as candidates type it, each read whole
    contradicts: list[int] = []

    @field_validator("claims")
    @classmethod
    def _whole_claims(cls, claims: list[str]) -> list[str]:
        for index, claim in enumerate(claims):
            if len(re.findall(r"[^\W_]{2,}", claim)) < CLAIM_WORDS:
                raise Misplaced(
                    f"{claim!r} is too short to be a claim: write the wrong assertion whole, "
                    f"in at least {CLAIM_WORDS} words",
                    (index,),
                )
        return claims

    @field_validator("evidence", mode="before")
    @classmethod
    def _plain_evidence(cls, evidence: Any) -> Any:
        return _groups(evidence)

    @field_validator("evidence")
    @classmethod
    def _specific_evidence(cls, evidence: list[list[str]]) -> list[list[str]]:
        for index, group in enumerate(evidence):
            if not group:
                raise Misplaced("an empty group: name at least one element", (index,))
            _specific_keywords(group, (index,))
        return evidence


class Followup(Strict):
    """A follow-up question, the rubric points (0-based) a weak answer to it would miss, and a
    short reference answer (two to five sentences, with the number or formula that settles it)."""

    question: Text
    probes: list[int] = []
    answer: Text  # what settles it: the mock's interviewer view and the card show it


class Misplaced(ValueError):
    """A problem at a place below the field being validated: `where` continues its path."""

    def __init__(self, message: str, where: tuple[int | str, ...]) -> None:
        super().__init__(message)
        self.where = where


class CardBase(Strict):
    id: Slug
    question: Text
    answer: Text | None = None
    rubric: list[RubricPoint] = Field(min_length=3, max_length=6)

    @field_validator("rubric")
    @classmethod
    def _points_apart(cls, rubric: list[RubricPoint]) -> list[RubricPoint]:
        owner: dict[str, int] = {}
        for index, point in enumerate(rubric):
            for keyword in {k.casefold() for k in point.keywords}:
                if owner.setdefault(keyword, index) != index:
                    raise ValueError(
                        f"keyword {keyword!r} is in points {owner[keyword] + 1} and {index + 1}: "
                        "each point needs evidence of its own"
                    )
        return rubric

    followups: list[Followup] = Field(min_length=1)

    @field_validator("followups", mode="before")
    @classmethod
    def _plain_followups(cls, followups: Any) -> Any:
        """A follow-up written as a plain string probes no point in particular."""
        if isinstance(followups, list):
            return [{"question": f} if isinstance(f, str) else f for f in followups]
        return followups

    @field_validator("followups")
    @classmethod
    def _probes_in_rubric(cls, followups: list[Followup], info: ValidationInfo) -> list[Followup]:
        points = len(info.data.get("rubric") or [])
        for index, followup in enumerate(followups):
            for at, probe in enumerate(followup.probes):
                if not 0 <= probe < points:
                    raise Misplaced(
                        f"probes point {probe}, but the rubric's points are numbered 0 to "
                        f"{points - 1}",
                        (index, "probes", at),
                    )
            if len(set(followup.probes)) != len(followup.probes):
                raise Misplaced("a rubric point is named twice", (index, "probes"))
        return followups

    mistakes: list[Mistake] = Field(min_length=1)

    @field_validator("mistakes", mode="before")
    @classmethod
    def _plain_mistakes(cls, mistakes: Any) -> Any:
        """A mistake written as a plain string has no detector yet."""
        if isinstance(mistakes, list):
            return [{"text": m} if isinstance(m, str) else m for m in mistakes]
        return mistakes

    @field_validator("mistakes")
    @classmethod
    def _contradicts_in_rubric(cls, mistakes: list[Mistake], info: ValidationInfo) -> list[Mistake]:
        points = len(info.data.get("rubric") or [])
        for index, mistake in enumerate(mistakes):
            for at, point in enumerate(mistake.contradicts):
                if not 0 <= point < points:
                    raise Misplaced(
                        f"contradicts point {point}, but the rubric's points are numbered 0 to "
                        f"{points - 1}",
                        (index, "contradicts", at),
                    )
            if len(set(mistake.contradicts)) != len(mistake.contradicts):
                raise Misplaced("a rubric point is named twice", (index, "contradicts"))
        return mistakes

    sources: list[Text] = Field(min_length=1)
    tags: list[Text] = []


class RecallCard(CardBase):
    kind: Literal["recall"]
    answer: Text


class DerivationCard(CardBase):
    kind: Literal["derivation"]
    steps: list[Text] = Field(min_length=3, max_length=8)


Number = int | float


def _as_number(value: Any) -> Any:
    """YAML reads `50e9` as a string (it wants `50.0e+9`): take it as the number it means."""
    if isinstance(value, str):
        try:
            number = float(value.replace("_", ""))
        except ValueError:
            return value
        return (
            int(number)
            if number.is_integer() and "." not in value and "e" not in value.lower()
            else number
        )
    return value


class DrillRange(Strict):
    """How one input is drawn: from `choices`, or between `min` and `max`."""

    choices: list[Number | str] | None = Field(default=None, min_length=1)
    min: Number | None = None
    max: Number | None = None
    step: Number | None = Field(default=None, gt=0)
    log: bool = False  # draw evenly in log space: for sizes spanning decades

    @field_validator("choices", mode="before")
    @classmethod
    def _numbers(cls, choices: Any) -> Any:
        return [_as_number(c) for c in choices] if isinstance(choices, list) else choices

    @model_validator(mode="after")
    def _one_way(self) -> Self:
        if self.choices is not None:
            if self.min is not None or self.max is not None:
                raise ValueError("give either choices or min and max, not both")
            return self
        if self.min is None or self.max is None:
            raise ValueError("give choices, or both min and max")
        if self.min >= self.max:
            raise ValueError(f"min ({self.min}) must be below max ({self.max})")
        if self.log and self.min <= 0:
            raise ValueError("a log range needs min > 0")
        return self


class Drill(Strict):
    """A parametric numeric card: the answer is computed by a lab function on drawn inputs."""

    lab: str
    inputs: dict[str, Any] = {}
    vary: dict[str, DrillRange] = Field(min_length=1)
    output: str = "value"

    @field_validator("lab")
    @classmethod
    def _known_lab(cls, lab: str) -> str:
        if lab not in registry.DRILL_FUNCTIONS:
            known = ", ".join(sorted(registry.DRILL_FUNCTIONS))
            raise ValueError(f"unknown lab function {lab!r}; use one of {known}")
        return lab

    @field_validator("inputs", mode="before")
    @classmethod
    def _numbers(cls, inputs: Any) -> Any:
        if isinstance(inputs, dict):
            return {k: _as_number(v) for k, v in inputs.items()}
        return inputs

    @model_validator(mode="after")
    def _inputs_match(self) -> Self:
        names, required = registry.parameters(self.lab)
        given = set(self.inputs) | set(self.vary)
        if both := set(self.inputs) & set(self.vary):
            raise ValueError(f"{', '.join(sorted(both))}: both fixed in inputs and drawn in vary")
        if unknown := given - names:
            raise ValueError(f"{self.lab} takes no {', '.join(sorted(unknown))}")
        if missing := required - given:
            raise ValueError(f"{self.lab} also needs {', '.join(sorted(missing))}")
        return self


class NumericCard(CardBase):
    kind: Literal["numeric"]
    value: float | None = None
    drill: Drill | None = None
    unit: str
    tolerance: float = Field(default=0.02, gt=0, lt=1)
    answer: Text

    @model_validator(mode="after")
    def _value_or_drill(self) -> Self:
        if (self.value is None) == (self.drill is None):
            raise ValueError("give either a fixed value or a drill, not both or neither")
        return self

    @field_validator("unit")
    @classmethod
    def _known_unit(cls, unit: str) -> str:
        if not units.is_known(unit):
            raise ValueError(f"unknown unit {unit!r} (see the list in content/README.md)")
        return unit


class OrderCard(CardBase):
    kind: Literal["order"]
    steps: list[Text] = Field(min_length=3, max_length=10)


Card = RecallCard | DerivationCard | NumericCard | OrderCard
CARD_MODELS: dict[str, type[Card]] = {
    "recall": RecallCard,
    "derivation": DerivationCard,
    "numeric": NumericCard,
    "order": OrderCard,
}

"""app.labs._common: validation messages and LaTeX number formatting."""

import dataclasses
import json

import pytest

from app.labs import Step
from app.labs._common import check_choice, check_int, check_real, tex
from app.labs.memory import memory


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0, "0"), (0.01757, "0.01757"), (4096, "4096"), (7.5e9, r"7.5\times10^{9}"),
     (1e11, "10^{11}"), (5e-6, r"5\times10^{-6}")],
)  # fmt: skip
def test_tex(value: float, expected: str) -> None:
    """Four significant digits, scientific notation outside [1e-3, 1e5) (presentation)."""
    assert tex(value) == expected


def test_validators() -> None:
    """Messages start with the field name and ": " (the web layer's 422 contract)."""
    with pytest.raises(ValueError, match="^ranks: must be at least 1$"):
        check_int("ranks", 0, 1)
    with pytest.raises(ValueError, match="^ranks: must be an integer$"):
        check_int("ranks", True, 1)
    with pytest.raises(ValueError, match="^alpha_s: must not be negative$"):
        check_real("alpha_s", -1.0, positive=False)
    with pytest.raises(ValueError, match="^op: must be one of 'a', 'b'$"):
        check_choice("op", "c", ("a", "b"))
    assert check_real("x", 3, positive=True) == 3.0


def test_results_serialise_to_json() -> None:
    """Results are frozen dataclasses that asdict() and json.dumps() take as they are."""
    result = memory(7e9, dp=8, zero_stage=1)
    payload = json.loads(json.dumps(dataclasses.asdict(result)))
    assert payload["total_bytes"] == result.total_bytes
    assert set(payload["steps"][0]) == {f.name for f in dataclasses.fields(Step)}
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.total_bytes = 0.0  # type: ignore[misc]

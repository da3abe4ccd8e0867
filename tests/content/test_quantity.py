"""Typed answers with units: each unit, conversions, bad input, and the tolerance edges."""

import pytest

from app.content.quantity import Quantity, QuantityError, convert, is_close, parse


@pytest.mark.parametrize(
    ("typed", "expected_unit", "value", "unit"),
    [
        ("31.4 GB", "GB", 31.4, "GB"),
        ("29.2 GiB", "GB", 29.2, "GiB"),
        ("1.75e9 B", "GB", 1.75e9, "B"),
        ("1.75e9", "B", 1.75e9, "B"),
        ("18 min", "s", 18, "min"),
        ("0.22", "", 0.22, ""),
        ("22%", "", 22, "%"),
        ("2 × 10^9 B", "GB", 2e9, "B"),
        ("1,024", "", 1024, ""),
        ("400 Gb/s", "GB/s", 400, "Gb/s"),
        ("5 µs", "ms", 5, "µs"),
        ("5 μs", "ms", 5, "us"),  # Greek mu, as phones type it
        ("3 hours", "s", 3, "h"),
        (" 12 ms ", "s", 12, "ms"),
        ("-4.5 s", "s", -4.5, "s"),
    ],
)
def test_parses_numbers_with_units(typed: str, expected_unit: str, value: float, unit: str) -> None:
    assert parse(typed, expected_unit) == Quantity(value, unit)


@pytest.mark.parametrize(
    ("typed", "problem"),
    [
        ("", "type a number"),
        ("   ", "type a number"),
        ("GB 31", "does not start with a number"),
        ("about 30", "does not start with a number"),
        ("31 furlongs", "unknown unit 'furlongs'"),
        ("31 s", "measures seconds, the answer is in GB"),
        ("1e999 GB", "too large"),
    ],
)
def test_refuses_unreadable_answers_with_a_reason(typed: str, problem: str) -> None:
    with pytest.raises(QuantityError, match=problem):
        parse(typed, "GB")


def test_gb_and_gib_are_converted_not_confused() -> None:
    assert convert(1, "GiB", "GB") == pytest.approx(1.073741824)
    assert convert(1, "Gb/s", "GB/s") == 0.125
    assert convert(1500, "ms", "s") == 1.5
    assert convert(2, "h", "min") == 120
    assert is_close(parse("29.25 GiB", "GB"), 31.4, "GB", 0.02)
    assert not is_close(parse("31.4 GiB", "GB"), 31.4, "GB", 0.02)  # 7% too high


def test_tolerance_is_relative_and_inclusive() -> None:
    assert is_close(Quantity(102, "GB"), 100, "GB", 0.02)
    assert is_close(Quantity(98, "GB"), 100, "GB", 0.02)
    assert not is_close(Quantity(102.1, "GB"), 100, "GB", 0.02)
    assert not is_close(Quantity(97.9, "GB"), 100, "GB", 0.02)
    assert is_close(Quantity(0.01, ""), 0, "", 0.02)  # zero expected: absolute tolerance

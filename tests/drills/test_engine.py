"""Drills: draws stay in range and repeat by seed, answers come from the lab, grading."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.content.loader import ContentError, load_catalog
from app.content.render import Renderer
from app.content.schema import NumericCard
from app.drills import engine
from app.drills.check import at_startup, check_topic
from app.labs import collectives
from tests.conftest import FIXTURE_CONTENT
from tests.content.helpers import card as recall_card
from tests.content.helpers import write_topic


def drill_card() -> NumericCard:
    view = load_catalog(FIXTURE_CONTENT).card("alpha-drill-bytes")
    assert view is not None and isinstance(view.card, NumericCard)
    return view.card


CARD = drill_card()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(min_value=0, max_value=engine.MAX_SEED))
def test_draws_stay_in_range_and_the_answer_is_the_labs(seed: int) -> None:
    drawn = engine.draw(CARD, seed)
    assert drawn.values["ranks"] in (8, 16, 64)
    assert 1e9 <= drawn.values["bytes"] <= 1e11
    lab = collectives.collective(**drawn.values)
    assert drawn.expected == pytest.approx(lab.bytes_sent_per_rank / 1e9)
    assert drawn.unit == "GB" and "{{" not in drawn.question + drawn.solution


def test_a_seed_repeats_its_draw_and_seeds_differ() -> None:
    assert engine.draw(CARD, 7) == engine.draw(CARD, 7)
    assert len({engine.draw(CARD, s).question for s in range(20)}) > 10


def test_question_and_solution_show_the_drawn_numbers() -> None:
    drawn = engine.draw(CARD, 3)
    gb = engine.format_number(drawn.values["bytes"] / 1e9)
    assert f"{gb} GB runs over {drawn.values['ranks']} GPUs" in drawn.question
    assert engine.format_number(drawn.expected) in drawn.solution


def test_a_bad_seed_is_refused() -> None:
    for seed in (None, -1, engine.MAX_SEED + 1):
        with pytest.raises(engine.DrillError, match="seed"):
            engine.draw(CARD, seed)


def test_grading_converts_units_and_suggests_a_rating() -> None:
    drawn = engine.draw(CARD, 11)
    exact = engine.grade(drawn, f"{drawn.expected} GB")
    assert exact.correct and exact.suggested_rating == 3
    gib = drawn.expected * 1e9 / 2**30
    assert engine.grade(drawn, f"{gib:.4f} GiB").correct
    assert not engine.grade(drawn, f"{gib:.4f} GB").correct  # GiB figure typed as GB: 7% off
    close = engine.grade(drawn, f"{drawn.expected * 1.05} GB")
    assert not close.correct and close.suggested_rating == 2
    far = engine.grade(drawn, f"{drawn.expected * 2} GB")
    assert far.suggested_rating == 1 and far.relative_error == pytest.approx(1.0)


def test_fixed_numeric_card_draws_its_value() -> None:
    view = load_catalog(FIXTURE_CONTENT).card("alpha-busbw")
    assert view is not None and isinstance(view.card, NumericCard)
    drawn = engine.draw(view.card)
    assert (drawn.seed, drawn.expected, drawn.unit) == (None, 175, "GB/s")


@pytest.mark.parametrize(
    ("value", "text"),
    [(7, "7"), (175.0, "175"), (0.21875, "0.2188"), (1.75e9, "1.75×10⁹"), (2.5e-5, "2.5×10⁻⁵")],
)
def test_numbers_are_formatted_for_reading(value: float, text: str) -> None:
    assert engine.format_number(value) == text


DRILL = """\
```card
id: t-drill
kind: numeric
question: |
  {question}
drill:
{drill}
unit: {unit}
answer: |
  {{{{ answer }}}}
rubric:
  - point: one
    keywords: [one]
  - point: two
    keywords: [two]
  - point: three
    keywords: [three]
followups:
  - question: Why?
    answer: Because.
mistakes:
  - This.
sources:
  - src
```
"""

GOOD_DRILL = """\
  lab: collectives.busbw_from_algbw
  inputs:
    op: all_reduce
  vary:
    ranks: {choices: [8, 16]}
    algbw_Bps: {min: 1e9, max: 1e11}"""


def load_drill(tmp_path: Path, question: str = "{{ ranks }} ranks?", drill: str = GOOD_DRILL,
               unit: str = "GB/s") -> None:  # fmt: skip
    write_topic(tmp_path, DRILL.format(question=question, drill=drill, unit=unit))
    load_catalog(tmp_path, check=check_topic)


def test_a_good_drill_loads(tmp_path: Path) -> None:
    load_drill(tmp_path)


@pytest.mark.parametrize(
    ("kwargs", "problem"),
    [
        ({"question": "{{ rank }} ranks?"}, "unknown placeholder {{ rank }}"),
        ({"question": "{{ ranks | furlong }}"}, "unknown unit 'furlong'"),
        ({"drill": GOOD_DRILL.replace("busbw_from_algbw", "nope")}, "unknown lab function"),
        ({"drill": GOOD_DRILL.replace("algbw_Bps", "algbw")}, "takes no algbw"),
        ({"drill": GOOD_DRILL.replace("  inputs:\n    op: all_reduce\n", "")}, "also needs op"),
        ({"drill": GOOD_DRILL + "\n  output: time_s"}, "gives no number 'time_s'"),
        ({"drill": GOOD_DRILL.replace("1e11", "1e8")}, "must be below max"),
        ({"drill": GOOD_DRILL.replace("[8, 16]", "[0]")}, "draws in a row were invalid"),
    ],
)
def test_broken_drills_fail_the_content_check(
    tmp_path: Path, kwargs: dict[str, str], problem: str
) -> None:
    with pytest.raises(ContentError, match=problem.replace("{", r"\{").replace("}", r"\}")):
        load_drill(tmp_path, **kwargs)


def test_a_card_cannot_have_both_value_and_drill(tmp_path: Path) -> None:
    with pytest.raises(ContentError, match="either a fixed value or a drill"):
        load_drill(tmp_path, unit="GB/s\nvalue: 3")


def test_recall_cards_are_untouched_by_drills(tmp_path: Path) -> None:
    write_topic(tmp_path, recall_card())
    assert load_catalog(tmp_path).cards[0].kind == "recall"


def test_a_broken_drill_is_reported_at_its_drill_key(tmp_path: Path) -> None:
    text = DRILL.format(question="{{ rank }} ranks?", drill=GOOD_DRILL, unit="GB/s")
    path = write_topic(tmp_path, text)
    drill_line = path.read_text().splitlines().index("drill:") + 1
    renderer = Renderer()
    catalog = load_catalog(tmp_path, renderer)  # loading alone draws nothing
    with pytest.raises(ContentError) as raised:
        check_topic(catalog.topics[0], renderer, draws=1)
    assert raised.value.path == path and raised.value.line == drill_line


@pytest.mark.slow
def test_loading_in_several_processes_checks_drills_as_one_process_does(tmp_path: Path) -> None:
    from tests.content.test_loader import _large_set

    content = _large_set(tmp_path)
    files = sorted((content / "topics").glob("*.md"))
    broken = next(f for f in files[2:] if "lab: collectives." in f.read_text())
    broken.write_text(broken.read_text().replace("lab: collectives.", "lab: collectives.no_", 1))
    with pytest.raises(ContentError, match="unknown lab function") as alone:
        load_catalog(content, check=at_startup())
    with pytest.raises(ContentError) as together:
        load_catalog(content, processes=2, check=at_startup())
    assert str(together.value) == str(alone.value)
    assert together.value.path == broken

"""Follow-ups that name the rubric points they probe: the format, its errors, the real content."""

from pathlib import Path

import pytest

from app.content.loader import load_catalog
from tests.conftest import REAL_CONTENT
from tests.content.helpers import card, write_topic
from tests.content.test_loader import assert_error, line_of


def with_followups(lines: str) -> str:
    return card().replace(
        "followups:\n  - question: Why?\n    answer: Because.\n", f"followups:\n{lines}"
    )


def test_a_follow_up_is_a_question_with_a_reference_answer_and_maybe_probes(
    tmp_path: Path,
) -> None:
    write_topic(
        tmp_path,
        with_followups(
            "  - question: Why?\n"
            "    answer: Because the ring has $N-1$ steps.\n"
            "  - question: And with a latency $\\alpha$?\n"
            "    probes: [0, 2]\n"
            "    answer: |\n"
            "      $2(N-1)\\alpha$ more.\n"
        ),
    )
    view = load_catalog(tmp_path).card("t-one")
    assert view is not None
    assert [f.question for f in view.card.followups] == ["Why?", "And with a latency $\\alpha$?"]
    assert [f.probes for f in view.card.followups] == [[], [0, 2]]
    assert "<math" in view.followups_html[1]  # rendered like any other follow-up
    assert "<math" in view.followup_answers_html[0] and "<math" in view.followup_answers_html[1]


def test_a_follow_up_without_a_reference_answer_is_refused(tmp_path: Path) -> None:
    path = write_topic(tmp_path, with_followups("  - Why?\n"))
    assert_error(tmp_path, path, line_of(path, "- Why?"), "followups.0.answer")


@pytest.mark.parametrize(
    ("lines", "needle", "message"),
    [
        (
            "  - question: Why?\n    answer: A.\n  - question: How?\n    answer: B.\n"
            "    probes: [0, 3]\n",
            "probes: [0, 3]",
            "followups.1.probes.1: probes point 3, but the rubric's points are numbered 0 to 2",
        ),
        (
            "  - question: How?\n    answer: B.\n    probes:\n      - 1\n      - -1\n",
            "- -1",
            "followups.0.probes.1: probes point -1",
        ),
        (
            "  - question: How?\n    answer: B.\n    probes: [1, 1]\n",
            "probes: [1, 1]",
            "followups.0.probes: a rubric point is named twice",
        ),
        (
            "  - question: How?\n    answer: B.\n    probes: [first]\n",
            "probes: [first]",
            "followups.0.probes.0",
        ),
        (
            "  - question: How?\n    answer: B.\n    probe: [1]\n",
            "probe: [1]",
            "unknown field 'followups.0.probe'",
        ),
        (
            "  - probes: [1]\n    answer: B.\n",
            "probes: [1]",
            "followups.0.question: required field missing",
        ),
    ],
)
def test_a_bad_follow_up_names_its_line(
    tmp_path: Path, lines: str, needle: str, message: str
) -> None:
    path = write_topic(tmp_path, with_followups(lines))
    assert_error(tmp_path, path, line_of(path, needle), "card 't-one'", message)


def test_every_topic_aims_its_follow_ups() -> None:
    """Each of the ten topics tags follow-ups with the points they probe (indexes in range
    are the loader's check); most follow-ups probe something."""
    catalog = load_catalog(REAL_CONTENT)
    assert len(catalog.topics) == 10
    tagged = total = 0
    for topic in catalog.topics:
        followups = [f for c in topic.cards for f in c.card.followups]
        assert any(f.probes for f in followups), topic.slug
        tagged += sum(1 for f in followups if f.probes)
        total += len(followups)
    assert tagged / total > 0.7

"""A point that is an order ("intra-node tests before inter-node") is made only in that order."""

from app.content.schema import RubricPoint
from app.grading import points_made
from tests.grading.real import REAL_FIELD

QUESTION = "In what order do you isolate a node suspected of causing hangs?"
INTRA_FIRST = [
    RubricPoint(
        point="Intra-node nccl-tests before inter-node",
        keywords=["intra-node nccl-tests", "single-node nccl-tests"],
        order=[["intra-node", "single-node", "one node"], ["inter-node", "across nodes"]],
    )
]


def check(answer: str) -> object:
    return points_made(INTRA_FIRST, answer, QUESTION, field=REAL_FIELD)


def test_the_order_given_makes_the_point() -> None:
    result = check("1. drain it\n2. single-node nccl-tests\n3. then inter-node nccl-tests")
    assert result.points == [0]


def test_the_other_order_does_not_and_says_so_in_the_answers_words() -> None:
    result = check("1. drain it\n2. inter-node nccl-tests first\n3. then single-node nccl-tests")
    assert result.points == []
    assert result.withheld[0] == "puts “inter-node” before “single-node”, the other way round"


def test_a_step_left_out_is_named() -> None:
    result = check("run single-node nccl-tests on it")
    assert result.points == []
    assert result.withheld[0] == "needs “inter-node” or “across nodes”"


def test_intra_is_no_misspelling_of_inter() -> None:
    """A typo is forgiven in a long word, but not one that turns a word into its opposite."""
    result = check("1. drain it\n2. inter-node nccl-tests\n3. then more inter-node nccl-tests")
    assert result.points == [] and "needs “intra-node”" in result.withheld[0]


def test_a_step_of_only_common_words_is_no_step() -> None:
    """ "since when" says nothing a sentence does not: it is left out, not looked for."""
    point = [
        RubricPoint(
            point="Checks what changed before assuming a fault",
            keywords=["what changed"],
            order=[["what changed", "since when"], ["fault", "broken node"]],
        )
    ]
    result = points_made(point, "first check what changed, then look for a fault", field=REAL_FIELD)
    assert result.points == [0]

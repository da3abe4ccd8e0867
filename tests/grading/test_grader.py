"""The grader credits a point on its own evidence, and not when the answer denies it."""

from pathlib import Path

from app.content.loader import load_catalog
from app.content.schema import RubricPoint
from app.grading import Field, check, points_made
from app.mock import rubric
from tests.grading.real import REAL_CATALOG, REAL_FIELD

RING = [
    RubricPoint(
        point="Splits the all-reduce into a reduce-scatter followed by an all-gather",
        keywords=["reduce-scatter", "all-gather"],
    ),
    RubricPoint(point="States 2(N−1)K/N per rank", keywords=["2(N-1)K/N", "2(N-1)/N"]),
    RubricPoint(point="Notes that it tends to 2K and does not grow with N", keywords=["2K"]),
]
QUESTION = "How many bytes does each GPU send in a ring all-reduce of K bytes over N GPUs?"
FIXTURES = Path(__file__).parent.parent / "fixtures" / "content"


def made(answer: str) -> list[int]:
    return points_made(RING, answer, QUESTION, field=REAL_FIELD).points


def test_a_strong_answer_makes_every_point_with_a_reason_each() -> None:
    result = points_made(
        RING, "RS then AG, 2(n-1)/n * K per gpu, so ~2K whatever N is", QUESTION, field=REAL_FIELD
    )
    assert result.points == [0, 1, 2]
    # Each reason quotes the answer's own words, not the keyword they stand for.
    assert result.reasons == {0: "matched “RS”, “AG”", 1: "matched “2(n-1)/n”", 2: "matched “2K”"}


def test_a_point_denied_is_not_made() -> None:
    assert made("it's not a reduce-scatter + all-gather; every GPU sends the whole K") == []
    assert made("each GPU sends (N-1)K, rather than 2(N-1)K/N") == []


def test_numbers_inside_other_numbers_and_words_are_not_evidence() -> None:
    assert made("12K per rank, 2Kb packets") == []


def test_what_is_said_of_another_subject_does_not_count() -> None:
    fsdp = [
        RubricPoint(point="DP all-reduces gradients", keywords=["all-reduce"]),
        RubricPoint(point="FSDP all-gathers parameters", keywords=["all-gather parameters"]),
    ]
    said = "DP all-gathers parameters each step, FSDP all-reduces"
    assert points_made(fsdp, said, "What does each do?", field=REAL_FIELD).points == []
    right = "DP all-reduces gradients, FSDP all-gathers parameters"
    assert points_made(fsdp, right, "What does each do?", field=REAL_FIELD).points == [0, 1]


def test_words_that_only_repeat_the_question_prove_little() -> None:
    point = [RubricPoint(point="Explains why the ring is bandwidth-optimal", keywords=["ring"])]
    assert points_made(point, "the ring", "Why is the ring optimal?", field=REAL_FIELD).points == []


def test_check_grades_a_card_of_the_catalog() -> None:
    catalog = load_catalog(FIXTURES)
    card = catalog.card("alpha-ring-bytes")
    assert card is not None
    assert check(card, "reduce-scatter, then all-gather", Field.of(catalog)).points == [0]


def test_the_mock_suggestions_use_the_same_grader() -> None:
    answers = ("a reduce scatter then", "an all gather; not 2(N-1)/N")
    assert rubric.suggested_points(RING, *answers, field=REAL_FIELD) == [0]
    said = rubric.suggested_points(RING, "", "2(N-1)K/N", field=REAL_FIELD, question=QUESTION)
    assert said == [1]


def test_every_card_of_the_content_can_be_checked() -> None:
    """A keyword of only common words ("what-if", "again") is no evidence, not a crash."""
    for card in REAL_CATALOG.cards:
        check(card, "a what-if answer, said again", REAL_FIELD)
    only_common = [RubricPoint(point="Runs a what-if analysis", keywords=["what-if"])]
    assert points_made(only_common, "no idea", field=REAL_FIELD).points == []


def test_an_answer_that_clearly_makes_several_points_needs_less_for_the_rest() -> None:
    rubric = [
        RubricPoint(point="Splits into reduce-scatter and all-gather", keywords=["reduce-scatter"]),
        RubricPoint(point="States 2(N−1)K/N per rank", keywords=["2(N-1)K/N"]),
        RubricPoint(point="Notes that it tends to 2K", keywords=["2K"]),
        RubricPoint(point="Names the ring's latency term", keywords=["latency", "2(N-1)α"]),
    ]
    weak = "the latency grows with N"
    assert points_made(rubric, weak, QUESTION, field=REAL_FIELD).points == []
    strong = "splits into reduce-scatter and all-gather, 2(N-1)K/N per rank, tends to 2K. " + weak
    assert points_made(rubric, strong, QUESTION, field=REAL_FIELD).points == [0, 1, 2, 3]


def test_most_of_a_long_phrase_is_evidence_too() -> None:
    rubric = [
        RubricPoint(point="Tensor pipe activity shows real math", keywords=["PIPE_TENSOR_ACTIVE"])
    ]
    assert points_made(
        rubric, "look at tensor pipe activity, it shows real math", field=REAL_FIELD
    ).points == [0]
    assert points_made(
        rubric, "tensor activity shows real math, not util", field=REAL_FIELD
    ).points == [0]
    assert points_made(rubric, "the pipe is active", field=REAL_FIELD).points == []


def test_a_reason_quotes_the_answers_own_words_not_their_stems() -> None:
    card = REAL_CATALOG.card("par-zero3-volume")
    assert card is not None
    answer = (
        "zero-3 gathers the params in forward and again in backward, then reduce-scatters "
        "grads: 3 psi total, 1.5x plain DP"
    )
    reason = check(card, answer, REAL_FIELD).reasons[2]
    assert "the point's words " in reason
    words = reason.split("the point's words ")[1].split(", ")
    assert words and all(word.lower() in answer.lower() for word in words), words


def test_a_unit_or_a_generic_term_the_point_writes_does_not_carry_it_alone() -> None:
    point = [RubricPoint(point="Puts in realistic numbers, in µs and GB/s", keywords=["5 µs"])]
    assert points_made(point, "realistic: it moves GB/s", field=REAL_FIELD).points == []
    assert points_made(point, "realistic numbers: 5 µs and 50 GB/s", field=REAL_FIELD).points == [0]
    generic = [RubricPoint(point="Counts the bytes of each all-gather", keywords=["all-gather"])]
    assert points_made(generic, "there is an all-gather", field=REAL_FIELD).points == []

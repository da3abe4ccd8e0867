"""A common mistake said in other words is found by its claim: most of what the first sentence
of its text asserts, said in one affirmative statement."""

import pytest
from pydantic import ValidationError

from app.content.schema import Mistake, RubricPoint
from app.grading import points_made
from tests.grading.real import REAL_FIELD

QUESTION = "What does ZeRO-Offload cost, and when is it worth it?"
RUBRIC = [
    RubricPoint(
        point="Optimizer states and the update move to the CPU",
        keywords=["optimizer states on the CPU", "update on the CPU"],
    ),
    RubricPoint(
        point="PCIe carries gradients down and weights up",
        keywords=["PCIe", "gradients down", "weights up"],
    ),
]
# Evidence that no answer below types: only the claim can find these mistakes.
FREE = Mistake(
    text="Thinking offload is free because transfers overlap. PCIe is several times slower.",
    evidence=[["offload never costs a thing"]],
)
FORGETTING = Mistake(
    text="Forgetting the host memory that the fp32 optimizer states take.",
    evidence=[["host memory is irrelevant"]],
)
ONLY_SLOW = Mistake(
    text="Profiling only the slow build. Without a baseline you cannot tell what changed.",
    evidence=[["just profile the bad run"]],
)
RATIO = Mistake(
    text="Quoting a 36× cliff from NVLink to the network. Per direction it is 18×.",
    evidence=[["cliff of 36"]],
)
SHRINKS = Mistake(
    text="Saying the pipeline bubble shrinks with more stages.",
    evidence=[["bubble shrinks with more stages"]],
)


def found(mistake: Mistake, answer: str) -> list[int]:
    return points_made(RUBRIC, answer, QUESTION, [mistake], field=REAL_FIELD).mistakes


def test_a_mistake_in_other_words_is_found_by_its_claim() -> None:
    said = "the transfers overlap with backward so offload is basically free"
    assert found(FREE, said) == [0]
    result = points_made(RUBRIC, said, QUESTION, [FREE], field=REAL_FIELD)
    assert result.mistake_reasons[0] == f"You said “{said}”"  # the answer's own words


def test_a_statement_that_denies_or_contrasts_does_not_state_it() -> None:
    for said in (
        "offload is not free even though the transfers overlap",
        "transfers overlap, but offload is far from free: PCIe is slow",
        "offload looks free because transfers overlap, except PCIe is 7x slower than NVLink",
    ):
        assert found(FREE, said) == [], said


def test_its_words_in_separate_statements_do_not_state_it() -> None:
    said = (
        "Offload moves the optimizer states to the CPU. The transfers overlap. It is free software."
    )
    assert found(FREE, said) == []


def test_a_mistake_of_leaving_something_out_is_never_found_by_its_words() -> None:
    """An answer that names what the mistake forgets says the opposite of the mistake."""
    said = "host memory for the fp32 optimizer states: 12 bytes per parameter"
    assert found(FORGETTING, said) == []


def test_a_word_the_claim_turns_on_is_needed() -> None:
    assert found(ONLY_SLOW, "profile only the slow build and diff the kernels") == [0]
    assert found(ONLY_SLOW, "profile the slow build and the good build, then diff") == []


def test_a_figure_the_claim_gives_is_needed() -> None:
    assert found(RATIO, "NVLink to network is a 36x cliff per GPU") == [0]
    assert found(RATIO, "NVLink to network is an 18x cliff per GPU") == []


def test_a_direction_the_claim_gives_is_needed() -> None:
    assert found(SHRINKS, "with more stages the pipeline bubble gets smaller, it shrinks") == [0]
    assert found(SHRINKS, "more stages: the pipeline bubble grows") == []


def test_a_statement_that_states_a_mistake_makes_no_point() -> None:
    """Its words are the wrong claim's: what it says of PCIe is no evidence that the answer
    knows what PCIe carries; the same words in a statement of their own are."""
    one = "PCIe carries gradients down and weights up and the transfers overlap so offload is free."
    result = points_made(RUBRIC, one, QUESTION, [FREE], field=REAL_FIELD)
    assert result.mistakes == [0] and result.points == []
    assert result.withheld[1] == f"said only where you stated a common mistake: “{one[:-1]}”"
    apart = "PCIe carries gradients down and weights up. The transfers overlap so offload is free."
    result = points_made(RUBRIC, apart, QUESTION, [FREE], field=REAL_FIELD)
    assert result.mistakes == [0] and result.points == [1]


def test_a_different_count_of_what_the_claim_counts_does_not_state_it() -> None:
    nic = Mistake(
        text="Using one NIC's 50 GB/s for a group with 8 ranks per node.",
        evidence=[["the slowest NIC decides"]],
    )
    assert found(nic, "a group with 8 ranks per node shares one NIC at 50 GB/s") == [0]
    # every word of the claim is there, 8 included, but 8 counts nodes, and one counts ranks
    assert found(nic, "a group of 8 nodes with one rank per node uses one NIC at 50 GB/s") == []


def test_a_mistakes_claims_find_it_in_the_words_candidates_type() -> None:
    """The text's first sentence says "exactly k experts under Expert Choice"; a candidate
    types "every token still gets its k experts": only a claim written that way finds it."""
    text = "Saying every token gets exactly k experts under Expert Choice. Some get none."
    answer = "EC is a drop-in swap, every token still gets its k experts, picked by the experts."
    rubric = [RubricPoint(point="Experts pick their top tokens", keywords=["experts pick"])]
    question = "What changes with Expert Choice routing?"
    plain = Mistake(text=text, evidence=[["exactly k experts per token"]])
    claimed = plain.model_copy(update={"claims": ["every token gets its k experts"]})
    assert points_made(rubric, answer, question, [plain], field=REAL_FIELD).mistakes == []
    assert points_made(rubric, answer, question, [claimed], field=REAL_FIELD).mistakes == [0]
    denied = "Not every token gets its k experts: some get none, others more."
    assert points_made(rubric, denied, question, [claimed], field=REAL_FIELD).mistakes == []


def test_a_claim_of_one_or_two_words_is_refused() -> None:
    with pytest.raises(ValidationError, match="too short to be a claim"):
        Mistake(text="Saying X.", evidence=[["x is y"]], claims=["AG first"])

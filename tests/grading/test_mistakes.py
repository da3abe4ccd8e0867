"""A wrong answer is known by what it says: stated mistakes, missing substance, other values."""

from app.content.schema import Mistake, RubricPoint
from app.grading import points_made
from app.grading.grader import quote
from tests.grading.real import REAL_FIELD

RING = [
    RubricPoint(
        point="Splits the all-reduce into a reduce-scatter followed by an all-gather",
        keywords=["reduce-scatter", "all-gather"],
    ),
    RubricPoint(point="States 2(N−1)K/N per rank", keywords=["2(N-1)K/N", "2(N-1)/N"]),
    RubricPoint(
        point="Notes that it tends to 2K and does not grow with N",
        keywords=["2K", "independent of N", "does not grow with N"],
    ),
]
QUESTION = "How many bytes does each GPU send in a ring all-reduce of K bytes over N GPUs?"
MISTAKES = [
    Mistake(
        text="Saying each GPU sends (N−1)K, every rank sending its whole buffer to every other.",
        evidence=[["(N-1)K"], ["K(N-1)"], ["whole buffer", "every other rank"]],
        contradicts=[1, 2],
    ),
    Mistake(
        text="Saying the time is independent of N. Only the bandwidth term is.",
        evidence=[["time is independent of N"], ["latency", "does not depend on N"]],
        contradicts=[2],
    ),
    Mistake(text="A plain mistake, with no detector."),
]


def grade(answer: str, rubric: list[RubricPoint] = RING) -> object:
    return points_made(rubric, answer, QUESTION, MISTAKES, field=REAL_FIELD)


def test_a_stated_mistake_is_found_with_the_answers_own_words() -> None:
    result = points_made(
        RING,
        "RS then AG.\nEach GPU sends (N−1)·K bytes in all.",
        QUESTION,
        MISTAKES,
        field=REAL_FIELD,
    )
    assert result.mistakes == [0]
    assert result.mistake_reasons[0] == "You said “Each GPU sends (N−1)·K bytes in all”"


def test_a_mistake_made_of_several_elements_needs_them_on_one_line() -> None:
    said = "every rank sends its whole buffer to every other rank"
    assert points_made(RING, said, QUESTION, MISTAKES, field=REAL_FIELD).mistakes == [0]
    apart = "every rank keeps its whole buffer.\n\nThen it talks to every other rank."
    assert points_made(RING, apart, QUESTION, MISTAKES, field=REAL_FIELD).mistakes == []


def test_a_denied_mistake_is_not_the_mistake() -> None:
    for answer in (
        "the time is NOT independent of N: the latency term grows",
        "it is wrong to say the time is independent of N",
        "each GPU does not send (N-1)K",
        "rather than K(N-1), each GPU sends 2(N-1)K/N",
    ):
        assert points_made(RING, answer, QUESTION, MISTAKES, field=REAL_FIELD).mistakes == [], (
            answer
        )
    said = "the time is independent of N"
    assert points_made(RING, said, QUESTION, MISTAKES, field=REAL_FIELD).mistakes == [1]


def test_a_point_a_stated_mistake_contradicts_is_not_credited() -> None:
    answer = (
        "It splits into a reduce-scatter followed by an all-gather; each GPU sends 2(N-1)K/N "
        "per rank, a factor 2(N-1)/N of the buffer, about 2K. Also, the time is independent of N."
    )
    result = points_made(RING, answer, QUESTION, MISTAKES, field=REAL_FIELD)
    assert result.mistakes == [1]
    assert result.points == [0, 1]
    assert "contradicted" in result.withheld[2] and "independent of N" in result.withheld[2]


def test_an_answer_that_states_a_mistake_needs_more_than_the_cards_words() -> None:
    right = (
        "Reduce-scatter then all-gather; each GPU sends 2(N-1)K/N per rank, a factor 2(N-1)/N "
        "of K, about 2K."
    )
    assert points_made(RING, right, QUESTION, MISTAKES, field=REAL_FIELD).points == [0, 1, 2]
    # Once it states a mistake, two of the card's terms no longer make a point: the grader
    # cannot decide it (the interviewer model is offered). The formula it writes still does.
    wrong = right + " Also, the time is independent of N."
    result = points_made(RING, wrong, QUESTION, MISTAKES, field=REAL_FIELD)
    assert result.mistakes == [1] and result.points == [1]
    assert 0 in result.unsure and result.undecided


def test_a_mistake_without_evidence_is_found_only_by_its_claims_words() -> None:
    """ "A plain mistake, with no detector." has no evidence: only an answer that says most
    of its words, in one statement, states it (tests/grading/test_claims.py)."""
    for answer in ("RS then AG, 2(N-1)K/N per rank", "a mistake, plainly", "a detector"):
        assert points_made(RING, answer, QUESTION, MISTAKES, field=REAL_FIELD).mistakes == []


def test_a_point_needs_its_substance_not_only_its_words() -> None:
    needs = [
        RubricPoint(point="Splits into reduce-scatter and all-gather", keywords=["reduce-scatter"]),
        RubricPoint(
            point="Gets about 0.54 s for the all-reduce",
            keywords=["all-reduce time", "0.54 s", "half a second"],
            needs=[["0.54 s", "half a second"]],
        ),
        RubricPoint(
            point="Latency grows linearly with N",
            keywords=["latency term", "linear"],
            needs=[["grows with N", "linear in N"]],
        ),
    ]
    right = "all-reduce time is 0.54 s; the latency term is linear in N"
    assert points_made(needs, right, field=REAL_FIELD).points == [1, 2]
    words_only = "the all-reduce time and the latency term matter"
    result = points_made(needs, words_only, field=REAL_FIELD)
    assert result.points == []
    assert result.withheld[1].startswith("needs “0.54 s”")


def test_a_different_value_for_the_points_own_figure_is_a_contradiction() -> None:
    point = [
        RubricPoint(
            point="Expects about 360 GB/s of busbw",
            keywords=["busbw", "360 GB/s", "80% of 450"],
            needs=[["360 GB/s", "80% of 450"]],
        ),
        RubricPoint(point="Uses NVLink", keywords=["NVLink"]),
        RubricPoint(point="Per direction", keywords=["per direction"]),
    ]
    result = points_made(point, "expect a busbw of about 720 GB/s at 80%", field=REAL_FIELD)
    assert 0 not in result.points
    # quoted as typed ("GB/s"), not as read
    assert result.withheld[0].startswith("gives “720 GB/s”, where the point's figure is")
    assert points_made(point, "expect a busbw of about 360 GB/s", field=REAL_FIELD).points == [0]


def test_bits_stay_bits() -> None:
    point = [
        RubricPoint(point="Converts to 50 GB/s", keywords=["50 GB/s"], needs=[["50 GB/s"]]),
        RubricPoint(point="Uses NVLink", keywords=["NVLink"]),
        RubricPoint(point="Per direction", keywords=["per direction"]),
    ]
    assert points_made(point, "the NIC is 400 Gb/s", field=REAL_FIELD).points == [0]
    assert points_made(point, "the NIC is 400 GB/s", field=REAL_FIELD).points == []


def test_a_claim_about_another_subject_does_not_make_the_point() -> None:
    rubric = [
        RubricPoint(
            point="Distinguishes hardware FLOPs utilisation, which counts recompute",
            keywords=["counts recompute", "includes recompute"],
        ),
        RubricPoint(point="Defines MFU over peak", keywords=["model FLOPs over peak"]),
        RubricPoint(point="Uses the dense peak", keywords=["dense peak"]),
    ]
    assert (
        0
        not in points_made(rubric, "MFU includes recompute, HFU does not", field=REAL_FIELD).points
    )
    assert 0 in points_made(rubric, "HFU includes recompute, MFU does not", field=REAL_FIELD).points


def test_a_point_at_the_threshold_is_one_the_grader_cannot_decide() -> None:
    result = points_made(RING, "splits into a reduce-scatter", QUESTION, field=REAL_FIELD)
    assert result.points == [] and result.unsure == [0] and result.undecided
    assert not points_made(
        RING, "RS then AG, 2(N-1)K/N, about 2K", QUESTION, field=REAL_FIELD
    ).undecided


def test_quote_finds_the_original_words_of_a_statement() -> None:
    text = "First:  Ring does 2(N−1) steps.\nThen the time is independent of N!"
    assert quote(text, "then the time is independent of n") == "Then the time is independent of N!"


def test_a_count_in_a_mistake_is_next_to_what_it_counts() -> None:
    three = [Mistake(text="Counting three all-gathers.", evidence=[["three all-gathers"]])]
    said = "ZeRO-3 does three all-gathers per step"
    assert points_made(RING, said, QUESTION, three, field=REAL_FIELD).mistakes == [0]
    apart = "stage 3 needs one more all-gather, so 3Ψ in total"
    assert points_made(RING, apart, QUESTION, three, field=REAL_FIELD).mistakes == []


def test_a_point_that_writes_a_formula_or_a_figure_needs_it_though_the_card_says_no_needs() -> None:
    formula = [
        RubricPoint(
            point="Each GPU sends 2(N−1)K/N bytes in the ring",
            keywords=["bytes each GPU sends", "2(N-1)/N"],
        )
    ]
    words_only = "the bytes each GPU sends in the ring are (N-1)K"
    result = points_made(formula, words_only, field=REAL_FIELD)
    assert result.points == [] and "2(N−1)K/N" in result.withheld[0]
    for right in ("the bytes each GPU sends: 2(N-1)K/N", "bytes each GPU sends = 2K(N−1)/N"):
        assert points_made(formula, right, field=REAL_FIELD).points == [0], right
    figure = [
        RubricPoint(
            point="Uses 450 GB/s per direction of NVLink",
            keywords=["per direction", "NVLink per direction"],
        )
    ]
    assert points_made(figure, "NVLink per direction: 0.45 TB/s", field=REAL_FIELD).points == [0]
    result = points_made(figure, "NVLink per direction is 900 GB/s", field=REAL_FIELD)
    assert result.points == [] and "“900 GB/s”" in result.withheld[0]


def test_a_mistakes_two_words_the_other_way_round_state_it_and_a_negation_still_blocks() -> None:
    skew = [Mistake(text="Blaming launch skew.", evidence=[["launch skew"]])]
    said = "the culprit is the skew of the launches"
    assert points_made(RING, said, QUESTION, skew, field=REAL_FIELD).mistakes == [0]
    denied = "the launches are not skewed; it is the network"
    assert points_made(RING, denied, QUESTION, skew, field=REAL_FIELD).mistakes == []
    apart = "launches were fine. the skew came from the data loader"
    assert points_made(RING, apart, QUESTION, skew, field=REAL_FIELD).mistakes == []


def test_what_an_answer_says_it_is_different_from_it_does_not_state() -> None:
    balance = [Mistake(text="Calling z-loss a load balancer.", evidence=[["load balancing"]])]
    unlike = "different from load balancing: it only keeps the logits small"
    assert points_made(RING, unlike, QUESTION, balance, field=REAL_FIELD).mistakes == []
    assert points_made(RING, "unlike load balancing, it bounds logits", QUESTION, balance,
                       field=REAL_FIELD).mistakes == []  # fmt: skip
    said = "it is load balancing by another name"
    assert points_made(RING, said, QUESTION, balance, field=REAL_FIELD).mistakes == [0]


def test_a_factor_the_point_writes_is_needed_in_any_notation() -> None:
    point = [
        RubricPoint(point="ZeRO-3 moves about 1.5× the bytes of DP", keywords=["ZeRO-3 bytes"])
    ]
    for right in ("ZeRO-3 bytes: 1.5x DP", "ZeRO-3 bytes are 1.5 times DP's", "ZeRO-3 bytes ~1.5×"):
        assert points_made(point, right, field=REAL_FIELD).points == [0], right
    result = points_made(point, "ZeRO-3 bytes: 2x those of DP", field=REAL_FIELD)
    assert result.points == [] and "1.5x" in result.withheld[0]


def test_a_word_that_reverses_between_a_phrases_words_breaks_it() -> None:
    """ "goes through, outside the router" does not say "goes through the router"; "same alpha,
    different constraint" does not say "same constraint"."""
    shared = [
        Mistake(
            text="Treating the shared expert as one more routed expert.",
            evidence=[["shared expert goes through the router"], ["same constraint at any scope"]],
        )
    ]

    def found(answer: str) -> list[int]:
        return points_made(RING, answer, QUESTION, shared, field=REAL_FIELD).mistakes

    assert found("the shared expert goes through the router like the others") == [0]
    assert found("the shared expert: every token goes through it, outside the router") == []
    assert found("same constraint at any scope") == [0]
    assert found("same alpha, a different constraint at each scope") == []

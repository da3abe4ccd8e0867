"""Direction words are evidence: "more" is not "less", "grows with N" is not "shrinks with N"."""

from app.content.schema import Mistake, RubricPoint
from app.grading import points_made
from tests.grading.real import REAL_FIELD

QUESTION = "How does a tree all-reduce compare with a ring?"
TREE = [RubricPoint(point="Trees send more data per rank", keywords=["trees send more data"])]
LATENCY = [
    RubricPoint(
        point="The latency term grows with N",
        keywords=["latency grows with N"],
        needs=[["grows with N"]],
    )
]
SHRINKS = [
    Mistake(
        text="Saying the bubble shrinks with more stages.",
        evidence=[["bubble shrinks with more stages"]],
    )
]


def made(rubric: list[RubricPoint], answer: str) -> list[int]:
    return points_made(rubric, answer, QUESTION, field=REAL_FIELD).points


def test_a_comparative_needs_its_own_direction() -> None:
    assert made(TREE, "trees send more data") == [0]
    assert made(TREE, "trees send larger amounts of data") == [0]
    assert made(TREE, "trees send bigger data") == [0]  # a comparative of the same direction
    assert made(TREE, "trees send less data") == []
    assert made(TREE, "trees send fewer data") == []
    assert made(TREE, "trees do not send more data") == []


def test_a_verb_of_direction_meets_its_synonyms_not_its_opposite() -> None:
    for said in ("latency grows with N", "latency increases with N", "latency rises with N"):
        assert made(LATENCY, said) == [0], said
    for said in (
        "latency shrinks with N",
        "latency decreases with N",
        "latency falls with N",
        "latency does not grow with N",
    ):
        assert made(LATENCY, said) == [], said


def test_a_verb_of_direction_is_not_a_comparative() -> None:
    """ "more N" says nothing of what grows: "comm grows" is not in "more experts"."""
    assert made(LATENCY, "latency: more N, so more steps") == []


def test_a_mistake_of_one_direction_is_not_found_in_the_other() -> None:
    def found(answer: str) -> list[int]:
        return points_made([], answer, QUESTION, SHRINKS, field=REAL_FIELD).mistakes

    assert found("the bubble shrinks with more stages") == [0]
    assert found("the bubble decreases with more stages") == [0]
    assert found("the bubble grows with more stages") == []
    assert found("the bubble shrinks with fewer stages") == []
    assert found("the bubble does not shrink with more stages") == []


PEAK = [RubricPoint(point="The peak is 16Ψ/N per GPU", keywords=["16Ψ/N"])]
NO_COMM = [
    Mistake(
        text="Saying sequence parallelism adds no communication.",
        evidence=[["SP adds no communication"]],
    )
]


def test_not_just_and_not_only_deny_what_follows() -> None:
    assert made(PEAK, "the peak is 16Ψ/N") == [0]
    assert made(PEAK, "the peak is not just 16Ψ/N") == []
    assert made(PEAK, "the peak is not only 16Ψ/N") == []
    memory = [RubricPoint(point="Saves memory", keywords=["saves memory"])]
    assert made(memory, "it not only saves memory but also time") == [0]


def test_a_double_negation_states_what_it_denies_twice() -> None:
    def found(answer: str) -> list[int]:
        return points_made([], answer, QUESTION, NO_COMM, field=REAL_FIELD).mistakes

    assert found("SP adds no communication") == [0]
    assert found("it's not true that SP adds no communication") == []
    assert found("it is not true that SP adds communication") == []
    assert found("SP adds no communication and no memory") == [0]


LAYOUT = [
    Mistake(
        text="Picking the 3D layout before counting the memory.",
        evidence=[["pick 3D layout"]],
    )
]


def test_an_aside_in_brackets_does_not_hide_the_phrase_before_it() -> None:
    def found(answer: str) -> list[int]:
        return points_made([], answer, QUESTION, LAYOUT, field=REAL_FIELD).mistakes

    assert found("first I pick 3D layout (TP=8 in a node, PP=4)") == [0]
    assert found("first I pick 3D layout") == [0]
    assert found("I don't pick 3D layout (TP=8) first") == []


BOUNCE = [
    RubricPoint(
        point="Without GPUDirect the data bounces through host memory",
        keywords=["bounces through host memory"],
    )
]


def test_without_denies_what_is_lacking_not_what_follows() -> None:
    for said in (
        "without GDR the data bounces through host memory",
        "without GDR, the data bounces through host memory",
        "w/o GDR it bounces through host memory",
    ):
        assert made(BOUNCE, said) == [0], said
    assert made(BOUNCE, "it runs without bounces through host memory") == []
    assert made(BOUNCE, "the data goes without bouncing through host memory") == []
    # "without an error": the article does not end what "without" denies.
    stall = [RubricPoint(point="It stalls", keywords=["stalls without an error"])]
    assert made(stall, "the GPU stalls without an error") == [0]
    assert made(stall, "the GPU stalls with an error") == []


def test_higher_and_faster_are_not_lower_and_slower() -> None:
    rubric = [
        RubricPoint(point="Higher bandwidth in the node", keywords=["higher bandwidth"]),
        RubricPoint(point="The ring is faster for big messages", keywords=["ring is faster"]),
    ]
    said = "NVLink: {} bandwidth in the node; the ring is {} for big messages"
    assert made(rubric, said.format("higher", "faster")) == [0, 1]
    assert made(rubric, said.format("greater", "quicker")) == [0, 1]
    assert made(rubric, said.format("lower", "slower")) == []


def test_only_in_a_phrase_is_required_and_not_only_denies_it() -> None:
    only = [Mistake(text="Counting the dispatch alone.", evidence=[["only the dispatch"]])]

    def found(answer: str) -> list[int]:
        return points_made([], answer, QUESTION, only, field=REAL_FIELD).mistakes

    assert found("only the dispatch crosses the network") == [0]
    assert found("the dispatch and the combine both cross the network") == []
    assert found("not only the dispatch but also the combine") == []
    assert found("it's not only the dispatch that crosses") == []
    crosses = [RubricPoint(point="Dispatch crosses", keywords=["dispatch crosses the network"])]
    assert made(crosses, "not only the dispatch crosses the network but the combine too") == [0]

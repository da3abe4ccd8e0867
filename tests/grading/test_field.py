"""A word's weight comes from how many cards' rubrics use it, counted from the content."""

from pathlib import Path

from fastapi.testclient import TestClient

from app.content.loader import load_catalog
from app.content.schema import RubricPoint
from app.grading import Field, check, points_made
from tests.conftest import ClientFactory
from tests.content.helpers import card, write_topic
from tests.grading.real import REAL_FIELD

# One card whose point is said in words every card of the real content uses ("GPU", "step"):
# the real catalog's counts make them weak evidence; in a folder of five cards, where no other
# card says them, they are strong.
STEP = """\
```card
id: t-step
kind: recall
question: |
  What holds the others up?
answer: |
  The slowest GPU.
rubric:
  - point: Every GPU waits at each step for the slowest one
    keywords: [GPU step]
  - point: A flapping link
    keywords: [flapping]
  - point: Remapping the ranks
    keywords: [remapping]
followups:
  - question: Why?
    answer: Because.
mistakes:
  - Blaming the network.
sources:
  - src
```
"""
SAID = "each GPU step waits"


def _rubric(point: str, keyword: str) -> list[RubricPoint]:
    return [RubricPoint(point=point, keywords=[keyword])]


def test_a_word_many_cards_use_weighs_less_than_one_few_do() -> None:
    words = Field.counted(
        [
            _rubric("Uses the bandwidth of the ring", "ring"),
            _rubric("Names the bandwidth term", "bandwidth"),
            _rubric("Uses the bandwidth of a flapping link", "flapping"),
            _rubric("Counts the GPU bandwidth", "GPU"),
        ]
    )
    assert words.cards == 4
    assert words.rarity("bandwidth") < words.rarity("flap") <= words.rarity("unknownword") == 1
    # "Uses…", "Names…": a verb that opens points says what to do, not what to say.
    assert words.evidence("use") == 0.0
    assert words.evidence("flap") == words.rarity("flap")


def test_no_cards_count_nothing() -> None:
    assert Field.counted([]).cards == 0
    assert Field.counted([[]]).rarity("anything") == 1.0


def test_the_real_catalog_ranks_words_of_the_field_by_how_common_they_are() -> None:
    words = REAL_FIELD
    assert words.cards >= 100
    assert words.rarity("gpu") < words.rarity("residu")
    assert words.evidence("deriv") < words.rarity("deriv") / 2  # "Derives…"


def _tiny(tmp_path: Path) -> Path:
    root = tmp_path / "content"
    write_topic(root, STEP + "".join(card(f"t-{n}") for n in range(4)))
    return root


def test_a_catalog_is_counted_once_from_its_own_cards(tmp_path: Path) -> None:
    tiny = load_catalog(_tiny(tmp_path))
    assert Field.of(tiny) is Field.of(tiny)  # counted once per catalog
    words = Field.of(tiny)
    assert words.cards == 5 and REAL_FIELD.cards > 100
    assert words.rarity("gpu") > 0.5 > 0.35 > REAL_FIELD.rarity("gpu")
    step = tiny.card("t-step")
    assert step is not None
    assert check(step, SAID, words).points == [0]
    assert check(step, SAID, REAL_FIELD).points == []  # the same words, weighed by the real cards


def test_an_app_on_other_content_grades_with_that_contents_words(
    tmp_path: Path, make_client: ClientFactory
) -> None:
    client: TestClient = make_client(content_dir=_tiny(tmp_path))
    response = client.post("/api/cards/t-step/check", json={"answer": SAID})
    assert response.status_code == 200
    assert response.json()["points"] == [0]


def test_common_synonyms_of_the_field_make_the_same_point() -> None:
    point = [RubricPoint(point="The gate concentrates on a few experts", keywords=["few experts"])]
    assert points_made(point, "most tokens go to a couple of experts", field=REAL_FIELD).points == [
        0
    ]
    assert (
        points_made(
            point, "tokens do not go to a couple of experts, spread evenly", field=REAL_FIELD
        ).points
        == []
    )


def test_a_phrase_said_in_another_order_in_one_statement_counts() -> None:
    point = [RubricPoint(point="Launch skew between ranks", keywords=["launch skew"])]
    assert points_made(point, "the skew in kernel launch times", field=REAL_FIELD).points == [0]
    assert points_made(point, "the skew is small. launch is fine", field=REAL_FIELD).points == []

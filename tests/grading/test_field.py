"""A word's weight comes from how many cards' rubrics use it, counted from the content."""

from pathlib import Path

from app.content.schema import RubricPoint
from app.grading import points_made
from app.grading.field import field

CARD = """```card
id: {id}
rubric:
  - point: {point}
    keywords: [{keyword}]
```
"""


def _content(tmp_path: Path, points: list[tuple[str, str]]) -> Path:
    topics = tmp_path / "topics"
    topics.mkdir()
    cards = [CARD.format(id=f"c{i}", point=p, keyword=k) for i, (p, k) in enumerate(points)]
    (topics / "01-t.md").write_text("# T\n\n" + "\n".join(cards), encoding="utf-8")
    return tmp_path


def test_a_word_many_cards_use_weighs_less_than_one_few_do(tmp_path: Path) -> None:
    words = field(
        _content(
            tmp_path,
            [
                ("Uses the bandwidth of the ring", "ring"),
                ("Names the bandwidth term", "bandwidth"),
                ("Uses the bandwidth of a flapping link", "flapping"),
                ("Counts the GPU bandwidth", "GPU"),
            ],
        )
    )
    assert words.cards == 4
    assert words.rarity("bandwidth") < words.rarity("flap") <= words.rarity("unknownword") == 1
    # "Uses…", "Names…": a verb that opens points says what to do, not what to say.
    assert words.evidence("use") == 0.0
    assert words.evidence("flap") == words.rarity("flap")


def test_an_unreadable_card_or_no_content_counts_nothing(tmp_path: Path) -> None:
    topics = tmp_path / "topics"
    topics.mkdir()
    (topics / "01-t.md").write_text("```card\nid: [unclosed\n```\n", encoding="utf-8")
    assert field(tmp_path).cards == 0
    assert field(tmp_path / "missing").rarity("anything") == 1.0


def test_the_real_catalog_ranks_words_of_the_field_by_how_common_they_are() -> None:
    words = field()
    assert words.cards >= 100
    assert words.rarity("gpu") < words.rarity("residu")
    assert words.evidence("deriv") < words.rarity("deriv") / 2  # "Derives…"


def test_common_synonyms_of_the_field_make_the_same_point() -> None:
    point = [RubricPoint(point="The gate concentrates on a few experts", keywords=["few experts"])]
    assert points_made(point, "most tokens go to a couple of experts").points == [0]
    assert points_made(point, "tokens do not go to a couple of experts, spread evenly").points == []


def test_a_phrase_said_in_another_order_in_one_statement_counts() -> None:
    point = [RubricPoint(point="Launch skew between ranks", keywords=["launch skew"])]
    assert points_made(point, "the skew in kernel launch times").points == [0]
    assert points_made(point, "the skew is small. launch is fine").points == []

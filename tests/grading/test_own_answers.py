"""A card states none of its own common mistakes: `ringside content check` says where one does."""

from pathlib import Path

import pytest

from app.content.loader import ContentError, load_catalog
from app.grading.own_answers import as_typed, check_own_answers
from tests.content.helpers import write_topic

CARD = """\
```card
id: t-ring
kind: recall
question: |
  How does a ring all-reduce proceed?
answer: |
  A reduce-scatter first, then an all-gather: **each** rank sends $2(N-1)K/N$ bytes.
rubric:
  - point: Reduce-scatter before the all-gather
    keywords: [reduce-scatter first]
  - point: Each rank sends 2(N-1)K/N
    keywords: ["2(N-1)K/N"]
  - point: N-1 steps a phase
    keywords: [N-1 steps]
followups:
  - question: Why?
    answer: Because.
mistakes:
  - text: Doing the all-gather first. Gathering unreduced data multiplies the traffic.
    evidence: [{evidence}]
sources:
  - src
```
"""


def test_a_mistake_the_cards_own_answer_states_is_reported_at_its_line(tmp_path: Path) -> None:
    path = write_topic(tmp_path, CARD.format(evidence='"all-gather then reduce-scatter"'))
    check_own_answers(load_catalog(tmp_path))  # the answer says it the right way round
    path = write_topic(tmp_path, CARD.format(evidence='"then an all-gather"'))
    with pytest.raises(ContentError, match="mistakes.0: the card's own answer") as raised:
        check_own_answers(load_catalog(tmp_path))
    line = next(i for i, s in enumerate(path.read_text().splitlines(), 1) if "- text:" in s)
    assert raised.value.line == line
    assert "“A reduce-scatter first, then an all-gather" in raised.value.message


def test_the_cards_own_text_is_read_as_typed() -> None:
    assert as_typed("**each** rank sends $2(N-1)K/N$ bytes") == "each rank sends 2(N-1)K/N bytes"
    assert as_typed("$$\\frac{K}{N}$$ per step") == "K/N per step"


def test_no_card_of_the_content_states_its_own_mistakes() -> None:
    check_own_answers(load_catalog(Path(__file__).resolve().parents[2] / "content"))

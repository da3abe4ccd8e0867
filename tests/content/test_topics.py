"""The shipped topics: each loads, meets the content standard's countable parts, and renders."""

from collections import Counter

import pytest
from fastapi.testclient import TestClient

from app.content.catalog import Catalog
from app.content.loader import load_catalog
from tests.conftest import REAL_CONTENT, ClientFactory

CATALOG: Catalog = load_catalog(REAL_CONTENT)
TOPICS = [t.slug for t in CATALOG.topics]


def test_ring_allreduce_ships() -> None:
    assert "ring-allreduce" in TOPICS


@pytest.mark.parametrize("slug", TOPICS)
def test_topic_meets_the_content_standard(slug: str) -> None:
    topic = CATALOG.topic(slug)
    assert topic is not None
    kinds = Counter(card.kind for card in topic.cards)
    assert len(topic.cards) >= 8, "at least 8 cards"
    assert len(kinds) >= 3, f"a mix of card kinds, got {dict(kinds)}"
    assert topic.word_count >= 1500, "1,500 words of body or more"
    anchors = {h.anchor for h in topic.headings}
    assert any("two-minute" in a for a in anchors), "a two-minute version"
    assert any("pitfall" in a or "mistake" in a for a in anchors), "a pitfalls section"
    sources = {s.split(" ")[0] for card in topic.cards for s in card.card.sources}
    keys = {r.key for r in topic.meta.references}
    assert sources <= keys, f"cards cite the topic's references by key: {sources - keys}"


@pytest.mark.parametrize("slug", TOPICS)
def test_topic_page_renders_with_math(make_client: ClientFactory, slug: str) -> None:
    client: TestClient = make_client(REAL_CONTENT)
    page = client.get(f"/topics/{slug}")
    assert page.status_code == 200
    assert page.text.count("<math") > 10
    assert "$$" not in page.text
    for card in CATALOG.topic(slug).cards:  # type: ignore[union-attr]
        assert f'id="card-{card.id}"' in page.text
        assert client.get(f"/cards/{card.id}").status_code == 200


DRILLS = [c for c in CATALOG.cards if getattr(c.card, "drill", None) is not None]


def test_every_topic_drills_the_numbers_its_standard_asks_for() -> None:
    per_topic = Counter(c.topic_slug for c in DRILLS)
    wanted = {"zero-memory": 3, "memory-budget": 3, "parallelism-mapping": 3,
              "parallelism-strategies": 1, "nccl-topology": 1, "moe-routing": 3,
              "failures-at-scale": 3, "ring-allreduce": 3}  # fmt: skip
    for slug, count in wanted.items():
        if CATALOG.topic(slug) is not None:
            assert per_topic[slug] >= count, slug


@pytest.mark.parametrize("card", DRILLS, ids=lambda c: c.id)
def test_every_drill_answer_is_the_labs(card: object) -> None:
    """Draw each parametric card a few times and recompute its answer with the lab itself."""
    from app.content import quantity
    from app.content.catalog import CardView
    from app.content.schema import NumericCard
    from app.drills import engine
    from app.labs import registry

    assert isinstance(card, CardView) and isinstance(card.card, NumericCard)
    drill = card.card.drill
    assert drill is not None
    for seed in (1, 22, 333):
        drawn = engine.draw(card.card, seed)
        result = registry.DRILL_FUNCTIONS[drill.lab](**drawn.values)
        si = registry.numeric_fields(result)[drill.output]
        expected = quantity.convert(si, engine._base_unit(card.card.unit), card.card.unit)
        assert drawn.expected == pytest.approx(expected, rel=1e-12)
        assert "{{" not in drawn.question and "{{" not in drawn.solution

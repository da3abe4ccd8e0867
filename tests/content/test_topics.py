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

"""Which cards a mock asks: weakest and never-seen topics first, no repeats, fresh ones."""

import random
from collections import defaultdict

from app.content.catalog import CardView, Catalog

#: Open questions suit a timed written answer; numeric drills and orderings have their own drills.
MOCK_KINDS = ("recall", "derivation")


def choose(
    catalog: Catalog,
    recall: dict[str, float],
    previous: set[str],
    topics: set[str] | None,
    count: int,
    rng: random.Random,
) -> list[CardView]:
    """`count` cards, spread over the weakest topics first.

    `recall` maps card ids to their probability of recall now (absent: never reviewed, 0);
    `previous` holds the cards of the user's last mock, avoided unless there is no other.
    """
    by_topic: dict[str, list[CardView]] = defaultdict(list)
    for card in catalog.cards:
        if card.kind in MOCK_KINDS and (topics is None or card.topic_slug in topics):
            by_topic[card.topic_slug].append(card)
    if not by_topic:
        return []

    def topic_priority(slug: str) -> tuple[bool, float, float]:
        """Topics with a card not asked last time first, then the weakest."""
        cards = by_topic[slug]
        stale = all(c.id in previous for c in cards)
        return stale, sum(recall.get(c.id, 0.0) for c in cards) / len(cards), rng.random()

    def card_priority(card: CardView) -> tuple[bool, float, float]:
        return card.id in previous, recall.get(card.id, 0.0), rng.random()

    queues = {slug: sorted(cards, key=card_priority) for slug, cards in by_topic.items()}
    order = sorted(queues, key=topic_priority)
    chosen: list[CardView] = []
    # Round-robin over topics, weakest first: one card from each before a second from any.
    while len(chosen) < count and any(queues.values()):
        for slug in order:
            if queues[slug] and len(chosen) < count:
                chosen.append(queues[slug].pop(0))
    return chosen

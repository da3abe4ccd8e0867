"""The generated content set: valid, as many cards as asked, no formula shared between copies."""

import re
from pathlib import Path

from app.content.loader import load_catalog
from bench.synthetic import copy_topic, write_content
from tests.conftest import FIXTURE_CONTENT


def test_copies_load_as_a_valid_catalog_of_the_size_asked(tmp_path: Path) -> None:
    original = load_catalog(FIXTURE_CONTENT)
    topics, cards = write_content(FIXTURE_CONTENT, tmp_path, cards=3 * len(original.cards))
    catalog = load_catalog(tmp_path)
    assert (len(catalog.topics), len(catalog.cards)) == (topics, cards)
    assert cards >= 3 * len(original.cards)
    assert len({card.id for card in catalog.cards}) == cards
    assert {t.slug for t in catalog.topics} >= {f"{t.slug}-c2" for t in original.topics}


def test_each_copy_has_its_own_formulas() -> None:
    text = (FIXTURE_CONTENT / "topics" / "01-alpha.md").read_text()
    first, slug, _ = copy_topic(text, 1, order=7)
    second, _, _ = copy_topic(text, 2, order=8)
    assert slug == "alpha-c1" and "order: 7\n" in first
    formulas = re.findall(r"\$[^$\n]+\$", text)
    assert formulas
    assert not set(re.findall(r"\$[^$\n]+\$", first)) & set(re.findall(r"\$[^$\n]+\$", second))
    assert "{}_{1}" in first and "{}_{2}" in second

"""Rendered topics kept between starts (app.content.cache): read back only while current."""

import shutil
from pathlib import Path

import pytest

from app.content import loader
from app.content.loader import ContentError, load_catalog
from tests.conftest import FIXTURE_CONTENT


@pytest.fixture
def content(tmp_path: Path) -> Path:
    folder = tmp_path / "content"
    shutil.copytree(FIXTURE_CONTENT, folder)
    return folder


def test_a_second_start_reads_the_topics_back(
    content: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    first = load_catalog(content, cache_dir=cache)
    kept = sorted(cache.glob("*.topic"))
    assert len(kept) == len(first.topics) == 2
    assert all(path.stat().st_mode & 0o777 == 0o600 for path in kept)
    assert cache.stat().st_mode & 0o777 == 0o700

    def no_rendering(*_args: object) -> None:
        raise AssertionError("a current topic was rendered again")

    monkeypatch.setattr(loader, "load_topic", no_rendering)
    again = load_catalog(content, cache_dir=cache)
    assert [t.slug for t in again.topics] == [t.slug for t in first.topics]
    card = again.card("alpha-busbw")
    assert card is not None and card.question_html == first.card("alpha-busbw").question_html  # type: ignore[union-attr]


def test_an_edited_file_or_figure_is_rendered_again(content: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    load_catalog(content, cache_dir=cache)
    before = {p.name for p in cache.glob("*.topic")}
    topic = next((content / "topics").glob("01-*.md"))
    topic.write_text(topic.read_text().replace("title:", "title: Edited —", 1))
    edited = load_catalog(content, cache_dir=cache)
    assert edited.topics[0].meta.title.startswith("Edited")
    after = {p.name for p in cache.glob("*.topic")}
    assert len(after) == 2 and len(after - before) == 1  # the old entry was pruned
    (content / "figures").mkdir(exist_ok=True)
    (content / "figures" / "new.svg").write_text("<svg/>")  # any figure can be placed
    load_catalog(content, cache_dir=cache)
    assert not ({p.name for p in cache.glob("*.topic")} & after)


def test_a_broken_cache_file_is_rendered_again_and_errors_are_never_kept(
    content: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    load_catalog(content, cache_dir=cache)
    for kept in cache.glob("*.topic"):
        kept.write_bytes(b"not a pickle")
    assert len(load_catalog(content, cache_dir=cache).topics) == 2
    topic = next((content / "topics").glob("01-*.md"))
    topic.write_text(topic.read_text().replace("kind: recall", "kind: essay", 1))
    for _ in range(2):  # the second time too: a broken file is checked, never read back
        with pytest.raises(ContentError, match="kind"):
            load_catalog(content, cache_dir=cache)

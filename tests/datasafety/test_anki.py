"""The Anki deck: a valid .apkg whose notes are the cards, with ids that stay put."""

import io
import json
import sqlite3
import zipfile
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.content.loader import load_catalog
from app.content.render import Renderer
from app.datasafety import anki
from tests.conftest import REAL_CONTENT, ClientFactory, FakeClock
from tests.datasafety.helpers import START


@pytest.fixture
def client(make_client: ClientFactory) -> TestClient:
    return make_client(clock=FakeClock(START))


def read_package(content: bytes, tmp_path: Path) -> dict[str, Any]:
    """Open the .apkg as Anki does: a zip holding a SQLite collection and a media map."""
    with zipfile.ZipFile(io.BytesIO(content)) as package:
        assert package.testzip() is None
        assert set(package.namelist()) == {"collection.anki2", "media"}
        assert json.loads(package.read("media")) == {}
        collection = tmp_path / "collection.anki2"
        collection.write_bytes(package.read("collection.anki2"))
    connection = sqlite3.connect(collection)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        decks = json.loads(connection.execute("SELECT decks FROM col").fetchone()[0])
        notes = connection.execute("SELECT guid, flds, tags FROM notes ORDER BY id").fetchall()
        cards = connection.execute("SELECT nid, did FROM cards").fetchall()
    finally:
        connection.close()
    return {"decks": decks, "notes": notes, "cards": cards}


def fields(note: tuple[str, str, str]) -> list[str]:
    return note[1].split("\x1f")


def test_one_topic_is_a_deck_of_its_cards(client: TestClient, tmp_path: Path) -> None:
    response = client.get("/export/anki", params={"topic": "alpha"})
    assert response.status_code == 200
    assert response.headers["content-disposition"] == 'attachment; filename="ringside-alpha.apkg"'
    deck = read_package(response.content, tmp_path)
    names = {d["name"] for d in deck["decks"].values()}
    assert "Ringside::01 Alpha topic" in names
    ids = [fields(note)[6] for note in deck["notes"]]
    assert ids == ["alpha-ring-bytes", "alpha-busbw", "alpha-drill-bytes"]
    assert len(deck["cards"]) == 3  # one Anki card per note
    ring = fields(deck["notes"][0])
    assert "How many bytes does each GPU send" in ring[0] and "<math" in ring[1]
    assert "Reduce-scatter then all-gather" in ring[2] and ring[5] == "Alpha topic"
    assert deck["notes"][0][2].split() == ["ringside", "alpha", "recall"]
    drill = fields(deck["notes"][2])
    assert "{{" not in drill[0] and "GPUs" in drill[0]  # one concrete draw of the numbers


def test_all_topics_and_ids_that_survive_a_new_export(
    client: TestClient, make_client: ClientFactory, tmp_path: Path
) -> None:
    everything = read_package(client.get("/export/anki").content, tmp_path)
    assert len(everything["notes"]) == 5
    assert {d["name"] for d in everything["decks"].values()} >= {
        "Ringside::01 Alpha topic",
        "Ringside::02 Beta topic",
    }
    order = next(fields(n) for n in everything["notes"] if fields(n)[6] == "beta-order")
    assert order[1].startswith("<ol><li>")  # the steps, in the right order
    # A later export (another day, another server) updates these notes in Anki, not copies them.
    later = make_client(clock=FakeClock(START.replace(year=2027)))
    again = read_package(later.get("/export/anki", params={"topic": "all"}).content, tmp_path)
    assert [n[0] for n in again["notes"]] == [n[0] for n in everything["notes"]]
    assert again["decks"].keys() == everything["decks"].keys()


def test_an_unknown_topic_is_refused_with_its_name(client: TestClient) -> None:
    response = client.get("/export/anki", params={"topic": "nope"})
    assert response.status_code == 422
    assert "topic: no topic &#39;nope&#39;" in response.text


def test_every_real_card_becomes_a_note(tmp_path: Path) -> None:
    renderer = Renderer()
    catalog = load_catalog(REAL_CONTENT, renderer)
    deck = read_package(anki.build_package(catalog.topics, renderer, START), tmp_path)
    assert [fields(note)[6] for note in deck["notes"]] == [card.id for card in catalog.cards]
    assert len({note[0] for note in deck["notes"]}) == len(deck["notes"])
    assert len(deck["decks"]) == len(catalog.topics) + 1  # and Anki's own "Default"

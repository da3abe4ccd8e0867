"""Cards as an Anki deck (.apkg): one sub-deck per topic, notes that update on re-import.

Ids are derived from slugs and card ids, never drawn at random, so importing a newer export
into Anki updates the notes already there instead of adding copies. A drill card becomes one
fixed instance of its numbers (a seed taken from the card id): Anki cannot vary them.
"""

import hashlib
import tempfile
import zlib
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import genanki

from app.content.catalog import CardView, Topic
from app.content.render import Renderer
from app.drills import engine
from app.drills.present import numeric, present

DECK_ROOT = "Ringside"
FIELDS = ["Question", "Answer", "Rubric", "Follow-ups", "Mistakes", "Topic", "Card id"]
CSS = """
.card { font-family: system-ui, sans-serif; font-size: 18px; line-height: 1.5;
  text-align: left; max-width: 42em; margin: 0 auto; }
h4 { margin: 1em 0 0.3em; font-size: 0.9em; text-transform: uppercase; opacity: 0.7; }
.topic { font-size: 0.8em; opacity: 0.6; }
math { font-size: 1.1em; }
pre { white-space: pre-wrap; }
"""
FRONT = '<div class="topic">{{Topic}}</div>\n{{Question}}'
BACK = """{{FrontSide}}
<hr id="answer">
{{Answer}}
{{#Rubric}}<h4>A strong answer</h4>{{Rubric}}{{/Rubric}}
{{#Follow-ups}}<h4>Follow-ups</h4>{{Follow-ups}}{{/Follow-ups}}
{{#Mistakes}}<h4>Common mistakes</h4>{{Mistakes}}{{/Mistakes}}"""


def stable_id(*parts: str) -> int:
    """An Anki id from names: the same names give the same id in every export."""
    digest = hashlib.sha256(":".join(parts).encode()).digest()
    return (1 << 30) + int.from_bytes(digest[:4], "big") % (1 << 30)


MODEL = genanki.Model(
    stable_id("ringside", "model", "1"),
    "Ringside card",
    fields=[{"name": name} for name in FIELDS],
    templates=[{"name": "Card", "qfmt": FRONT, "afmt": BACK}],
    css=CSS,
    sort_field_index=5,
)


def _items(parts: Sequence[str], tag: str = "ul") -> str:
    return f"<{tag}>" + "".join(f"<li>{part}</li>" for part in parts) + f"</{tag}>" if parts else ""


def _question_and_answer(card: CardView, renderer: Renderer) -> tuple[str, str]:
    model = numeric(card)
    if model is not None and model.drill is not None:
        drawn = present(renderer, card, zlib.crc32(card.id.encode()) & engine.MAX_SEED)
        return drawn.question_html, drawn.solution_html
    # Derivations show their steps; order cards their steps in the right order.
    return card.question_html, _items(card.steps_html, "ol") + (card.answer_html or "")


def note(card: CardView, renderer: Renderer) -> genanki.Note:
    """One card as an Anki note, tagged with its topic and kind."""
    question, answer = _question_and_answer(card, renderer)
    fields = [
        question,
        answer,
        _items([point.point_html for point in card.rubric]),
        _items(
            [q + a for q, a in zip(card.followups_html, card.followup_answers_html, strict=True)]
        ),
        _items(list(card.mistakes_html)),
        card.topic_title,
        card.id,
    ]
    tags = [DECK_ROOT.lower(), card.topic_slug, card.kind]
    tags += ["_".join(tag.split()) for tag in card.card.tags]
    return genanki.Note(
        model=MODEL, fields=fields, tags=tags, guid=genanki.guid_for(DECK_ROOT, card.id)
    )


def deck(topic: Topic, renderer: Renderer) -> genanki.Deck:
    """A topic's cards, in reading order, as the sub-deck Ringside::NN Title."""
    built = genanki.Deck(
        stable_id("ringside", "deck", topic.slug),
        f"{DECK_ROOT}::{topic.meta.order:02d} {topic.title}",
        description=topic.meta.summary,
    )
    for card in topic.cards:
        built.add_note(note(card, renderer))
    return built


def build_package(topics: Sequence[Topic], renderer: Renderer, now: datetime) -> bytes:
    """The .apkg file for `topics`, as bytes; `now` stamps the notes (Anki's modified time)."""
    package = genanki.Package([deck(topic, renderer) for topic in topics])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ringside.apkg"
        package.write_to_file(str(path), timestamp=now.timestamp())
        return path.read_bytes()


def filename(topics: Sequence[Topic], everything: bool) -> str:
    return "ringside-all.apkg" if everything else f"ringside-{topics[0].slug}.apkg"

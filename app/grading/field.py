"""How much a word says about a rubric point, from how many cards' rubrics use it.

A word that many cards' rubric points use ("GPU", "bandwidth", "step") is said by almost any
answer in the field and proves little; a word few cards use ("flapping", "remapping") proves
much. The counts come from every card's rubric (points and keywords) under the content
folder, read once: no word list to keep by hand as the cards change.
"""

import math
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from app.grading.text import clauses, lower, normalise

_FENCE = re.compile(r"^```card[ \t]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
_VERB = re.compile(r"\s*[A-Z][a-z]+[^s\W]s\b")  # a verb in the third person, capitalised
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's when built with it
_DEFAULT_CONTENT = Path(__file__).resolve().parents[2] / "content"


@dataclass(frozen=True)
class Field:
    """In how many cards' rubrics each stem occurs, out of `cards`."""

    cards: int
    counts: dict[str, int]
    opens: dict[str, int]  # how often a stem opens a point as a verb ("Uses", "Names")
    said: dict[str, int]  # how often a stem occurs in the points' own text

    def evidence(self, stem: str) -> float:
        """What finding a word of a point's own text says: its rarity, less the share of
        its uses that open a point, where a word says what to do, not what to say."""
        opening = self.opens.get(stem, 0) / self.said[stem] if stem in self.said else 0.0
        return self.rarity(stem) * (1.0 - opening)

    def rarity(self, stem: str) -> float:
        """1 for a stem no other card uses, falling towards 0 for one every card uses."""
        if self.cards < 2:
            return 1.0
        return math.log((self.cards + 1) / (self.counts.get(stem, 0) + 1)) / math.log(
            self.cards + 1
        )


def content_dir() -> Path:
    configured = os.environ.get("RINGSIDE_CONTENT_DIR")
    return Path(configured) if configured else _DEFAULT_CONTENT


@lru_cache(maxsize=4)
def field(directory: Path | None = None) -> Field:
    """The word counts of every card's rubric under `directory` (default: the content)."""
    topics = (directory or content_dir()) / "topics"
    counts: dict[str, int] = {}
    opens: dict[str, int] = {}
    said: dict[str, int] = {}
    cards = 0
    for path in sorted(topics.glob("*.md")) if topics.is_dir() else []:
        for fence in _FENCE.finditer(path.read_text(encoding="utf-8", errors="replace")):
            rubric = _rubric(fence[1])
            if not rubric:
                continue
            cards += 1
            stems: set[str] = set()
            for point, keywords in rubric:
                words = _stems(point)
                if words and _VERB.match(point):  # "Names…", "Derives…": what to do
                    opens[words[0]] = opens.get(words[0], 0) + 1
                for stem in words:
                    said[stem] = said.get(stem, 0) + 1
                stems.update(words)
                for keyword in keywords:
                    stems.update(_stems(keyword))
            for stem in stems:
                counts[stem] = counts.get(stem, 0) + 1
    return Field(cards, counts, opens, said)


def _stems(text: str) -> list[str]:
    return [word.stem for part in clauses(lower(normalise(text))) for word in part.words]


def _rubric(source: str) -> list[tuple[str, list[str]]]:
    try:
        card = yaml.load(source, Loader=_LOADER)  # a safe loader, C or Python
    except yaml.YAMLError:
        return []
    if not isinstance(card, dict) or not isinstance(card.get("rubric"), list):
        return []
    return [
        (str(p.get("point", "")), [str(k) for k in p.get("keywords") or [] if k is not None])
        for p in card["rubric"]
        if isinstance(p, dict)
    ]

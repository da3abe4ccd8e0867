"""How much a word says about a rubric point, from how many cards' rubrics use it.

A word that many cards' rubric points use ("GPU", "bandwidth", "step") is said by almost any
answer in the field and proves little; a word few cards use ("flapping", "remapping") proves
much. The counts come from the rubrics (points and keywords) of the catalog the app serves,
counted once per catalog: no word list to keep by hand as the cards change, and an app built
on other content is graded on that content's words.
"""

import math
import re
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.content.catalog import Catalog
from app.content.schema import RubricPoint
from app.grading.text import clauses, lower, normalise

_VERB = re.compile(r"\s*[A-Z][a-z]+[^s\W]s\b")  # a verb in the third person, capitalised


# eq=False: a field is compared (and cached on) by identity; it is built once per catalog.
@dataclass(frozen=True, eq=False)
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

    @classmethod
    def of(cls, catalog: Catalog) -> "Field":
        """The field of `catalog`'s cards, counted on first use and kept while it lives."""
        key = id(catalog)
        built = _BUILT.get(key)
        if built is None:
            built = _BUILT[key] = cls.counted(view.card.rubric for view in catalog.cards)
            weakref.finalize(catalog, _BUILT.pop, key, None)  # before its id can be reused
        return built

    @classmethod
    def counted(cls, rubrics: Iterable[Sequence[RubricPoint]]) -> "Field":
        """The word counts of these cards' rubrics (one rubric per card)."""
        counts: dict[str, int] = {}
        opens: dict[str, int] = {}
        said: dict[str, int] = {}
        cards = 0
        for rubric in rubrics:
            if not rubric:
                continue
            cards += 1
            stems: set[str] = set()
            for point in rubric:
                words = _stems(point.point)
                if words and _VERB.match(point.point):  # "Names…", "Derives…": what to do
                    opens[words[0]] = opens.get(words[0], 0) + 1
                for stem in words:
                    said[stem] = said.get(stem, 0) + 1
                stems.update(words)
                for keyword in point.keywords:
                    stems.update(_stems(keyword))
            for stem in stems:
                counts[stem] = counts.get(stem, 0) + 1
        return cls(cards, counts, opens, said)


_BUILT: dict[int, Field] = {}  # by the id of the catalog counted


def _stems(text: str) -> list[str]:
    return [word.stem for part in clauses(lower(normalise(text))) for word in part.words]

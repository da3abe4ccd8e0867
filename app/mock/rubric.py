"""Which rubric points an answer seems to make: a keyword found suggests the point.

Suggestions only: the person grading confirms or corrects each one. Matching ignores case,
and treats the many dashes and minus signs people type as one.
"""

import re
import unicodedata

from app.content.schema import RubricPoint

_DASHES = dict.fromkeys(map(ord, "‐‑‒–—―−"), "-")
_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).translate(_DASHES).lower()
    return _SPACE.sub(" ", text.replace(" ", "").replace("\u2009", ""))


def suggested_points(rubric: list[RubricPoint], *answers: str) -> list[int]:
    """Indexes of the rubric points with at least one keyword in the answers."""
    haystack = normalise(" ".join(answers))
    compact = haystack.replace(" ", "")
    found = []
    for index, point in enumerate(rubric):
        for keyword in point.keywords:
            needle = normalise(keyword)
            # "2(N-1)/N" typed as "2 (N - 1) / N" still counts: compare without spaces too.
            if needle in haystack or needle.replace(" ", "") in compact:
                found.append(index)
                break
    return found

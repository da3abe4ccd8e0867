"""The errata (content/ERRATA.md): every correction to the topics, each with what changed and why.

A reader trusts the topics more when every fault found in them is listed with its source. Each
entry is one list item that opens with the finding's id and its outcome:

    - **topics-01-02#7** (fixed) What was wrong, what the text says now. Source: …

The check refuses an entry without an id or outcome, and an id listed twice, so the page stays
one line per finding.
"""

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from app.content.loader import ContentError
from app.content.render import Renderer, RenderProblem, headings

ERRATA_FILE = "ERRATA.md"
OUTCOMES = ("fixed", "clarified", "rebutted")
_ENTRY = re.compile(r"^- \*\*(?P<id>[a-z0-9-]+#[0-9a-z-]+)\*\* \((?P<outcome>[a-z]+)\) \S")


@dataclass(frozen=True)
class Errata:
    html: str
    entries: int
    outcomes: dict[str, int]  # outcome -> how many entries have it
    headings: tuple[tuple[str, str], ...]  # (anchor, text) of each ## section


def load_errata(content_dir: Path, renderer: Renderer | None = None) -> Errata | None:
    """The errata page, checked and rendered; None when the content has no ERRATA.md."""
    path = content_dir / ERRATA_FILE
    if not path.is_file():
        return None
    renderer = renderer or Renderer()
    try:
        text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        raise ContentError(path, 1, f"not UTF-8 text ({error.reason})") from None
    seen: dict[str, int] = {}
    outcomes: Counter[str] = Counter()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.startswith("- "):
            continue
        match = _ENTRY.match(line)
        if match is None:
            raise ContentError(
                path, number, "an entry opens with **report#id** and (fixed|clarified|rebutted)"
            )
        finding, outcome = match["id"], match["outcome"]
        if outcome not in OUTCOMES:
            raise ContentError(path, number, f"outcome ({outcome}): use {', '.join(OUTCOMES)}")
        if finding in seen:
            raise ContentError(path, number, f"{finding} is also at line {seen[finding]}")
        seen[finding] = number
        outcomes[outcome] += 1
    try:
        tokens = renderer.parse(text)
    except RenderProblem as problem:
        raise ContentError(path, problem.line + 1, problem.message) from None
    sections = tuple((h.anchor, h.text) for h in headings(tokens) if h.level == 2)
    return Errata(renderer.render(tokens), len(seen), dict(outcomes), sections)

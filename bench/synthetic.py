"""A large content set for start-up benchmarks: copies of the real topics under new names.

Copies keep what makes start-up cost what it does (essays with math, code and tables, cards
of every kind, numeric drills) and change what must be unique: slugs, orders, card ids. Every
formula of copy k also gains a tiny `{}_{k}` prefix, so that no copy is typeset from the
MathML cache filled by another: a real 1,000-card set has that many distinct formulas.
"""

import re
import shutil
from pathlib import Path

_CARD_OPEN = "```card"
_FENCE_CLOSE = "```"
_DELIMITER = re.compile(r"(?<!\\)(\$\$|\$)")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")


class _MathTagger:
    """Prefixes every formula with {}_{copy}; tracks formulas that span lines."""

    def __init__(self, copy: int) -> None:
        self.tag = f"{{}}_{{{copy}}}"
        self.open: str | None = None

    def reset(self) -> None:
        self.open = None

    def line(self, text: str) -> str:
        if not text.strip():
            self.reset()  # no formula spans a paragraph break
            return text
        out, last = [], 0
        for code in _INLINE_CODE.finditer(text):
            out.append(self._prose(text[last : code.start()]))
            out.append(code.group(0))
            last = code.end()
        out.append(self._prose(text[last:]))
        return "".join(out)

    def _prose(self, text: str) -> str:
        def swap(match: re.Match[str]) -> str:
            delimiter = match.group(1)
            if self.open is None:
                self.open = delimiter
                return delimiter + self.tag
            if delimiter == self.open:
                self.open = None
            return delimiter

        return _DELIMITER.sub(swap, text)


def copy_topic(text: str, copy: int, order: int) -> tuple[str, str, int]:
    """One topic file renamed for copy `copy`: (new text, new slug, number of cards)."""
    suffix = f"-c{copy}"
    out, slug, cards = [], "", 0
    in_front, in_card, in_code = False, False, False
    math = _MathTagger(copy)
    for number, line in enumerate(text.splitlines(keepends=True)):
        if number == 0 and line.strip() == "---":
            in_front = True
        elif in_front and line.strip() == "---":
            in_front = False
        elif in_code:
            in_code = not line.startswith(_FENCE_CLOSE)
        elif line.startswith(_FENCE_CLOSE) and not line.startswith(_CARD_OPEN) and not in_card:
            in_code = True
            math.reset()
        elif in_front and line.startswith("slug:"):
            slug = line.split(":", 1)[1].strip() + suffix
            line = f"slug: {slug}\n"
        elif in_front and line.startswith("order:"):
            line = f"order: {order}\n"
        elif in_front and line.startswith("related:"):
            line = "related: []\n"  # the related topics may not be part of this set
        elif line.startswith(_CARD_OPEN):
            in_card, cards = True, cards + 1
            math.reset()
        elif in_card and line.startswith(_FENCE_CLOSE):
            in_card = False
            math.reset()
        elif in_card and (match := re.match(r"id:\s*(\S+)", line)):
            line = f"id: {match.group(1)}{suffix}\n"
        else:
            line = math.line(line)
        out.append(line)
    if not slug:
        raise ValueError("no slug in the front matter")
    return "".join(out), slug, cards


def write_content(source: Path, dest: Path, cards: int = 1000) -> tuple[int, int]:
    """Fill dest/topics with copies of source/topics until there are at least `cards` cards.

    Returns (topics, cards) written.
    """
    originals = sorted((source / "topics").glob("*.md"))
    if not originals:
        raise ValueError(f"no topics under {source / 'topics'}")
    (dest / "topics").mkdir(parents=True, exist_ok=True)
    if (source / "figures").is_dir():  # the copies show the same figures
        shutil.copytree(source / "figures", dest / "figures", dirs_exist_ok=True)
    topics = written = 0
    copy = 0
    while written < cards:
        for path in originals:
            if written >= cards:
                break
            text, slug, count = copy_topic(path.read_text(encoding="utf-8"), copy, topics + 1)
            (dest / "topics" / f"{topics + 1:03d}-{slug}.md").write_text(text, encoding="utf-8")
            topics, written = topics + 1, written + count
        copy += 1
    return topics, written

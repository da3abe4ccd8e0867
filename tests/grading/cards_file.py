"""The cards file an answer writer or labeller is given: what a reader sees of each card.

    python tests/grading/cards_file.py 01 02 03 > cards-E.md

Prints, for the topics whose file names start with the numbers given, every card that is not
a numeric drill: its question, its rubric points and its common mistakes, numbered from 0, in
the text the topic file gives them. Nothing the grader uses (keywords, needs, evidence) is
printed: the writers of a measure must never see it.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from app.content.loader import load_catalog  # noqa: E402


def cards_file(prefixes: list[str]) -> str:
    catalog = load_catalog(ROOT / "content")
    out: list[str] = []
    for topic in catalog.topics:
        number = f"{topic.meta.order:02d}"
        if prefixes and number not in prefixes:
            continue
        out.append(f"# Topic {number}: {topic.meta.title}\n")
        for view in catalog.cards:
            if view.topic_slug != topic.meta.slug or view.kind == "numeric":
                continue
            card = view.card
            out.append(f"## card: {card.id}  (kind: {card.kind})")
            out.append("Question:")
            out.append(card.question.strip())
            out.append("Rubric points (numbered from 0):")
            out.extend(f"  {i}. {point.point}" for i, point in enumerate(card.rubric))
            if card.mistakes:
                out.append("Common mistakes (numbered from 0):")
                out.extend(f"  {i}. {m.text.strip()}" for i, m in enumerate(card.mistakes))
            out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    print(cards_file(sys.argv[1:]))

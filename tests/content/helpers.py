"""Write small topic files for loader tests."""

from pathlib import Path
from textwrap import dedent

FRONT = """\
---
slug: {slug}
order: {order}
title: A topic
summary: A summary.
checked_on: 2026-12-01
checked_against:
  NCCL: "2.28.7"
references:
  - key: src
    text: A source
---
"""

CARD = """\
```card
id: {id}
kind: recall
question: |
  What?
answer: |
  That.
rubric:
  - point: one
    keywords: [one]
  - point: two
    keywords: [two]
  - point: three
    keywords: [three]
followups:
  - question: Why?
    answer: Because.
mistakes:
  - This.
sources:
  - src
```
"""


def card(card_id: str = "t-one") -> str:
    return CARD.format(id=card_id)


def write_topic(
    root: Path, body: str = "", *, slug: str = "topic", order: int = 1, name: str | None = None
) -> Path:
    topics = root / "topics"
    topics.mkdir(parents=True, exist_ok=True)
    path = topics / (name or f"{order:02d}-{slug}.md")
    path.write_text(FRONT.format(slug=slug, order=order) + "\n" + dedent(body), encoding="utf-8")
    return path

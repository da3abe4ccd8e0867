"""Read content/topics/*.md into a Catalog, or fail with one line naming file, line and problem."""

import multiprocessing
import os
import random
import re
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import yaml
from markdown_it.token import Token
from pydantic import BaseModel, ValidationError

from app.content import cache as topic_cache
from app.content import figures, yamlsrc
from app.content.catalog import (
    CardView,
    Catalog,
    ReferenceView,
    RubricView,
    Segment,
    SourceView,
    Topic,
)
from app.content.render import (
    CARD_FENCE,
    CARD_MARK_PATTERN,
    FIGURE,
    FIGURE_MARK_PATTERN,
    Renderer,
    RenderProblem,
    figure_name,
    headings,
    plain_text,
)
from app.content.schema import (
    CARD_KINDS,
    CARD_MODELS,
    Card,
    FrontMatter,
    Misplaced,
    NumericCard,
)

ModelT = TypeVar("ModelT", bound=BaseModel)
PARALLEL_FROM = 24  # topic files; below this, forking costs more than it saves
_PLACEHOLDER = re.compile(r"\{\{[^}]*\}\}")  # a drill's {{ name }}: numbers differ per draw
FILE_NAME = re.compile(r"^(\d+)-([a-z0-9]+(?:-[a-z0-9]+)*)\.md$")


class ContentError(Exception):
    """A problem in a content file, printed as `path:line: problem`."""

    def __init__(self, path: Path, line: int, message: str) -> None:
        self.path, self.line, self.message = path, line, message
        super().__init__(f"{_display(path)}:{line}: {message}")

    def __reduce__(self) -> tuple[type["ContentError"], tuple[Path, int, str]]:
        return ContentError, (self.path, self.line, self.message)  # back from a worker


def _display(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


TopicCheck = Callable[[Topic, Renderer], None]  # raises ContentError; picklable for workers


def load_catalog(
    content_dir: Path,
    renderer: Renderer | None = None,
    processes: int = 1,
    check: TopicCheck | None = None,
    cache_dir: Path | None = None,
) -> Catalog:
    """Every topic under content_dir/topics, validated and rendered.

    `check` runs on each topic as soon as it is loaded (in the worker that loaded it): how the
    layers above add their own checks without content importing them. create_app and
    `ringside content check` pass app.drills.check.check_topic, which draws every drill.

    With `processes` > 1 on Linux, a large set (PARALLEL_FROM files or more) is loaded by that
    many forked processes: rendering is CPU work the GIL keeps to one core, and most of
    start-up with a thousand cards (bench/suite.py). Only for a process that runs no other
    threads yet, as `ringside serve` at start-up: a fork copies no thread but could copy a
    lock another thread holds.

    With `cache_dir`, a topic rendered and checked at an earlier start, from the same file,
    figures and code, is read back instead of rendered again (app.content.cache).
    """
    renderer = renderer or Renderer()
    topics_dir = content_dir / "topics"
    files = sorted(topics_dir.glob("*.md")) if topics_dir.is_dir() else []
    if not files:
        raise ContentError(topics_dir, 0, "no topic files (NN-slug.md) found")
    keys = topic_cache.keys(files, check) if cache_dir else []
    kept = [topic_cache.read(cache_dir, k) for k in keys] if cache_dir else [None] * len(files)
    todo = [path for path, topic in zip(files, kept, strict=True) if topic is None]
    if processes > 1 and len(todo) >= PARALLEL_FROM and sys.platform == "linux":
        fresh = _load_in_processes(todo, processes, check)
    else:
        fresh = [_load_and_check(path, renderer, check) for path in todo]
    made = iter(fresh)
    topics = [topic if topic is not None else next(made) for topic in kept]
    _check_across(topics)
    if cache_dir:
        for name, old, topic in zip(keys, kept, topics, strict=True):
            if old is None:
                topic_cache.write(cache_dir, name, topic)
        topic_cache.prune(cache_dir, set(keys))
    return Catalog(topics)


def require_detectors(topic: Topic) -> None:
    """Every common mistake of the topic's cards has `evidence`, so the grader can find it in
    an answer (`ringside content check`; see content/README.md)."""
    for view in topic.cards:
        for index, mistake in enumerate(view.card.mistakes):
            if not mistake.evidence:
                line = view.mistake_lines[index] if index < len(view.mistake_lines) else view.line
                raise ContentError(
                    topic.path,
                    line,
                    f"card '{view.card.id}': mistakes.{index}: no evidence: give the words, "
                    "formula or figure that state the mistake (see content/README.md)",
                )


def _load_and_check(path: Path, renderer: Renderer, check: TopicCheck | None) -> Topic:
    topic = load_topic(path, renderer)
    if check is not None:
        check(topic, renderer)
    return topic


def _load_in_processes(files: list[Path], processes: int, check: TopicCheck | None) -> list[Topic]:
    """The topics in file order; the first file's error in that order, as in one process."""
    context = multiprocessing.get_context("fork")  # the children need no imports of their own
    with ProcessPoolExecutor(processes, mp_context=context) as pool:
        chunk = max(1, len(files) // (processes * 4))  # small chunks: topics differ in size
        checks = [check] * len(files)
        return list(pool.map(_load_in_worker, files, checks, chunksize=chunk))


@cache
def _worker_renderer() -> Renderer:
    return Renderer()


def _load_in_worker(path: Path, check: TopicCheck | None) -> Topic:
    return _load_and_check(path, _worker_renderer(), check)


def _check_across(topics: list[Topic]) -> None:
    """What no single file can check: unique orders and card ids, related topics that exist."""
    orders: dict[int, Topic] = {}
    card_homes: dict[str, tuple[Topic, CardView]] = {}
    slugs = {t.slug for t in topics}
    for topic in topics:
        other = orders.setdefault(topic.meta.order, topic)
        if other is not topic:
            raise ContentError(
                topic.path, 1, f"order {topic.meta.order} is also used by {_display(other.path)}"
            )
        for card in topic.cards:
            home = card_homes.setdefault(card.id, (topic, card))
            if home[1] is not card:
                where = f"{_display(home[0].path)}:{home[1].line}"
                raise ContentError(topic.path, card.line, f"card id '{card.id}' is also at {where}")
        for slug in topic.meta.related:
            if slug not in slugs:
                raise ContentError(topic.path, 1, f"related: no topic with slug '{slug}'")


def load_topic(path: Path, renderer: Renderer) -> Topic:
    try:
        text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        raise ContentError(path, 1, f"not UTF-8 text ({error.reason})") from None
    try:
        tokens = renderer.parse(text)
    except RenderProblem as problem:
        raise ContentError(path, problem.line + 1, problem.message) from None

    meta = _front_matter(path, tokens)
    cards = _cards(path, tokens, meta, renderer)
    svgs = _figures(path, tokens)
    html = FIGURE_MARK_PATTERN.sub(lambda match: svgs[match.group(1)], renderer.render(tokens))
    return Topic(
        meta=meta,
        path=path,
        segments=_segments(html),
        cards=tuple(cards),
        headings=tuple(headings(tokens)),
        references=tuple(
            ReferenceView(r.key, renderer.render_inline(r.text), r.url) for r in meta.references
        ),
        plain_text=plain_text(tokens),
        word_count=len(plain_text(tokens).split()),
    )


def _front_matter(path: Path, tokens: list[Token]) -> FrontMatter:
    if not tokens or tokens[0].type != "front_matter":
        raise ContentError(path, 1, "the file must open with front matter between '---' lines")
    data, node = _yaml(path, tokens[0].content, first_line=2)
    meta = _validate(path, FrontMatter, data, node, first_line=2, label="front matter")
    match = FILE_NAME.match(path.name)
    if not match or match.group(2) != meta.slug:
        raise ContentError(path, 1, f"the file name must be NN-{meta.slug}.md to match its slug")
    return meta


def _figures(path: Path, tokens: list[Token]) -> dict[str, str]:
    """Each `::: figure NAME` block's SVG, from content/figures/NAME.svg, checked."""
    found: dict[str, str] = {}
    figures_dir = path.parent.parent / "figures"
    for index, token in enumerate(tokens):
        if token.type != f"container_{FIGURE}_open":
            continue
        line = (token.map[0] if token.map else 0) + 1
        name = figure_name(token.info)
        if name in found:
            raise ContentError(path, line, f"figure {name!r} is already shown in this topic")
        caption = next(
            (t for t in tokens[index + 1 :] if t.type == "inline" or t.nesting == -1), None
        )
        if caption is None or caption.type != "inline" or not caption.content.strip():
            raise ContentError(path, line, f"figure {name!r}: needs a caption inside the block")
        try:
            found[name] = figures.load(figures_dir, name)
        except figures.FigureProblem as problem:
            raise ContentError(path, line, str(problem)) from None
    return found


def _cards(
    path: Path, tokens: list[Token], meta: FrontMatter, renderer: Renderer
) -> list[CardView]:
    views = []
    keys = {r.key: r for r in meta.references}
    for token in tokens:
        if token.type != "fence" or token.info.strip() != CARD_FENCE or not token.map:
            continue
        first_line = token.map[0] + 2  # 1-based line of the YAML's first line
        data, node = _yaml(path, token.content, first_line)
        if not isinstance(data, dict):
            raise ContentError(path, first_line, "a card must be a YAML mapping (id: …, kind: …)")
        kind = data.get("kind")
        if kind not in CARD_KINDS:
            found = "missing" if kind is None else f"unknown kind {kind!r}"
            line = first_line + yamlsrc.line_of(node, ["kind"])
            raise ContentError(path, line, f"card kind {found}: use {', '.join(CARD_KINDS)}")
        card_id = data.get("id", "?")
        card = _validate(path, CARD_MODELS[kind], data, node, first_line, f"card '{card_id}'")
        token.meta["card_id"] = card.id
        views.append(_card_view(path, card, node, first_line, meta, keys, renderer))
    return views


def _card_view(
    path: Path,
    card: Card,
    node: yaml.Node | None,
    first_line: int,
    meta: FrontMatter,
    keys: dict[str, Any],
    renderer: Renderer,
) -> CardView:
    parsed: dict[str, list[Token]] = {}  # each field parsed once, for its HTML and its words

    def html(text: str, *where: str | int, inline: bool = False) -> str:
        try:
            if inline:
                return renderer.render_inline(text)
            parsed[text] = renderer.parse(text)
            rendered = renderer.render(parsed[text])
        except RenderProblem as problem:
            line = first_line + yamlsrc.line_of(node, list(where))
            raise ContentError(path, line, f"card '{card.id}': {problem.message}") from None
        if FIGURE_MARK_PATTERN.search(rendered):
            line = first_line + yamlsrc.line_of(node, list(where))
            raise ContentError(path, line, f"card '{card.id}': figures belong in the essay")
        return rendered

    def words(text: str) -> str:
        tokens = parsed.get(text)
        return renderer.plain(text) if tokens is None else plain_text(tokens)

    steps = getattr(card, "steps", [])
    texts = [card.question, card.answer or "", *steps, *(p.point for p in card.rubric)]
    return CardView(
        card=card,
        topic_slug=meta.slug,
        topic_title=meta.title,
        line=first_line + yamlsrc.line_of(node, ["id"]),
        drill_line=(
            first_line + yamlsrc.line_of(node, ["drill"])
            if isinstance(card, NumericCard) and card.drill is not None
            else None
        ),
        question_html=html(card.question, "question"),
        answer_html=html(card.answer, "answer") if card.answer else None,
        steps_html=tuple(html(s, "steps", i) for i, s in enumerate(steps)),
        shuffled_steps=_shuffled(len(steps), card.id),
        rubric=tuple(
            RubricView(html(p.point, "rubric", i, "point", inline=True), tuple(p.keywords))
            for i, p in enumerate(card.rubric)
        ),
        followups_html=tuple(
            html(f.question, "followups", i, "question") for i, f in enumerate(card.followups)
        ),
        followup_answers_html=tuple(
            html(f.answer, "followups", i, "answer") for i, f in enumerate(card.followups)
        ),
        mistakes_html=tuple(html(m.text, "mistakes", i) for i, m in enumerate(card.mistakes)),
        mistake_lines=tuple(
            first_line + yamlsrc.line_of(node, ["mistakes", i]) for i in range(len(card.mistakes))
        ),
        sources=tuple(_source(s, keys, meta.slug, renderer) for s in card.sources),
        question_text=words(_PLACEHOLDER.sub("…", card.question)),
        plain_text=" ".join(words(t) for t in texts if t),
    )


def _source(text: str, keys: dict[str, Any], slug: str, renderer: Renderer) -> SourceView:
    """`key rest` cites a front-matter reference; anything else is a citation as written."""
    key, _, rest = text.partition(" ")
    reference = keys.get(key)
    if reference is None:
        return SourceView(renderer.render_inline(text), None)
    cited = reference.text + (f", {rest}" if rest else "")
    return SourceView(renderer.render_inline(cited), f"/topics/{slug}#ref-{key}")


def _shuffled(count: int, seed: str) -> tuple[int, ...]:
    """A fixed order for showing an order card's steps, never the correct one."""
    order = list(range(count))
    if count < 2:
        return tuple(order)
    rng = random.Random(seed)
    while order == sorted(order):
        rng.shuffle(order)
    return tuple(order)


def _segments(html: str) -> tuple[Segment, ...]:
    parts = CARD_MARK_PATTERN.split(html)
    # split() alternates text and captured card ids: even indexes are HTML.
    segments = []
    for index, part in enumerate(parts):
        if index % 2:
            segments.append(Segment(card_id=part))
        elif part.strip():
            segments.append(Segment(html=part))
    return tuple(segments)


def _yaml(path: Path, text: str, first_line: int) -> tuple[Any, yaml.Node | None]:
    try:
        return yamlsrc.parse(text)
    except yamlsrc.YamlProblem as problem:
        raise ContentError(path, first_line + problem.line, problem.message) from None


def _validate(
    path: Path,
    model: type[ModelT],
    data: Any,
    node: yaml.Node | None,
    first_line: int,
    label: str,
) -> ModelT:
    try:
        return model.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        loc = [part for part in first["loc"] if part != model.__name__]
        if isinstance(cause := (first.get("ctx") or {}).get("error"), Misplaced):
            loc += cause.where  # the item inside the field that is wrong, for its line
        line = first_line + yamlsrc.line_of(node, loc)
        raise ContentError(path, line, f"{label}: {_describe(first, loc)}") from None


def _describe(error: Any, loc: list[Any]) -> str:
    where = ".".join(str(p) for p in loc)
    kind, ctx = error["type"], error.get("ctx") or {}
    if kind == "missing":
        return f"{where}: required field missing"
    if kind == "extra_forbidden":
        return f"unknown field '{where}' (see content/README.md for the fields)"
    if kind == "too_short":
        return f"{where}: needs at least {ctx['min_length']}, found {ctx['actual_length']}"
    if kind == "too_long":
        return f"{where}: allows at most {ctx['max_length']}, found {ctx['actual_length']}"
    message = str(error["msg"]).removeprefix("Value error, ")
    message = f"{message[0].lower()}{message[1:]}"
    return f"{where}: {message}" if where else message

"""Trial draws of every drill, so a drill that cannot be drawn or filled fails like bad content.

app.content knows nothing of drills: whoever loads content for use passes `check_topic` to
`load_catalog(check=…)`, which runs it on each topic as it loads (in the loading worker, for
a large set): create_app before it serves, `ringside content check` before content ships. A
template that cannot be filled fails on any draw, so start-up draws three times and the
content check twelve.
"""

from functools import partial

from app.content.catalog import Topic
from app.content.loader import ContentError, TopicCheck, require_detectors
from app.content.render import Renderer, RenderProblem
from app.content.schema import NumericCard
from app.drills.engine import DrillError, draw

CHECK_DRAWS = 12  # `ringside content check`
STARTUP_DRAWS = 3  # create_app: saves a fifth of start-up with a large set (bench/suite.py)


def check_topic(topic: Topic, renderer: Renderer, draws: int = CHECK_DRAWS) -> None:
    """Draw each drill `draws` times and parse what it gives; raise ContentError at its line."""
    for view in topic.cards:
        card = view.card
        if not isinstance(card, NumericCard) or card.drill is None:
            continue
        line = view.drill_line or view.line
        try:
            for seed in range(draws):
                drawn = draw(card, seed)
                renderer.parse(drawn.question)
                renderer.parse(drawn.solution)
        except DrillError as error:
            raise ContentError(topic.path, line, f"card '{card.id}': {error}") from None
        except RenderProblem as problem:
            message = f"card '{card.id}': drawn text does not render: {problem.message}"
            raise ContentError(topic.path, line, message) from None


def at_startup() -> TopicCheck:
    """The check create_app runs: fewer draws (a module-level partial, so workers can take it)."""
    return partial(check_topic, draws=STARTUP_DRAWS)


def check_content(topic: Topic, renderer: Renderer) -> None:
    """`ringside content check`: every drill drawn CHECK_DRAWS times, and every common
    mistake detectable (it has evidence)."""
    check_topic(topic, renderer)
    require_detectors(topic)

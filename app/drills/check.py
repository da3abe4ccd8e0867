"""Trial draws of every drill in a catalog, so a drill that cannot be drawn fails like bad content.

Content is loaded first (app.content knows nothing of drills); whoever loads it for use then
calls `check_catalog`: create_app before it serves, `ringside content check` before content
ships. A template that cannot be filled fails on any draw, so start-up draws three times and
the content check twelve.
"""

from app.content.catalog import Catalog
from app.content.loader import ContentError
from app.content.render import Renderer, RenderProblem
from app.content.schema import NumericCard
from app.drills.engine import DrillError, draw

CHECK_DRAWS = 12  # `ringside content check`
STARTUP_DRAWS = 3  # create_app: a fifth of start-up saved with a large content set (bench/suite.py)


def check_catalog(catalog: Catalog, renderer: Renderer, draws: int = CHECK_DRAWS) -> None:
    """Draw every drill `draws` times and parse what it gives; raise ContentError at its line."""
    for topic in catalog.topics:
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

"""A draw rendered for a page: the question and worked solution as HTML."""

from collections.abc import Iterable
from dataclasses import dataclass

from app.content.catalog import CardView
from app.content.render import Renderer
from app.content.schema import NumericCard
from app.drills import engine


@dataclass(frozen=True)
class DrawView:
    draw: engine.Draw
    question_html: str
    solution_html: str

    @property
    def is_drill(self) -> bool:
        return self.draw.seed is not None


def numeric(card: CardView) -> NumericCard | None:
    return card.card if isinstance(card.card, NumericCard) else None


def present(renderer: Renderer, card: CardView, seed: int | None = None) -> DrawView:
    """Draw `card` (a fresh seed when none is given) and render it; fixed cards reuse their HTML."""
    model = numeric(card)
    if model is None:
        raise engine.DrillError(f"card '{card.id}' is not a numeric card")
    if model.drill is None:
        drawn = engine.draw(model)
        return DrawView(drawn, card.question_html, card.answer_html or "")
    drawn = engine.draw(model, engine.new_seed() if seed is None else seed)
    return DrawView(
        drawn, renderer.render_text(drawn.question), renderer.render_text(drawn.solution)
    )


def present_all(renderer: Renderer, cards: Iterable[CardView]) -> dict[str, DrawView]:
    """Fresh numbers for every numeric card on a page, by card id."""
    return {card.id: present(renderer, card) for card in cards if numeric(card) is not None}

"""The Jinja environment shared by every page."""

from fastapi.templating import Jinja2Templates

from app import PROJECT_ROOT, __version__
from app.content.catalog import Catalog
from app.drills.engine import format_number, round_significant

KIND_LABELS = {
    "recall": "Recall",
    "derivation": "Derivation",
    "numeric": "Numeric",
    "order": "Order",
}


def build_templates(catalog: Catalog) -> Jinja2Templates:
    templates = Jinja2Templates(directory=PROJECT_ROOT / "templates")
    env = templates.env
    env.globals["catalog"] = catalog
    env.globals["version"] = __version__
    env.globals["kind_labels"] = KIND_LABELS
    env.filters["format_value"] = format_value
    return templates


def format_value(value: float) -> str:
    """A number as a person reads it: 4 significant digits, 1.75×10⁹ when very large."""
    return format_number(round_significant(value, 4))

"""The Jinja environment shared by every page.

Templates do no I/O: who is asking was resolved before any page renders (app.web.identity),
and its CSRF token reaches every template through `request_context` as `csrf_token`; forms
write `{{ csrf_field() }}`.
"""

import uuid
from datetime import datetime
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from app import PROJECT_ROOT, __version__
from app.content.catalog import Catalog
from app.drills.engine import format_number, round_significant
from app.mock.sessions import MAX_ANSWER
from app.web.identity import csrf_token
from app.wording import plural

KIND_LABELS = {
    "recall": "Recall",
    "derivation": "Derivation",
    "numeric": "Numeric",
    "order": "Order",
}


def build_templates(catalog: Catalog) -> Jinja2Templates:
    templates = Jinja2Templates(
        directory=PROJECT_ROOT / "templates", context_processors=[request_context]
    )
    env = templates.env
    env.globals["catalog"] = catalog
    env.globals["version"] = __version__
    env.globals["kind_labels"] = KIND_LABELS
    # The longest typed answer the server takes: "Check my answer" limits its box to it.
    env.globals["answer_max"] = MAX_ANSWER
    env.filters["format_value"] = format_value
    env.filters["relative"] = relative
    env.filters["plural"] = plural  # {{ n|plural("card") }}: "1 card", "2 cards"
    env.filters["percent"] = lambda value: "—" if value is None else f"{value:.0%}"
    env.globals["new_key"] = lambda: uuid.uuid4().hex
    env.globals["csrf_field"] = csrf_field
    return templates


def request_context(request: Request) -> dict[str, Any]:
    """What every page gets from the request: the CSRF token its forms send back."""
    return {"csrf_token": csrf_token(request)}


@pass_context
def csrf_field(context: Context) -> Markup:
    """The hidden field a form sends its CSRF token in (empty when signed out)."""
    token = context.get("csrf_token", "")
    return Markup('<input type="hidden" name="csrf_token" value="{}">').format(escape(token))


def format_value(value: float) -> str:
    """A number as a person reads it: 4 significant digits, 1.75×10⁹ when very large."""
    return format_number(round_significant(value, 4))


def relative(moment: datetime, now: datetime) -> str:
    """ "in 8 minutes", "in 3 hours", "in 2 days": when something comes due."""
    seconds = (moment - now).total_seconds()
    if seconds < 60:
        return "now"
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size:
            count = round(seconds / size)
            return f"in {count} {unit}{'' if count == 1 else 's'}"
    return "now"

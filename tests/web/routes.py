"""The app's routes, read from the app itself, for tests that must cover every route."""

from collections.abc import Iterator
from typing import Any

from fastapi.routing import APIRoute


def api_routes(routes: list[Any]) -> Iterator[APIRoute]:
    """Every APIRoute of the app, through included routers (FastAPI builds them lazily)."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from api_routes(inner.routes)

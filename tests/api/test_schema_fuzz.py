"""Schemathesis over the whole OpenAPI schema: no 500 anywhere, every response as documented.

Fixed seed and bounded examples, so the run is repeatable and fits in the suite's time.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi import checks

from app.config import Settings
from app.main import create_app
from tests.conftest import FIXTURE_CONTENT

_TMP = Path(__import__("tempfile").mkdtemp(prefix="ringside-fuzz-"))
APP = create_app(
    Settings(database_url=f"sqlite:///{_TMP}/fuzz.db", content_dir=FIXTURE_CONTENT, srs_fuzz=False)
)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@schemathesis.serializer("audio/webm", "audio/ogg", "audio/mp4")
def _audio(ctx: object, value: object) -> bytes:
    """Spoken mock answers are sent as raw audio bytes: send the generated ones as they are."""
    return value if isinstance(value, bytes) else str(value).encode()


@pytest.fixture(autouse=True, scope="module")
def _dispose() -> Iterator[None]:
    yield
    APP.state.database.dispose()


@schema.parametrize()
@settings(
    max_examples=12,
    derandomize=True,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_api_never_fails_and_matches_its_schema(case: schemathesis.Case) -> None:
    # Not checked: a 405's Allow header (Starlette routes each method separately, so it names
    # only the first route matched: a framework detail, not the contract), and acceptance of
    # every schema-valid body (the labs and settings also refuse values the schema cannot
    # express, such as a time zone that does not exist, with a documented 422).
    case.call_and_validate(
        excluded_checks=[checks.allow_header_conformance, checks.positive_data_acceptance]
    )

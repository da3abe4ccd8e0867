"""Schemathesis over the whole OpenAPI schema: no 500 anywhere, every response as documented.

Fixed seed and bounded examples, so the run is repeatable and fits in the suite's time.
"""

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi import checks

from app.config import Settings
from app.main import create_app
from tests.conftest import FIXTURE_CONTENT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The schema of an app of its own, on a database in a temporary folder pytest removes."""
    database = tmp_path_factory.mktemp("fuzz") / "fuzz.db"
    app = create_app(
        Settings(database_url=f"sqlite:///{database}", content_dir=FIXTURE_CONTENT, srs_fuzz=False)
    )
    yield schemathesis.openapi.from_asgi("/openapi.json", app)
    app.state.database.dispose()


schema = schemathesis.pytest.from_fixture("api_schema")


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

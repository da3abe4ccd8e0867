"""Schemathesis over the whole OpenAPI schema: no 500 anywhere, every response as documented.

Fixed seed and bounded examples, so the run is repeatable and fits in the suite's time. The
app is built in a fixture, on a database pytest removes; each operation then gets its own
Hypothesis run, drawing valid and invalid requests alike. (`schemathesis.pytest.from_fixture`
would do the same, but schemathesis 4.32 sets a node id pytest 9.2 no longer has.)
"""

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
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


def test_api_never_fails_and_matches_its_schema(api_schema: Any) -> None:
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) > 20  # the whole API, not an empty or broken schema
    for operation in operations:
        cases = st.one_of([operation.as_strategy(generation_mode=m) for m in GenerationMode])

        @settings(
            max_examples=12,
            derandomize=True,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=cases)
        def check(case: schemathesis.Case) -> None:
            # Not checked: a 405's Allow header (Starlette routes each method separately, so it
            # names only the first route matched: a framework detail, not the contract), and
            # acceptance of every schema-valid body (the labs and settings also refuse values
            # the schema cannot express, such as a time zone that does not exist, with a
            # documented 422).
            case.call_and_validate(
                excluded_checks=[checks.allow_header_conformance, checks.positive_data_acceptance]
            )

        try:
            check()
        except Exception as error:
            error.add_note(f"in {operation.method.upper()} {operation.path}")
            raise

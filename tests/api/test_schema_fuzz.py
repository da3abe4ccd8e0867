"""Schemathesis over the whole OpenAPI schema: no 500 anywhere, every response as documented.

Fixed seed and bounded examples, so the run is repeatable and fits in the suite's time. On
PostgreSQL too when RINGSIDE_TEST_DATABASE_URL is set (a schema of its own, dropped after).

Besides what schemathesis generates from the schema, every generated request is replayed with
the classes of input that once reached a 500, put in each of its fields in turn: U+0000 and
lone surrogates in text (PostgreSQL and SQLite cannot store them), time-zone folders and
over-long names, paths, infinities and NaN in numbers, and an unknown bearer token.
"""

import json
import math
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from typing import Any
from urllib.parse import quote

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.core import NotSet
from schemathesis.specs.openapi import checks

from app.config import Settings
from app.main import create_app
from tests.conftest import FIXTURE_CONTENT, loopback_client
from tests.postgres.schemas import Schemas, template_url


@pytest.fixture(scope="module")
def apps(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[FastAPI]]:
    """Two apps on two databases: the replay below starts from a clean profile, whatever the
    schema-driven run imported into its own."""
    url = template_url()
    schemas = Schemas(url) if url else None
    folder = tmp_path_factory.mktemp("fuzz")
    databases = [schemas.create() if schemas else f"sqlite:///{folder}/fuzz-{n}.db" for n in (0, 1)]
    # The run starts a mock session for every case that needs one, and imports many files: the
    # daily quotas (tested in tests/web/test_quotas.py) are raised out of its way.
    roomy = {"quota_mock_sessions_per_day": 100_000, "quota_imports_per_day": 100_000}
    built = [
        create_app(
            Settings(database_url=database, content_dir=FIXTURE_CONTENT, srs_fuzz=False, **roomy)  # type: ignore[arg-type]
        )
        for database in databases
    ]
    yield built
    for app in built:
        app.state.database.dispose()
    if schemas is not None:
        for database in databases:
            schemas.drop(database)
        schemas.dispose()


def on_loopback(app: FastAPI) -> Callable[[Any, Any, Any], Awaitable[None]]:
    """The app as a browser or script on this machine reaches it: local mode serves nothing
    else (app.web.security.LocalOnlyMiddleware), and the ASGI client says "testclient"."""

    async def call(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = [(k, v) for k, v in scope["headers"] if k != b"host"]
            scope = {
                **scope,
                "client": ("127.0.0.1", 50000),
                "server": ("127.0.0.1", 8000),
                "headers": [*headers, (b"host", b"127.0.0.1:8000")],
            }
        await app(scope, receive, send)

    return call


@pytest.fixture(scope="module")
def replay_client(apps: list[FastAPI]) -> Iterator[TestClient]:
    with loopback_client(apps[1]) as client:  # one event loop for every replayed request
        yield client


def documented_api() -> dict[str, Any]:
    """The OpenAPI document, from an app that lives only as long as this call: hypothesis
    needs the operations when the tests are collected, before any fixture runs; the requests
    go to the fixtures' apps."""
    with tempfile.TemporaryDirectory(prefix="ringside-schema-") as folder:
        settings = Settings(
            database_url=f"sqlite:///{folder}/schema.db", content_dir=FIXTURE_CONTENT
        )
        app = create_app(settings)
        try:
            return app.openapi()
        finally:
            app.state.database.dispose()


DOCUMENT = documented_api()
schema = schemathesis.openapi.from_dict(DOCUMENT)
# For the replay below: one generated request per operation is the seed, not the schema's
# boundary cases (the coverage phase), which the test above already sends.
seeds = schemathesis.openapi.from_dict(DOCUMENT)
seeds.config.phases.update(phases=["fuzzing"])

HOSTILE_TEXT = [
    "\x00",
    "name\x00with a NUL",
    "\udc00x",  # a lone surrogate: JSON carries it as "\udc00", UTF-8 cannot
    "\ud800",
    "America",  # a folder of the time-zone database, not a zone
    "Etc",
    "Ä" * 300,  # longer than any file name
    "../../../../etc/passwd",
    "",
]
# URLs and query strings carry no lone surrogate (they are UTF-8 on the wire).
URL_TEXT = [t for t in HOSTILE_TEXT if not any(0xD800 <= ord(c) <= 0xDFFF for c in t)]
HOSTILE_NUMBERS = [math.inf, -math.inf, math.nan, 1e308, -1e308, 2**63, -(2**63) - 1]
HEADERS = ("content-security-policy", "x-content-type-options", "cache-control")


@schemathesis.serializer("audio/webm", "audio/ogg", "audio/mp4")
def _audio(ctx: object, value: object) -> bytes:
    """Spoken mock answers are sent as raw audio bytes: send the generated ones as they are."""
    return value if isinstance(value, bytes) else str(value).encode()


@schema.parametrize()
@settings(
    max_examples=12,
    derandomize=True,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_api_never_fails_and_matches_its_schema(
    case: schemathesis.Case, apps: list[FastAPI]
) -> None:
    # Not checked: a 405's Allow header (Starlette routes each method separately, so it names
    # only the first route matched: a framework detail, not the contract), and acceptance of
    # every schema-valid body (the labs and settings also refuse values the schema cannot
    # express, such as a time zone that does not exist, with a documented 422).
    case.call_and_validate(
        app=on_loopback(apps[0]),
        excluded_checks=[checks.allow_header_conformance, checks.positive_data_acceptance],
    )


def leaves(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every (path, value) of a text or number in a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, (*at, index))
    elif isinstance(value, str) or (isinstance(value, int | float) and not isinstance(value, bool)):
        yield at, value


def replaced(value: Any, at: tuple[Any, ...], new: Any) -> Any:
    if not at:
        return new
    head, rest = at[0], at[1:]
    if isinstance(value, dict):
        return {**value, head: replaced(value[head], rest, new)}
    return [*value[:head], replaced(value[head], rest, new), *value[head + 1 :]]


def variants(value: Any, hostile_text: list[str]) -> Iterator[Any]:
    """`value` with one leaf replaced by a hostile value of its kind: every leaf gets one, and
    every hostile value goes somewhere (pairs taken in turn, not all of them: the run stays
    in the suite's time)."""
    found = list(leaves(value))
    texts = [(at, old) for at, old in found if isinstance(old, str)]
    numbers = [(at, old) for at, old in found if not isinstance(old, str)]
    for places, values in ((texts, hostile_text), (numbers, HOSTILE_NUMBERS)):
        for n in range(max(len(places), len(values)) if places else 0):
            at, _old = places[n % len(places)]
            yield replaced(value, at, values[n % len(values)])


@seeds.parametrize()
@settings(
    max_examples=3,
    derandomize=True,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_hostile_values_in_any_field_get_a_4xx(
    case: schemathesis.Case, replay_client: TestClient
) -> None:
    client = replay_client
    # Real objects in the path, so that the hostile values get past the 404s to the database.
    parameters = dict(case.path_parameters or {})
    real: dict[str, Any] = {"card_id": "alpha-drill-bytes", "slug": "alpha"}
    if "mock_id" in parameters:  # a question being answered, as the mock's writes need
        mock = client.post("/api/mock", json={"preset": "custom", "questions": 1, "minutes": 60})
        assert mock.status_code == 201, mock.text
        real["mock_id"] = mock.json()["id"]
        assert client.post(f"/api/mock/{real['mock_id']}/start").status_code == 200
    parameters.update({name: real[name] for name in parameters if name in real})
    path = case.operation.path.format(**parameters)
    query = dict(case.query or {})
    body = None if isinstance(case.body, NotSet) else case.body
    tried = 0

    def send(path: str, query: dict[str, Any], body: Any, **headers: str) -> None:
        nonlocal tried
        if body is None or isinstance(body, bytes):  # bytes: a malformed body, sent as it is
            content = body
        else:
            content = json.dumps(body, allow_nan=True)  # ASCII: "\udc00" stays an escape
        kind = {"content-type": "application/json"} if body is not None else {}
        answer = client.request(
            case.method, path, params=query, content=content, headers={**kind, **headers}
        )
        tried += 1
        where = f"{case.method} {path} {query} {content!r:.300}"
        assert answer.status_code < 500, f"{where} -> {answer.status_code} {answer.text:.300}"
        assert all(name in answer.headers for name in HEADERS), where
        if answer.status_code >= 400:
            assert "detail" in answer.json(), where

    for changed in variants(body, HOSTILE_TEXT):
        send(path, query, changed)
    for changed in variants(query, URL_TEXT):
        send(path, changed, body)
    for name, value in parameters.items():
        for hostile in URL_TEXT if isinstance(value, str) else []:
            filled = {**parameters, name: quote(hostile, safe="")}
            send(case.operation.path.format(**filled), query, body)
    send(path, query, body, authorization="Bearer rs_not_a_token")
    assert tried >= 1

"""Each test builds its own app on its own temporary database."""

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.clock import Clock, utc_now
from app.config import Settings
from app.main import create_app
from tests.postgres.schemas import Schemas, template_url

FIXTURE_CONTENT = Path(__file__).parent / "fixtures" / "content"
REAL_CONTENT = Path(__file__).parent.parent / "content"

ClientFactory = Callable[..., TestClient]


DatabaseFactory = Callable[[], str]


def pytest_report_header() -> str:
    url = template_url()
    if url is None:
        return "database: SQLite (set RINGSIDE_TEST_DATABASE_URL to run on PostgreSQL too)"
    return f"database: PostgreSQL at {url}, a fresh schema per app"


@pytest.fixture(scope="session")
def postgres_schemas() -> Iterator[Schemas | None]:
    """The PostgreSQL the suite runs on, or None when RINGSIDE_TEST_DATABASE_URL is unset."""
    url = template_url()
    if url is None:
        yield None
        return
    schemas = Schemas(url)
    schemas.check()
    schemas.sweep()
    yield schemas
    schemas.dispose()


@pytest.fixture
def new_database(tmp_path: Path, postgres_schemas: Schemas | None) -> Iterator[DatabaseFactory]:
    """Make empty databases for apps: a schema each on PostgreSQL when the suite runs there,
    else a file each in the test's temporary folder; PostgreSQL schemas are dropped after."""
    urls: list[str] = []

    def new() -> str:
        if postgres_schemas is None:
            url = f"sqlite:///{tmp_path}/app-{len(urls)}.db"
        else:
            url = postgres_schemas.create()
        urls.append(url)
        return url

    yield new
    if postgres_schemas is not None:
        for url in urls:
            postgres_schemas.drop(url)


@pytest.fixture
def make_client(new_database: DatabaseFactory) -> Iterator[ClientFactory]:
    """Build a TestClient for a fresh app; content defaults to the small fixture set."""
    clients: list[TestClient] = []

    def build(
        content_dir: Path = FIXTURE_CONTENT, clock: Clock = utc_now, **overrides: object
    ) -> TestClient:
        settings = Settings(
            database_url=new_database(),
            content_dir=content_dir,
            **overrides,  # type: ignore[arg-type]
        )
        app = create_app(settings, clock=clock)
        client = loopback_client(app) if settings.auth_mode == "local" else TestClient(app)
        client.__enter__()
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.__exit__(None, None, None)


LOOPBACK_URL = "http://127.0.0.1:8000"


def loopback_client(app: Any, **options: Any) -> TestClient:
    """A client on this machine, as local mode requires: from 127.0.0.1, to 127.0.0.1:8000
    (the default TestClient comes from "testclient" to "testserver", which it refuses)."""
    return TestClient(app, base_url=LOOPBACK_URL, client=("127.0.0.1", 50000), **options)


@pytest.fixture
def client(make_client: ClientFactory) -> TestClient:
    return make_client()


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now

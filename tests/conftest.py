"""Each test builds its own app on its own temporary database."""

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.clock import Clock, utc_now
from app.config import Settings
from app.main import create_app

FIXTURE_CONTENT = Path(__file__).parent / "fixtures" / "content"
REAL_CONTENT = Path(__file__).parent.parent / "content"

ClientFactory = Callable[..., TestClient]


@pytest.fixture
def make_client(tmp_path: Path) -> Iterator[ClientFactory]:
    """Build a TestClient for a fresh app; content defaults to the small fixture set."""
    clients: list[TestClient] = []

    def build(
        content_dir: Path = FIXTURE_CONTENT, clock: Clock = utc_now, **overrides: object
    ) -> TestClient:
        settings = Settings(
            database_url=f"sqlite:///{tmp_path}/app-{len(clients)}.db",
            content_dir=content_dir,
            **overrides,  # type: ignore[arg-type]
        )
        client = TestClient(create_app(settings, clock=clock))
        client.__enter__()
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.__exit__(None, None, None)


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

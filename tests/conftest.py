"""Each test builds its own app on its own temporary database."""

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app

FIXTURE_CONTENT = Path(__file__).parent / "fixtures" / "content"
REAL_CONTENT = Path(__file__).parent.parent / "content"

ClientFactory = Callable[..., TestClient]


@pytest.fixture
def make_client(tmp_path: Path) -> Iterator[ClientFactory]:
    """Build a TestClient for a fresh app; content defaults to the small fixture set."""
    clients: list[TestClient] = []

    def build(content_dir: Path = FIXTURE_CONTENT, **overrides: object) -> TestClient:
        settings = Settings(
            database_url=f"sqlite:///{tmp_path}/app-{len(clients)}.db",
            content_dir=content_dir,
            **overrides,  # type: ignore[arg-type]
        )
        client = TestClient(create_app(settings))
        client.__enter__()
        clients.append(client)
        return client

    yield build
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client: ClientFactory) -> TestClient:
    return make_client()

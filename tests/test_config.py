"""Settings come from RINGSIDE_ variables, with defaults that run out of the box."""

from pathlib import Path

import pytest

from app import PROJECT_ROOT
from app.config import Settings


def test_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("DATABASE_URL", "CONTENT_DIR", "HOST", "PORT", "SECRET_KEY", "AUTH_MODE"):
        monkeypatch.delenv(f"RINGSIDE_{name}", raising=False)
    settings = Settings()
    assert settings.database_url == "sqlite:///./data/ringside.db"
    assert settings.content_dir == PROJECT_ROOT / "content"
    assert (settings.host, settings.port, settings.auth_mode) == ("127.0.0.1", 8000, "local")
    assert settings.secret_key is None


def test_environment_overrides(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RINGSIDE_DATABASE_URL", "sqlite:///x.db")
    monkeypatch.setenv("RINGSIDE_CONTENT_DIR", str(tmp_path))
    monkeypatch.setenv("RINGSIDE_PORT", "9000")
    monkeypatch.setenv("RINGSIDE_SECRET_KEY", "s" * 40)
    settings = Settings()
    assert (settings.database_url, settings.content_dir, settings.port) == (
        "sqlite:///x.db",
        tmp_path,
        9000,
    )
    assert settings.secret_key is not None and settings.secret_key.get_secret_value() == "s" * 40
    assert "s" * 40 not in repr(settings)


def test_creating_the_app_module_creates_nothing() -> None:
    import importlib

    import app.main

    importlib.reload(app.main)  # importing must not touch the disk or build an app
    assert not hasattr(app.main, "app")

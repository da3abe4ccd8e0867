"""Settings, read from environment variables prefixed RINGSIDE_."""

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from app import PROJECT_ROOT


class Settings(BaseSettings):
    """Everything the app needs, passed to create_app; defaults run out of the box."""

    model_config = SettingsConfigDict(env_prefix="RINGSIDE_", extra="ignore")

    database_url: str = Field(
        default="sqlite:///./data/ringside.db",
        description="SQLAlchemy URL; SQLite by default, postgresql+psycopg://… to scale out.",
    )
    content_dir: Path = Field(
        default=PROJECT_ROOT / "content",
        description="Folder holding topics/NN-slug.md.",
    )
    secret_key: SecretStr | None = Field(
        default=None,
        description="Signs session data; required once accounts are enabled.",
    )
    auth_mode: Literal["local", "accounts"] = "local"
    srs_fuzz: bool = Field(
        default=True,
        description="Spread review intervals slightly (FSRS fuzz); tests turn it off.",
    )
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)

"""Settings, read from environment variables prefixed RINGSIDE_."""

from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator
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
    content_cache_dir: Path | None = Field(
        default=None,
        description="Where rendered topics are kept between starts (app.content.cache); "
        "`ringside serve` uses a content-cache folder beside a SQLite database, or "
        "data/content-cache; unset in code that builds the app itself: no cache.",
    )
    backup_dir: Path | None = Field(
        default=None,
        description="Where SQLite backups go; default: a backups folder beside the database.",
    )
    backup_keep: int = Field(
        default=12,
        ge=0,
        description="Daily automatic backups to keep (taken at start-up and once a day while "
        "the server runs); 0 turns them off.",
    )
    backup_keep_weekly: int = Field(
        default=10,
        ge=0,
        description="Beyond those, the newest backup of each of this many past weeks.",
    )
    secret_key: SecretStr | None = Field(
        default=None,
        description="Keys the stored hashes of session cookies, API tokens and invites. "
        "Required (50+ random characters, 5+ different) in accounts mode.",
    )
    auth_mode: Literal["local", "accounts"] = Field(
        default="local",
        description="local: one profile, no sign-in, loopback only; accounts: several users.",
    )
    registration: Literal["open", "invite", "closed"] = Field(
        default="open", description="In accounts mode: who may create an account."
    )
    session_idle_minutes: int = Field(
        default=720, ge=1, description="A session unused this long ends (12 hours)."
    )
    session_absolute_hours: int = Field(
        default=168, ge=1, description="A session ends this long after sign-in (7 days)."
    )
    api_docs: bool | None = Field(
        default=None, description="Serve /docs and /openapi.json; default: on in local mode only."
    )
    max_body_bytes: int = Field(
        default=10 * 1024 * 1024, ge=1024, description="Larger request bodies get 413."
    )
    trust_forwarded: bool = Field(
        default=False,
        description="Behind a reverse proxy: trust X-Forwarded-Proto/For from forwarded_allow_ips.",
    )
    forwarded_allow_ips: str = "127.0.0.1"
    srs_fuzz: bool = Field(
        default=True,
        description="Spread review intervals slightly (FSRS fuzz); tests turn it off.",
    )
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        default="warning",
        description="JSON log lines on stderr at this level and above; info adds one per request.",
    )
    grader_url: str | None = Field(
        default=None,
        description="An OpenAI-compatible chat-completions server (Ollama, vLLM, llama.cpp) "
        "asked for a second opinion when an answer is checked; off when unset.",
    )
    grader_model: str | None = Field(
        default=None, description="The model name to ask at grader_url."
    )
    grader_timeout_s: float = Field(
        default=20.0, gt=0, le=300, description="How long to wait for the grader model."
    )
    transcribe_url: str | None = Field(
        default=None,
        description="An OpenAI-compatible transcription server (whisper.cpp's server, "
        "faster-whisper-server, vLLM): its base URL or its /v1/audio/transcriptions endpoint. "
        "Each recorded take is sent there once saved; off when unset.",
    )
    transcribe_model: str | None = Field(
        default=None,
        max_length=200,
        description="The model name sent with each take; default whisper-1 (servers that "
        "host one model ignore it).",
    )
    transcribe_timeout_s: float = Field(
        default=120.0, gt=0, le=3600, description="How long one take's transcription may take."
    )
    transcribe_api_key: SecretStr | None = Field(
        default=None, description="Sent as a Bearer token, for a hosted transcription endpoint."
    )
    # Per-member caps (app.quotas): one account must not fill a shared server's disk.
    quota_audio_mb: int = Field(
        default=200, ge=1, le=1_000_000, description="Recorded audio each user may keep, in MB."
    )
    quota_mock_sessions_per_day: int = Field(
        default=30, ge=1, le=100_000, description="Mock interviews a user may start in 24 hours."
    )
    quota_imports_per_day: int = Field(
        default=20, ge=1, le=100_000, description="Files a user may import in 24 hours."
    )

    @field_validator("transcribe_url")
    @classmethod
    def _web_address(cls, url: str | None) -> str | None:
        """Only http(s) with a host: a file: or ftp: URL would make urllib read something else
        than a transcription server."""
        if url is None or not url.strip():
            return None
        parts = urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http:// or https:// URL with a host")
        return url.strip()

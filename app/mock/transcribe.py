"""The outbound call to an OpenAI-compatible transcription server: one take in, its text out.

`POST …/v1/audio/transcriptions` as multipart form data with `file`, `model` and
`response_format=json`; the reply is `{"text": "…"}`. whisper.cpp's server,
faster-whisper-server (speaches) and vLLM all speak it. Standard library only, so nothing is
installed for a feature that is off by default.

Every failure (refused connection, timeout, an HTTP error, a reply too large or not the JSON
agreed) is a TranscribeError with a short reason a person can read: the caller stores it on
the transcript as "failed", never lets it reach a page.
"""

import json
import secrets
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Protocol

from pydantic import SecretStr

DEFAULT_MODEL = "whisper-1"  # OpenAI's name; servers that host one model ignore the field
MAX_REPLY_BYTES = 1_000_000  # a transcript is text: an hour of speech is ~60 kB
_ENDPOINT = "/audio/transcriptions"
_SUFFIX = {"audio/webm": "webm", "audio/ogg": "ogg", "audio/mp4": "m4a"}


class TranscribeError(Exception):
    """The take could not be transcribed; str() is the reason, short enough to show."""


class _Settings(Protocol):
    transcribe_url: str | None
    transcribe_model: str | None
    transcribe_timeout_s: float
    transcribe_api_key: SecretStr | None


@dataclass(frozen=True)
class Config:
    url: str  # the endpoint itself, …/v1/audio/transcriptions
    model: str = DEFAULT_MODEL
    timeout_s: float = 120.0
    api_key: str | None = None

    @classmethod
    def of(cls, settings: _Settings) -> "Config | None":
        """The settings' server, or None when transcription is off (no URL)."""
        if not settings.transcribe_url:
            return None
        url = settings.transcribe_url.rstrip("/")
        if not url.endswith(_ENDPOINT):
            url += _ENDPOINT if url.endswith("/v1") else "/v1" + _ENDPOINT
        key = (
            settings.transcribe_api_key.get_secret_value() if settings.transcribe_api_key else None
        )
        return cls(
            url, settings.transcribe_model or DEFAULT_MODEL, settings.transcribe_timeout_s, key
        )


def multipart(fields: dict[str, str], filename: str, mime: str, data: bytes) -> tuple[bytes, str]:
    """A multipart/form-data body with text fields and one file; returns (body, content type)."""
    boundary = "ringside-" + secrets.token_hex(16)
    parts: list[bytes] = []
    for name, value in fields.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
            + value.encode()
            + b"\r\n"
        )
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
        f"Content-Type: {mime}\r\n\r\n".encode()
        + data
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def transcribe(config: Config, mime: str, data: bytes) -> str:
    """The text of one take (audio as recorded: WebM, Ogg or MP4). Raises TranscribeError."""
    kind = mime.partition(";")[0].strip().lower()
    body, content_type = multipart(
        {"model": config.model, "response_format": "json"},
        f"take.{_SUFFIX.get(kind, 'webm')}",
        kind or "application/octet-stream",
        data,
    )
    headers = {"Content-Type": content_type, "Accept": "application/json"}
    if config.api_key:
        headers["Authorization"] = f"Bearer {config.api_key}"
    request = urllib.request.Request(config.url, data=body, headers=headers, method="POST")
    # urllib's timeout bounds each wait on the socket; the deadline bounds the reply as a
    # whole, so a server that trickles bytes cannot hold the worker for ever.
    deadline = time.monotonic() + config.timeout_s
    try:
        with urllib.request.urlopen(request, timeout=config.timeout_s) as response:  # noqa: S310
            raw = bytearray()
            while len(raw) <= MAX_REPLY_BYTES:
                if time.monotonic() > deadline:
                    raise TimeoutError
                piece = response.read(64 * 1024)
                if not piece:
                    break
                raw.extend(piece)
    except urllib.error.HTTPError as error:
        error.close()  # it holds the connection open otherwise
        raise TranscribeError(f"the transcription server answered HTTP {error.code}") from None
    except TimeoutError:
        raise TranscribeError(f"no answer within {config.timeout_s:g} s") from None
    except urllib.error.URLError as error:
        reason = error.reason
        if isinstance(reason, TimeoutError):
            raise TranscribeError(f"no answer within {config.timeout_s:g} s") from None
        raise TranscribeError(f"the transcription server could not be reached ({reason})") from None
    except OSError as error:  # a connection reset mid-reply
        raise TranscribeError(f"the transcription server could not be reached ({error})") from None
    if len(raw) > MAX_REPLY_BYTES:
        raise TranscribeError("the transcription server's reply was too large")
    try:
        text = json.loads(bytes(raw))["text"]
    except (ValueError, KeyError, TypeError):
        raise TranscribeError(
            "the transcription server's reply was not the JSON asked for"
        ) from None
    if not isinstance(text, str):
        raise TranscribeError("the transcription server's reply was not the JSON asked for")
    return text.strip()

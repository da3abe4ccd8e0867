"""An optional second opinion: an OpenAI-compatible chat model asked which points an answer makes.

Off unless RINGSIDE_GRADER_URL and RINGSIDE_GRADER_MODEL are set (a local Ollama, vLLM or
llama.cpp server, say), so nothing leaves the machine by default. The local grader always
answers; any timeout, error or malformed reply here becomes `error` on the opinion, never a
failed request.
"""

import json
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio

from app.content.catalog import CardView

REASON_CHARS = 200
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


class _Settings(Protocol):
    grader_url: str | None
    grader_model: str | None
    grader_timeout_s: float


@dataclass(frozen=True)
class Config:
    url: str  # the chat-completions endpoint, …/v1/chat/completions
    model: str
    timeout_s: float = 20.0

    @classmethod
    def of(cls, settings: _Settings) -> "Config | None":
        if not settings.grader_url or not settings.grader_model:
            return None
        url = settings.grader_url.rstrip("/")
        if not url.endswith("/chat/completions"):
            url += "/chat/completions" if url.endswith("/v1") else "/v1/chat/completions"
        return cls(url, settings.grader_model, settings.grader_timeout_s)


@dataclass(frozen=True)
class Opinion:
    points: list[int] | None
    reasons: dict[int, str] = field(default_factory=dict)
    error: str | None = None


def prompt(card: CardView, answer: str) -> list[dict[str, str]]:
    rubric = "\n".join(f"{i}. {p.point}" for i, p in enumerate(card.card.rubric))
    system = (
        "You are an interviewer for distributed-training infrastructure roles, grading a "
        "candidate's typed answer against a rubric. Credit a point only when the answer "
        "states it correctly; a point mentioned only to deny it, or stated wrongly, is not "
        'made. Reply with JSON only, in the form {"points": [{"index": 0, "reason": "one '
        'line quoting what the answer said"}]}, listing only the points made.'
    )
    user = f"Question:\n{card.card.question}\n\nRubric:\n{rubric}\n\nAnswer:\n{answer}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


async def ask(config: Config, card: CardView, answer: str) -> Opinion:
    """The model's opinion, or an Opinion with `error` set after at most the timeout."""
    body = {
        "model": config.model,
        "messages": prompt(card, answer),
        "temperature": 0,
        "response_format": {"type": "json_object"},
    }
    late = Opinion(None, error=f"the model did not answer within {config.timeout_s:g} s")
    with anyio.move_on_after(config.timeout_s):
        try:
            reply = await anyio.to_thread.run_sync(
                _post, config.url, body, config.timeout_s, abandon_on_cancel=True
            )
        except TimeoutError:  # the socket's own timeout, which can come first on a busy machine
            return late
        except (OSError, ValueError) as error:  # URLError, HTTPError, bad JSON
            return Opinion(None, error=f"the model could not be asked: {error}")
        return parse(reply, len(card.rubric))
    return late


def _post(url: str, body: dict[str, Any], timeout_s: float) -> Any:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Accept": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310
            return json.loads(response.read(1_000_000))
    except urllib.error.HTTPError as error:
        error.close()  # it holds the connection open otherwise
        raise OSError(f"HTTP {error.code} from {url}") from None
    except urllib.error.URLError as error:
        if isinstance(error.reason, TimeoutError):  # timed out while connecting
            raise TimeoutError from None
        raise


def parse(reply: Any, points: int) -> Opinion:
    """Read a chat-completions reply; anything but the agreed JSON is an error, not a guess."""
    try:
        content = reply["choices"][0]["message"]["content"]
        data = json.loads(_FENCE.sub("", content.strip()))
        items = data["points"]
        made: dict[int, str] = {}
        for item in items:
            index, reason = item["index"], item.get("reason", "")
            if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < points:
                raise ValueError(f"no rubric point {index!r}")
            made[index] = str(reason)[:REASON_CHARS]
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as error:
        return Opinion(None, error=f"the model's reply was not the JSON asked for ({error})")
    return Opinion(sorted(made), made)

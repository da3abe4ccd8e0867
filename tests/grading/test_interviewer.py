"""The optional interviewer model, against a small OpenAI-compatible server run by the test."""

import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest

from app.config import Settings
from app.content.loader import load_catalog
from app.grading import interviewer
from tests.conftest import FIXTURE_CONTENT, ClientFactory

CARD = load_catalog(FIXTURE_CONTENT).card("alpha-ring-bytes")
ANSWER = "reduce-scatter then all-gather"


def reply(content: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}


GOOD = reply(
    json.dumps({"points": [{"index": 0, "reason": "says reduce-scatter then all-gather"}]})
)


@contextmanager
def chat_server(
    answer: dict[str, Any] | None = None, status: int = 200, delay_s: float = 0.0
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A chat-completions endpoint on 127.0.0.1 that records each request it is sent."""
    received: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the http.server API)
            length = int(self.headers["Content-Length"])
            received.append({"path": self.path, "body": json.loads(self.rfile.read(length))})
            time.sleep(delay_s)
            data = json.dumps(answer if answer is not None else GOOD).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting, as it should

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", received
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def config(url: str, timeout_s: float = 5.0) -> interviewer.Config:
    settings = Settings(grader_url=url, grader_model="tiny", grader_timeout_s=timeout_s)
    found = interviewer.Config.of(settings)
    assert found is not None
    return found


def ask(url: str, timeout_s: float = 5.0) -> interviewer.Opinion:
    """Ask in a thread of its own: the browser tests' Playwright keeps a loop in this one."""
    assert CARD is not None
    with ThreadPoolExecutor(1) as pool:
        run = pool.submit(anyio.run, interviewer.ask, config(url, timeout_s), CARD, ANSWER)
        return run.result()


def test_off_unless_both_url_and_model_are_set() -> None:
    assert interviewer.Config.of(Settings()) is None
    assert interviewer.Config.of(Settings(grader_url="http://127.0.0.1:9/v1")) is None
    assert Settings().grader_timeout_s == 20
    endpoint = config("http://127.0.0.1:11434").url
    assert endpoint == "http://127.0.0.1:11434/v1/chat/completions"


def test_the_model_is_asked_for_structured_json_about_this_rubric() -> None:
    with chat_server() as (url, received):
        opinion = ask(url)
    assert opinion.points == [0]
    assert opinion.reasons == {0: "says reduce-scatter then all-gather"}
    assert opinion.error is None
    sent = received[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["body"]["model"] == "tiny"
    assert sent["body"]["response_format"] == {"type": "json_object"}
    prompt = sent["body"]["messages"][-1]["content"]
    assert "0. Reduce-scatter then all-gather" in prompt and ANSWER in prompt


@pytest.mark.parametrize(
    "content",
    [
        "I think point 0.",
        json.dumps({"points": [{"index": 7, "reason": "no such point"}]}),
        json.dumps({"points": [{"index": "0"}]}),
        json.dumps({"made": [0]}),
    ],
)
def test_a_malformed_reply_is_an_error_not_a_guess(content: str) -> None:
    with chat_server(reply(content)) as (url, _received):
        opinion = ask(url)
    assert opinion.points is None
    assert opinion.error is not None and "JSON" in opinion.error


def test_a_fenced_json_reply_is_read() -> None:
    fenced = "```json\n" + json.dumps({"points": [{"index": 1, "reason": "N-1"}]}) + "\n```"
    with chat_server(reply(fenced)) as (url, _received):
        assert ask(url).points == [1]


@pytest.mark.parametrize("raised", [TimeoutError(), OSError("connection refused")])
def test_a_socket_timeout_says_timed_out_as_the_clock_does(
    monkeypatch: pytest.MonkeyPatch, raised: OSError
) -> None:
    """On a busy machine the socket's own timeout can come before the clock's: the user is
    told the same thing either way, and anything else is a failure to ask."""

    def post(*_args: Any) -> Any:
        raise raised

    monkeypatch.setattr(interviewer, "_post", post)
    opinion = ask("http://127.0.0.1:9/v1", timeout_s=0.5)
    assert opinion.points is None and opinion.error is not None
    timed_out = "did not answer within 0.5 s" in opinion.error
    assert timed_out == isinstance(raised, TimeoutError)


def test_server_errors_and_timeouts_become_errors_in_time() -> None:
    with chat_server(status=500) as (url, _received):
        opinion = ask(url)
    assert opinion.points is None and opinion.error is not None
    with chat_server(delay_s=3) as (url, _received):
        start = time.monotonic()
        opinion = ask(url, timeout_s=0.5)
        assert time.monotonic() - start < 2
    assert opinion.points is None and opinion.error is not None and "0.5 s" in opinion.error
    opinion = ask("http://127.0.0.1:9/v1")  # nothing listens there
    assert opinion.points is None and opinion.error is not None


def test_the_check_api_shows_the_model_beside_the_local_grader(
    make_client: ClientFactory, tmp_path: Path
) -> None:
    with chat_server() as (url, received):
        client = make_client(grader_url=url, grader_model="tiny")
        api = "/api/cards/alpha-ring-bytes/check"
        local = client.post(api, json={"answer": ANSWER}).json()
        assert local["model_available"] is True and local["model"] is None
        assert received == []  # nothing leaves the machine unless asked for
        both = client.post(api, json={"answer": ANSWER, "model": True}).json()
    assert both["points"] == local["points"] == [0]
    assert both["model"] == {
        "name": "tiny",
        "points": [0],
        "reasons": {"0": "says reduce-scatter then all-gather"},
        "error": None,
    }


def test_the_check_api_falls_back_to_the_local_grader_when_the_model_fails(
    make_client: ClientFactory,
) -> None:
    with chat_server(reply("no JSON here")) as (url, _received):
        client = make_client(grader_url=url, grader_model="tiny")
        response = client.post(
            "/api/cards/alpha-ring-bytes/check", json={"answer": ANSWER, "model": True}
        )
    assert response.status_code == 200
    body = response.json()
    assert body["points"] == [0]
    assert body["model"]["points"] is None and "JSON" in body["model"]["error"]

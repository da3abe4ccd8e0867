"""What was said: recorded takes transcribed by an OpenAI-compatible server the test starts
(tests/transcription_server.py), shown, corrected, and read by the grader with the typed answer.

Runs on SQLite, and on PostgreSQL when RINGSIDE_TEST_DATABASE_URL is set.
"""

import json
import socket
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy import select

from app.config import Settings
from app.main import create_app
from app.mock import transcripts
from app.models import MockQuestion, MockTranscript
from tests.conftest import ClientFactory, FakeClock, loopback_client
from tests.content.helpers import write_topic
from tests.transcription_server import Behaviour, transcription_server
from tests.web.others import other_users_mock
from tests.web.test_accounts import KEY, csrf_of, register
from tests.web.test_mock_followups import CARD, ONLY_PHASES, PHASES_AND_BYTES

START = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
WEBM = "audio/webm;codecs=opus"
TAKE_ONE = b"\x1aE\xdf\xa3take-one"  # a WebM header's first bytes, then the "speech"
TAKE_TWO = b"\x1aE\xdf\xa3take-two"
SAID_ONE = "so every GPU sends 2(N-1)K/N bytes in total"
SAID_TWO = "first a reduce-scatter, then an all-gather"


@pytest.fixture
def content(tmp_path: Path) -> Path:
    root = tmp_path / "content"
    write_topic(root, CARD)
    return root


@pytest.fixture
def server() -> Iterator[tuple[str, Behaviour]]:
    behaviour = Behaviour(heard={TAKE_ONE: SAID_ONE, TAKE_TWO: SAID_TWO}, model="tiny.en")
    with transcription_server(behaviour) as url:
        yield url, behaviour


def _client(make_client: ClientFactory, content: Path, **settings: Any) -> TestClient:
    return make_client(content_dir=content, clock=FakeClock(START), srs_fuzz=False, **settings)


@pytest.fixture
def client(make_client: ClientFactory, content: Path, server: tuple[str, Behaviour]) -> TestClient:
    return _client(
        make_client, content, transcribe_url=server[0], transcribe_model="tiny.en",
        transcribe_timeout_s=2.0, transcribe_api_key="key-for-the-hosted-endpoint",
    )  # fmt: skip


def _session(client: TestClient, *, followups: bool = False) -> int:
    made = client.post(
        "/api/mock",
        json={"preset": "custom", "questions": 1, "minutes": 10, "followups": followups},
    )
    assert made.status_code == 201, made.text
    mock_id: int = made.json()["id"]
    assert client.post(f"/api/mock/{mock_id}/start", json={"position": 1}).status_code == 200
    return mock_id


def _record(client: TestClient, mock_id: int, take: int, audio: bytes) -> None:
    """One take in two chunks, as the recorder sends them."""
    for seq, piece in enumerate((audio[:6], audio[6:])):
        sent = client.put(
            f"/api/mock/{mock_id}/audio/1/main/{take}/{seq}",
            content=piece,
            headers={"content-type": WEBM},
        )
        assert sent.status_code == 200, sent.text


def _url(mock_id: int, take: int = 1, part: str = "main") -> str:
    return f"/api/mock/{mock_id}/transcripts/1/{part}/{take}"


def _settled(client: TestClient) -> None:
    """Wait for the background transcriptions under way."""
    client.app.state.transcriber.join(10)  # type: ignore[attr-defined]


def _transcripts(client: TestClient, mock_id: int) -> list[dict[str, Any]]:
    body = client.get(f"/api/mock/{mock_id}").json()
    found: list[dict[str, Any]] = body["questions"][0]["transcripts"]
    return found


def test_a_take_is_transcribed_in_the_background_and_feeds_the_suggestions(
    client: TestClient, server: tuple[str, Behaviour]
) -> None:
    _, behaviour = server
    mock_id = _session(client)
    _record(client, mock_id, 1, TAKE_ONE)
    asked = client.post(_url(mock_id))
    assert asked.status_code == 202, asked.text
    assert asked.json()["state"] == "pending" and asked.json()["text"] == ""
    _settled(client)

    got = client.get(_url(mock_id)).json()
    assert (got["state"], got["text"], got["error"], got["edited"]) == (
        "done", SAID_ONE, None, False,
    )  # fmt: skip
    # What was sent: the take's whole audio, its type, the model asked for, JSON wanted, the key.
    (upload,) = behaviour.uploads
    assert upload.audio == TAKE_ONE
    assert (upload.model, upload.response_format) == ("tiny.en", "json")
    assert (upload.filename, upload.content_type) == ("take.webm", "audio/webm")
    assert upload.authorization == "Bearer key-for-the-hosted-endpoint"
    # Asking again changes nothing and sends nothing.
    assert client.post(_url(mock_id)).json()["state"] == "done"
    _settled(client)
    assert len(behaviour.uploads) == 1

    # The session's JSON carries it, by part and take.
    (listed,) = _transcripts(client, mock_id)
    assert (listed["part"], listed["take"], listed["state"]) == ("main", 1, "done")

    # Typed: the two phases; said: the bytes. The grader hears both.
    submitted = client.post(
        f"/api/mock/{mock_id}/submit", json={"position": 1, "part": "main", "text": ONLY_PHASES}
    ).json()
    assert submitted["step"] == "grade"
    assert submitted["questions"][0]["suggested_points"] == [0, 1]
    assert "2(N-1)K/N" in submitted["questions"][0]["suggested_reasons"]["1"]
    page = client.get(f"/mock/{mock_id}").text
    assert 'name="point" value="1" checked' in page
    assert SAID_ONE in page  # beside the recording
    graded = client.post(
        f"/api/mock/{mock_id}/grade", json={"position": 1, "points": [0, 1], "rating": 3}
    ).json()
    assert graded["questions"][0]["suggested_points"] == [0, 1]  # stored as suggested
    report = client.get(f"/mock/{mock_id}/report").text
    assert "What you said" in report and SAID_ONE in report  # under the recording


def test_a_failure_is_stored_with_its_reason_and_a_retry_transcribes(
    client: TestClient, server: tuple[str, Behaviour]
) -> None:
    _, behaviour = server
    behaviour.status = 500
    mock_id = _session(client)
    _record(client, mock_id, 1, TAKE_ONE)
    client.post(_url(mock_id))
    _settled(client)
    failed = client.get(_url(mock_id)).json()
    assert failed["state"] == "failed"
    assert failed["error"] == "the transcription server answered HTTP 500"
    assert "failed" in client.get(f"/mock/{mock_id}").text  # the page says so, with a retry

    behaviour.status = 200
    retried = client.post(_url(mock_id) + "/retry")
    assert retried.status_code == 202 and retried.json()["state"] == "pending"
    _settled(client)
    assert client.get(_url(mock_id)).json()["text"] == SAID_ONE


def test_a_slow_server_times_out(client: TestClient, server: tuple[str, Behaviour]) -> None:
    _, behaviour = server
    behaviour.delay_s = 3.0  # past the 2 s timeout
    mock_id = _session(client)
    _record(client, mock_id, 1, TAKE_ONE)
    assert client.post(_url(mock_id)).status_code == 202  # answered at once, not after 3 s
    _settled(client)
    got = client.get(_url(mock_id)).json()
    assert (got["state"], got["error"]) == ("failed", "no answer within 2 s")


def test_a_reply_too_large_or_not_json_fails(
    client: TestClient, server: tuple[str, Behaviour]
) -> None:
    _, behaviour = server
    behaviour.heard = {TAKE_ONE: "word " * 250_000}  # over the 1 MB read
    mock_id = _session(client)
    _record(client, mock_id, 1, TAKE_ONE)
    client.post(_url(mock_id))
    _settled(client)
    got = client.get(_url(mock_id)).json()
    assert (got["state"], got["error"]) == (
        "failed", "the transcription server's reply was too large",
    )  # fmt: skip
    behaviour.model = "another"  # the model asked for is not there: 404, as vLLM says
    client.post(_url(mock_id) + "/retry")
    _settled(client)
    got = client.get(_url(mock_id)).json()
    assert got["error"] == "the transcription server answered HTTP 404"


def test_a_server_that_is_down_fails_and_the_page_still_works(
    make_client: ClientFactory, content: Path
) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = _client(make_client, content, transcribe_url=f"http://127.0.0.1:{port}/v1")
    mock_id = _session(client)
    _record(client, mock_id, 1, TAKE_ONE)
    client.post(_url(mock_id))
    _settled(client)
    got = client.get(_url(mock_id)).json()
    assert got["state"] == "failed"
    assert got["error"].startswith("the transcription server could not be reached")
    assert client.get(f"/mock/{mock_id}").status_code == 200


def test_off_unless_configured(make_client: ClientFactory, content: Path) -> None:
    client = _client(make_client, content)
    assert client.app.state.transcriber is None  # type: ignore[attr-defined]
    mock_id = _session(client)
    _record(client, mock_id, 1, TAKE_ONE)
    refused = client.post(_url(mock_id))
    assert refused.status_code == 409
    assert "RINGSIDE_TRANSCRIBE_URL" in refused.json()["detail"]
    assert _transcripts(client, mock_id) == []
    page = client.get(f"/mock/{mock_id}").text
    assert "transcri" not in page.lower()
    assert "data-transcribe" not in page


def test_an_edit_is_kept_and_graded(client: TestClient, server: tuple[str, Behaviour]) -> None:
    _, behaviour = server
    mock_id = _session(client)
    _record(client, mock_id, 1, TAKE_ONE)
    _record(client, mock_id, 2, TAKE_TWO)
    behaviour.delay_s = 1.0  # take 1 is still being transcribed when it is edited
    client.post(_url(mock_id, 1))
    edited = client.put(_url(mock_id, 1), json={"text": PHASES_AND_BYTES})
    assert edited.status_code == 200, edited.text
    assert (edited.json()["state"], edited.json()["edited"]) == ("done", True)
    _settled(client)
    # The server's answer came after the edit: the speaker's words stay.
    assert client.get(_url(mock_id, 1)).json()["text"] == PHASES_AND_BYTES
    # A take never sent to the server can be written by hand too.
    assert client.put(_url(mock_id, 2), json={"text": ""}).status_code == 200

    submitted = client.post(
        f"/api/mock/{mock_id}/submit", json={"position": 1, "part": "main", "text": ""}
    ).json()
    assert submitted["questions"][0]["suggested_points"] == [0, 1]
    # Corrected while grading: the suggestions follow the correction.
    client.put(_url(mock_id, 1), json={"text": "no idea"})
    assert client.get(f"/api/mock/{mock_id}").json()["questions"][0]["suggested_points"] == []


def test_bad_input_is_refused_with_422(client: TestClient) -> None:
    mock_id = _session(client)
    _record(client, mock_id, 1, TAKE_ONE)
    too_long = "x" * (transcripts.MAX_TEXT + 1)
    assert client.put(_url(mock_id), json={"text": too_long}).status_code == 422
    assert client.put(_url(mock_id), json={"text": 5}).status_code == 422
    assert client.put(_url(mock_id), json={"text": "a", "extra": 1}).status_code == 422
    assert client.put(_url(mock_id), json={}).status_code == 422
    assert client.post(f"/api/mock/{mock_id}/transcripts/1/main/0").status_code == 422
    assert client.post(f"/api/mock/{mock_id}/transcripts/1/side/1").status_code == 422
    # A take that was never recorded, a question the session does not have: 404.
    assert client.post(_url(mock_id, 3)).status_code == 404
    assert client.put(_url(mock_id, 3), json={"text": "a"}).status_code == 404
    assert client.get(_url(mock_id, 3)).status_code == 404
    assert client.post(f"/api/mock/{mock_id}/transcripts/9/main/1").status_code == 404
    with client.app.state.database.read_session() as session:  # type: ignore[attr-defined]
        assert session.scalars(select(MockTranscript)).all() == []  # nothing was stored


def test_someone_elses_session_is_404(client: TestClient) -> None:
    with client.app.state.database.write_session() as session:  # type: ignore[attr-defined]
        theirs = other_users_mock(session, START)
        theirs_id = theirs.id
    assert client.get(_url(theirs_id)).status_code == 404
    assert client.post(_url(theirs_id)).status_code == 404
    assert client.post(_url(theirs_id) + "/retry").status_code == 404
    assert client.put(_url(theirs_id), json={"text": "mine now"}).status_code == 404


def test_a_restart_picks_up_what_was_queued(
    client: TestClient, server: tuple[str, Behaviour]
) -> None:
    mock_id = _session(client)
    _record(client, mock_id, 1, TAKE_ONE)
    _record(client, mock_id, 2, TAKE_TWO)
    database = client.app.state.database  # type: ignore[attr-defined]
    with database.write_session() as session:
        question_id = session.scalar(select(MockQuestion.id))
        # Take 1 was queued; take 2 was being sent when the process stopped, long ago.
        for take, claimed in ((1, None), (2, START - timedelta(hours=1))):
            session.add(
                MockTranscript(
                    question_id=question_id, part="main", take=take, state="pending", text="",
                    edited=False, claimed_at=claimed, updated_at=START,
                )
            )  # fmt: skip
    settings: Settings = client.app.state.settings  # type: ignore[attr-defined]
    with loopback_client(create_app(settings, clock=FakeClock(START))) as again:
        again.app.state.transcriber.join(10)  # type: ignore[attr-defined]
        texts = [(t["take"], t["state"], t["text"]) for t in _transcripts(again, mock_id)]
    assert texts == [(1, "done", SAID_ONE), (2, "done", SAID_TWO)]


@pytest.mark.parametrize("url", ["ftp://host/v1", "file:///etc/passwd", "http://", "nonsense"])
def test_only_a_web_address_is_accepted(url: str) -> None:
    with pytest.raises(ValidationError, match="http:// or https://"):
        Settings(transcribe_url=url)


def test_the_endpoint_is_found_from_a_base_url() -> None:
    from app.mock.transcribe import Config

    for given in ("http://h:8080", "http://h:8080/", "http://h:8080/v1"):
        config = Config.of(Settings(transcribe_url=given))
        assert config is not None and config.url == "http://h:8080/v1/audio/transcriptions"
        assert config.model == "whisper-1"
    exact = Settings(transcribe_url="https://h/x/v1/audio/transcriptions", transcribe_model="m")
    assert Config.of(exact) == Config("https://h/x/v1/audio/transcriptions", "m", 120.0, None)
    assert Config.of(Settings()) is None


def test_what_was_said_goes_out_in_the_export_and_comes_back(
    client: TestClient, make_client: ClientFactory, content: Path
) -> None:
    mock_id = _session(client)
    _record(client, mock_id, 1, TAKE_ONE)
    _record(client, mock_id, 2, TAKE_TWO)
    client.put(_url(mock_id, 1), json={"text": SAID_ONE})  # take 2 was never transcribed
    document = client.get("/api/export").json()
    one, two = document["mock_sessions"][0]["questions"][0]["recordings"]
    assert one["transcript"] == SAID_ONE and two.get("transcript") is None
    fresh = _client(make_client, content)  # a server that transcribes nothing still keeps it
    assert fresh.post("/api/import", json=document).status_code == 200
    new_id = fresh.get("/api/mock").json()[0]["id"]
    (kept,) = _transcripts(fresh, new_id)
    assert (kept["take"], kept["state"], kept["text"]) == (1, "done", SAID_ONE)
    assert fresh.get("/api/export").json() == document
    too_long = json.loads(json.dumps(document))
    too_long["mock_sessions"][0]["created_at"] = "2026-04-02T09:00:00Z"
    too_long["mock_sessions"][0]["questions"][0]["recordings"][0]["transcript"] = "x" * (
        transcripts.MAX_TEXT + 1
    )
    assert fresh.post("/api/import", json=too_long).status_code == 422


def test_a_signed_in_browser_writes_only_with_its_csrf_token(
    make_client: ClientFactory, content: Path, server: tuple[str, Behaviour]
) -> None:
    client = _client(
        make_client, content, auth_mode="accounts", secret_key=KEY, transcribe_url=server[0]
    )
    register(client, "ada")
    token = {"X-CSRF-Token": csrf_of(client)}
    made = client.post(
        "/api/mock", json={"preset": "custom", "questions": 1, "minutes": 10}, headers=token
    )
    mock_id = made.json()["id"]
    client.post(f"/api/mock/{mock_id}/start", json={"position": 1}, headers=token)
    sent = client.put(
        f"/api/mock/{mock_id}/audio/1/main/1/0",
        content=TAKE_ONE,
        headers={"content-type": WEBM, **token},
    )
    assert sent.status_code == 200, sent.text
    assert client.put(_url(mock_id), json={"text": "forged"}).status_code == 403
    assert client.post(_url(mock_id)).status_code == 403
    assert client.post(_url(mock_id) + "/retry").status_code == 403
    assert client.get(_url(mock_id)).status_code == 404  # nothing was stored
    assert client.put(_url(mock_id), json={"text": "mine"}, headers=token).status_code == 200


def test_each_pending_take_is_claimed_once_until_its_claim_is_stale(
    make_client: ClientFactory, content: Path
) -> None:
    client = _client(make_client, content)  # no worker: the test claims by hand
    mock_id = _session(client)
    _record(client, mock_id, 1, TAKE_ONE)
    _record(client, mock_id, 2, TAKE_TWO)
    database = client.app.state.database  # type: ignore[attr-defined]
    with database.write_session() as session:
        question_id = session.scalar(select(MockQuestion.id))
        for take in (1, 2):
            session.add(
                MockTranscript(
                    question_id=question_id, part="main", take=take, state="pending", text="",
                    edited=False, updated_at=START,
                )
            )  # fmt: skip
    claimed = []
    for _ in range(3):  # as two processes would, one after the other
        with database.write_session() as session:
            claimed.append(transcripts.claim(session, START, timeout_s=60))
    assert claimed[0] != claimed[1] and None not in claimed[:2] and claimed[2] is None
    # A process that stopped halfway: its claim is taken again after the timeout and a margin.
    later = START + timedelta(seconds=60) + transcripts.CLAIM_MARGIN
    with database.write_session() as session:
        assert transcripts.claim(session, later, timeout_s=60) is None
    with database.write_session() as session:
        again = transcripts.claim(session, later + timedelta(seconds=1), timeout_s=60)
    assert again == claimed[0]

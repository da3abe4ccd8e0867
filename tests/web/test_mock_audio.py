"""Spoken mock answers: chunked uploads, owner-only playback, caps, deletion, export/import.

Runs on SQLite, and on PostgreSQL when RINGSIDE_TEST_DATABASE_URL is set.
"""

import base64
import json
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.mock import audio
from app.models import MockAudioChunk, MockQuestion
from tests.conftest import ClientFactory, FakeClock
from tests.web.others import other_users_mock

START = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
WEBM = "audio/webm;codecs=opus"
HEADER = b"\x1aE\xdf\xa3"  # an EBML (WebM) header's first bytes, then the recorder's data


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def client(make_client: ClientFactory, clock: FakeClock) -> TestClient:
    return make_client(clock=clock, srs_fuzz=False)


def started(client: TestClient, *, minutes: int = 2, followups: bool = True) -> int:
    made = client.post(
        "/api/mock",
        json={"preset": "custom", "questions": 1, "minutes": minutes, "followups": followups},
    )
    assert made.status_code == 201, made.text
    mock_id: int = made.json()["id"]
    assert client.post(f"/api/mock/{mock_id}/start", json={"position": 1}).status_code == 200
    return mock_id


def put(
    client: TestClient, mock_id: int, seq: int, data: bytes, *, part: str = "main",
    take: int = 1, kind: str = WEBM,
) -> Any:  # fmt: skip
    return client.put(
        f"/api/mock/{mock_id}/audio/1/{part}/{take}/{seq}",
        content=data,
        headers={"content-type": kind},
    )


def chunk_rows(client: TestClient) -> int:
    with client.app.state.database.read_session() as session:  # type: ignore[attr-defined]
        return int(session.scalar(select(func.count()).select_from(MockAudioChunk)) or 0)


def test_chunks_join_in_order_and_a_resent_chunk_changes_nothing(
    client: TestClient, clock: FakeClock
) -> None:
    mock_id = started(client)
    first = put(client, mock_id, 0, HEADER + b"one")
    assert first.status_code == 200, first.text
    assert first.json() == {
        "stored": True, "bytes_total": 7, "chunks": 1, "max_bytes": audio.MAX_BYTES,
    }  # fmt: skip
    clock.advance(seconds=3)
    # Arriving out of order (a retry overtaken by the next chunk) still joins by number.
    assert put(client, mock_id, 2, b"three").status_code == 200
    assert put(client, mock_id, 1, b"two").status_code == 200
    # A double send of chunk 1, even with other bytes, is a resend: nothing changes.
    again = put(client, mock_id, 1, b"something else")
    assert again.status_code == 200
    assert again.json()["stored"] is False
    assert again.json()["bytes_total"] == 15
    assert chunk_rows(client) == 3
    played = client.get(f"/api/mock/{mock_id}/audio/1/main/1")
    assert played.status_code == 200
    assert played.headers["content-type"] == WEBM
    assert played.content == HEADER + b"onetwothree"
    # The answering page offers the next take; the report plays the recording.
    answering = client.get(f"/mock/{mock_id}").text
    assert 'data-take="2"' in answering and "1 recording saved for this answer." in answering
    assert f'src="/api/mock/{mock_id}/audio/1/main/1"' in answering
    client.post(f"/api/mock/{mock_id}/submit", json={"position": 1, "part": "main"})
    assert put(client, mock_id, 0, HEADER + b"push", part="followup").status_code == 200
    client.post(f"/api/mock/{mock_id}/submit", json={"position": 1, "part": "followup"})
    client.post(f"/api/mock/{mock_id}/grade", json={"position": 1, "points": [0], "rating": 3})
    report = client.get(f"/mock/{mock_id}/report").text
    assert f'src="/api/mock/{mock_id}/audio/1/main/1"' in report
    assert f'src="/api/mock/{mock_id}/audio/1/followup/1"' in report
    assert 'class="rubric-review"' in report and 'class="made"' in report


def test_recordings_are_served_to_their_owner_only(client: TestClient) -> None:
    database = client.app.state.database  # type: ignore[attr-defined]
    with database.write_session() as session:
        theirs = other_users_mock(session, START)
        question = MockQuestion(
            session_id=theirs.id, position=1, card_id="alpha-ring-bytes", answer="",
            followup_answer="", started_at=START, deadline=datetime(2026, 4, 1, 9, 5, tzinfo=UTC),
        )  # fmt: skip
        session.add(question)
        session.flush()
        session.add(
            MockAudioChunk(
                question_id=question.id, part="main", take=1, seq=0, mime="audio/webm",
                data=HEADER + b"secret", received_at=START,
            )
        )  # fmt: skip
        their_id = theirs.id
    assert client.get(f"/api/mock/{their_id}/audio/1/main/1").status_code == 404
    assert put(client, their_id, 1, b"mine now").status_code == 404
    assert client.delete(f"/api/mock/{their_id}").status_code == 404
    assert chunk_rows(client) == 1
    # And for the owner, a take that does not exist is a 404 too.
    mine = started(client)
    assert client.get(f"/api/mock/{mine}/audio/1/main/1").status_code == 404


def test_caps_on_size_duration_and_type_keep_what_was_saved(
    client: TestClient, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audio, "MAX_BYTES", 10)
    mock_id = started(client, minutes=1)
    assert put(client, mock_id, 0, HEADER + b"abc").status_code == 200
    full = put(client, mock_id, 1, b"defg")
    assert full.status_code == 413
    assert full.json()["detail"] == (
        "an answer may hold at most 10 bytes of audio; what was recorded so far is kept"
    )
    monkeypatch.setattr(audio, "MAX_BYTES", 20 * 1024 * 1024)
    too_big = put(client, mock_id, 1, b"x" * (audio.MAX_CHUNK_BYTES + 1))
    assert too_big.status_code == 413
    not_audio = put(client, mock_id, 1, b"<html>", kind="text/html")
    assert not_audio.status_code == 415
    # The duration cap is the answer's own clock: its minute plus the grace, then 422.
    clock.advance(minutes=1, seconds=10)
    assert put(client, mock_id, 1, b"late but in grace").status_code == 200
    clock.advance(seconds=10)
    late = put(client, mock_id, 2, b"too late")
    assert late.status_code == 422
    assert "time is up" in late.json()["detail"][0]["msg"]
    # A part that has not started takes nothing.
    fresh = started(client)
    early = put(client, fresh, 0, HEADER, part="followup")
    assert early.status_code == 422
    assert client.get(f"/api/mock/{mock_id}/audio/1/main/1").content == (
        HEADER + b"abclate but in grace"
    )


def test_a_submitted_answer_takes_no_more_audio_after_the_grace(
    client: TestClient, clock: FakeClock
) -> None:
    mock_id = started(client, minutes=10, followups=False)
    assert put(client, mock_id, 0, HEADER).status_code == 200
    client.post(f"/api/mock/{mock_id}/submit", json={"position": 1, "part": "main"})
    clock.advance(seconds=5)  # the last chunk, sent as the recorder stopped
    assert put(client, mock_id, 1, b"tail").status_code == 200
    clock.advance(seconds=20)
    assert put(client, mock_id, 2, b"after").status_code == 422


def test_deleting_a_session_deletes_its_audio_abandoning_keeps_it(client: TestClient) -> None:
    mock_id = started(client)
    put(client, mock_id, 0, HEADER + b"kept")
    assert client.post(f"/api/mock/{mock_id}/abandon").status_code == 200
    assert client.get(f"/api/mock/{mock_id}/audio/1/main/1").status_code == 200
    assert f"/api/mock/{mock_id}/audio/1/main/1" in client.get(f"/mock/{mock_id}/report").text
    assert client.delete(f"/api/mock/{mock_id}").status_code == 204
    assert chunk_rows(client) == 0
    assert client.get(f"/api/mock/{mock_id}").status_code == 404
    assert client.delete(f"/api/mock/{mock_id}").status_code == 404
    # The report page's button does the same.
    other = started(client)
    put(client, other, 0, HEADER)
    csrf = client.get(f"/mock/{other}").text.split('name="csrf-token" content="')[1].split('"')[0]
    page = client.post(f"/mock/{other}/delete", data={"csrf_token": csrf}, follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"] == "/mock/history"
    assert chunk_rows(client) == 0


def test_audio_goes_out_in_the_export_and_comes_back_once(
    make_client: ClientFactory, client: TestClient, clock: FakeClock
) -> None:
    mock_id = started(client)
    put(client, mock_id, 0, HEADER + b"first ")
    put(client, mock_id, 1, b"take")
    put(client, mock_id, 0, HEADER + b"second take", take=2)
    document = client.get("/api/export").json()
    recordings = document["mock_sessions"][0]["questions"][0]["recordings"]
    assert recordings == [
        {
            "part": "main",
            "take": 1,
            "mime": WEBM,
            "data": base64.b64encode(HEADER + b"first take").decode(),
            "transcript": None,
        },
        {
            "part": "main",
            "take": 2,
            "mime": WEBM,
            "data": base64.b64encode(HEADER + b"second take").decode(),
            "transcript": None,
        },
    ]  # fmt: skip  (never transcribed: tests/web/test_mock_transcripts.py has one that was)
    fresh = make_client(clock=clock, srs_fuzz=False)
    assert fresh.post("/api/import", json=document).status_code == 200
    again = fresh.post("/api/import", json=document)
    assert again.json()["added"]["mock_sessions"] == 0
    assert chunk_rows(fresh) == 2  # imported once, as one chunk per take
    new_id = fresh.get("/api/mock").json()[0]["id"]
    assert fresh.get(f"/api/mock/{new_id}/audio/1/main/2").content == HEADER + b"second take"
    assert fresh.get("/api/export").json() == document
    # A recording that is not base64, or not audio, refuses the file before anything is written.
    for field, value, message in (
        ("data", "not base64!", "not base64"),
        ("mime", "text/html", "not an audio type"),
    ):
        bad = json.loads(json.dumps(document))
        bad["mock_sessions"][0]["created_at"] = "2026-04-02T09:00:00Z"
        bad["mock_sessions"][0]["questions"][0]["recordings"][0][field] = value
        refused = fresh.post("/api/import", json=bad)
        assert refused.status_code == 422, refused.text
        assert message in refused.text
    assert chunk_rows(fresh) == 2


def test_playback_honours_one_byte_range(client: TestClient) -> None:
    mock_id = started(client)
    put(client, mock_id, 0, HEADER + b"0123456789")
    url = f"/api/mock/{mock_id}/audio/1/main/1"
    whole = client.get(url)
    assert whole.status_code == 200 and whole.headers["accept-ranges"] == "bytes"
    first = client.get(url, headers={"range": "bytes=0-1"})
    assert first.status_code == 206 and first.content == HEADER[:2]
    assert first.headers["content-range"] == "bytes 0-1/14"
    tail = client.get(url, headers={"range": "bytes=-3"})
    assert tail.status_code == 206 and tail.content == b"789"
    assert client.get(url, headers={"range": "bytes=10-"}).content == b"6789"
    assert client.get(url, headers={"range": "bytes=99-"}).status_code == 416
    # Several ranges, another unit or nonsense: the whole recording, as if none were asked.
    for header in ("bytes=0-1,4-5", "items=0-1", "bytes=1x-3", "bytes=-"):
        assert client.get(url, headers={"range": header}).content == HEADER + b"0123456789"


CRAFTED = (
    "audio/webm;codecs=x,text/html",
    "audio/webm;codecs=x,text/javascript",
    'audio/webm;codecs="opus",text/html',
    "audio/webm;codecs=opus;charset=utf-8",
    "audio/webm;foo=bar",
    "audio/webm;codecs=a b",
    "text/html;x=audio/webm",
)


@pytest.mark.parametrize("kind", CRAFTED)
def test_a_recording_typed_as_anything_but_audio_is_refused(client: TestClient, kind: str) -> None:
    mock_id = started(client)
    assert put(client, mock_id, 0, b"<script>alert(1)</script>", kind=kind).status_code == 415
    assert chunk_rows(client) == 0
    # The same type in an imported file refuses the file, with nothing written.
    put(client, mock_id, 0, HEADER + b"ok")
    document = client.get("/api/export").json()
    document["mock_sessions"][0]["created_at"] = "2026-04-02T09:00:00Z"
    document["mock_sessions"][0]["questions"][0]["recordings"][0]["mime"] = kind
    refused = client.post("/api/import", json=document)
    assert refused.status_code == 422 and "not an audio type" in refused.text
    assert chunk_rows(client) == 1


def test_a_recording_is_served_as_sandboxed_media(client: TestClient) -> None:
    mock_id = started(client)
    assert (
        put(client, mock_id, 0, HEADER + b"one", kind="audio/ogg; codecs=opus,vorbis").status_code
        == 200
    )
    for headers in ({}, {"range": "bytes=0-1"}):
        served = client.get(f"/api/mock/{mock_id}/audio/1/main/1", headers=headers)
        assert served.status_code in (200, 206)
        assert served.headers["content-type"] == 'audio/ogg;codecs="opus,vorbis"'
        assert served.headers["content-security-policy"] == "sandbox; default-src 'none'"
        assert served.headers["cross-origin-resource-policy"] == "same-origin"
        assert served.headers["x-content-type-options"] == "nosniff"
    # A row stored before the strict grammar is served as bytes, not as the type it claims.
    with client.app.state.database.write_session() as session:  # type: ignore[attr-defined]
        session.execute(
            MockAudioChunk.__table__.update().values(mime="audio/webm;codecs=x,text/html")
        )
    old = client.get(f"/api/mock/{mock_id}/audio/1/main/1")
    assert old.headers["content-type"] == "application/octet-stream"
    # Pages keep the site's own policy.
    assert "default-src 'self'" in client.get("/mock").headers["content-security-policy"]

"""Both screens of a mock interview live (issue 28): the candidate's and the interviewer's
event streams, through a real server on SQLite, where news is delivered in the process.

tests/web/test_live_postgres.py crosses two server processes on one PostgreSQL.
"""

import json
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from app.config import Settings
from app.main import create_app
from app.web import streams
from tests.conftest import FIXTURE_CONTENT, FakeClock
from tests.servers import serving
from tests.web.sse import Listener

pytestmark = pytest.mark.slow

START = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def server(tmp_path: Path, clock: FakeClock) -> Iterator[str]:
    settings = Settings(database_url=f"sqlite:///{tmp_path}/live.db", content_dir=FIXTURE_CONTENT)
    with serving(create_app(settings, clock=clock)) as url:
        yield url


def started_mock(base: str) -> tuple[int, str]:
    """A session with question 1 running and an interviewer's link: (its id, the token)."""
    made = httpx.post(f"{base}/api/mock", json={"preset": "custom", "questions": 2, "minutes": 10})
    assert made.status_code == 201, made.text
    mock_id = made.json()["id"]
    assert httpx.post(f"{base}/api/mock/{mock_id}/start", json={"position": 1}).is_success
    link = httpx.post(f"{base}/api/mock/{mock_id}/pair")
    assert link.status_code == 201, link.text
    return mock_id, link.json()["invite_url"].removeprefix("/pair/")


def version_of(base: str, mock_id: int) -> int:
    """The version the candidate's page would be rendered with."""
    page = httpx.get(f"{base}/mock/{mock_id}", headers={"Accept": "text/html"}).text
    found = re.search(r'data-version="(\d+)"', page)
    assert found, "the session page carries its version"
    return int(found.group(1))


def test_each_side_hears_the_others_change(server: str) -> None:
    mock_id, token = started_mock(server)
    since = version_of(server, mock_id)
    interviewer = Listener(f"{server}/api/pair/{token}/events?since={since}")
    candidate = Listener(f"{server}/api/mock/{mock_id}/events?since={since}")
    try:
        assert interviewer.status == candidate.status == 200
        assert interviewer.raw[0] == f"retry: {streams.RETRY_MS}"
        # The candidate's notes autosave: the interviewer hears it, with the new version.
        saved = httpx.put(
            f"{server}/api/mock/{mock_id}/answer", json={"part": "main", "text": "ring: RS + AG"}
        )
        assert saved.is_success
        heard = interviewer.wait_for(lambda e: e.data.get("kind") == "notes")
        assert heard.name == "change" and heard.id == str(heard.data["version"])
        assert heard.data["version"] == since + 1
        view = httpx.get(f"{server}/api/pair/{token}").json()
        assert view["current"]["answer"] == "ring: RS + AG"  # what the page fetches on hearing
        # The interviewer marks a point and chooses a follow-up: the candidate hears both.
        marked = httpx.post(
            f"{server}/api/pair/{token}/points", json={"position": 1, "points": [0]}
        )
        assert marked.is_success
        candidate.wait_for(lambda e: e.data == {"version": since + 2, "kind": "interviewer"})
        chosen = httpx.post(f"{server}/api/pair/{token}/followup", json={"position": 1, "index": 0})
        assert chosen.is_success
        candidate.wait_for(lambda e: e.data == {"version": since + 3, "kind": "interviewer"})
        # What the candidate may then fetch: that the interviewer is taking notes, not which.
        question = httpx.get(f"{server}/api/mock/{mock_id}").json()["questions"][0]
        assert question["interviewer"] is None
        assert question["interviewer_activity"] == {"noting": True, "followup_chosen": True}
    finally:
        interviewer.close()
        candidate.close()


def test_the_candidates_stream_carries_no_content(server: str) -> None:
    mock_id, token = started_mock(server)
    candidate = Listener(f"{server}/api/mock/{mock_id}/events?since=0")
    try:
        httpx.post(f"{server}/api/pair/{token}/points", json={"position": 1, "points": [0, 1]})
        httpx.post(f"{server}/api/pair/{token}/rating", json={"position": 1, "rating": 4})
        candidate.wait_for(lambda e: e.data.get("kind") == "interviewer", after=1)
        rubric = httpx.get(f"{server}/api/pair/{token}").json()["current"]["rubric"]
        assert rubric and all(e.data.keys() == {"version", "kind"} for e in candidate.events)
        said = "\n".join(candidate.raw)
        for point in rubric:
            assert re.sub("<[^>]+>", "", point["point_html"]) not in said
    finally:
        candidate.close()


def test_a_reconnect_catches_up_from_its_last_event_id(server: str) -> None:
    mock_id, token = started_mock(server)
    now = version_of(server, mock_id)
    httpx.post(f"{server}/api/pair/{token}/points", json={"position": 1, "points": [1]})
    # A page that saw `now` and missed the mark hears of it at once, as a browser's
    # EventSource sends the last id it saw when it reconnects.
    behind = Listener(f"{server}/api/mock/{mock_id}/events", headers={"Last-Event-ID": str(now)})
    current = Listener(f"{server}/api/mock/{mock_id}/events?since={now + 1}")
    try:
        caught = behind.wait_for(lambda e: e.name == "change")
        assert caught.data["version"] == now + 1 and caught.id == str(now + 1)
        time.sleep(0.3)
        assert current.events == []  # up to date: nothing to say until something changes
    finally:
        behind.close()
        current.close()


def test_revoking_the_link_ends_the_interviewers_stream(server: str) -> None:
    mock_id, token = started_mock(server)
    interviewer = Listener(f"{server}/api/pair/{token}/events")
    interviewer.wait_for(lambda e: e.name == "change")  # no since: told the version at once
    assert httpx.delete(f"{server}/api/mock/{mock_id}/pair").status_code == 204
    interviewer.wait_for(lambda e: e.name == "gone")
    interviewer.wait_ended()
    again = Listener(f"{server}/api/pair/{token}/events")
    assert again.status == 404 and "Ask the candidate for a new link" in again.body


def test_an_expired_link_ends_the_stream_when_it_expires(
    server: str, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(streams, "HEARTBEAT_S", 0.2)  # a fake clock: look at it often
    _mock_id, token = started_mock(server)
    interviewer = Listener(f"{server}/api/pair/{token}/events?since=0")
    try:
        time.sleep(0.5)
        assert not interviewer.ended and ": heartbeat" in interviewer.raw  # still open
        clock.advance(hours=24)
        interviewer.wait_for(lambda e: e.name == "gone")
        interviewer.wait_ended()
    finally:
        interviewer.close()


def test_deleting_the_session_ends_both_streams(server: str) -> None:
    mock_id, token = started_mock(server)
    interviewer = Listener(f"{server}/api/pair/{token}/events?since=0")
    candidate = Listener(f"{server}/api/mock/{mock_id}/events?since=0")
    assert httpx.delete(f"{server}/api/mock/{mock_id}").status_code == 204
    for stream in (interviewer, candidate):
        stream.wait_for(lambda e: e.name == "gone")
        stream.wait_ended()


def test_streams_are_capped_per_session_and_refused_to_others(server: str) -> None:
    mock_id, token = started_mock(server)
    opened = [
        Listener(f"{server}/api/mock/{mock_id}/events?since=0")
        for _ in range(streams.STREAMS_PER_SESSION)
    ]
    try:
        assert {stream.status for stream in opened} == {200}
        refused = Listener(f"{server}/api/pair/{token}/events")
        assert refused.status == 429 and "live connections" in json.loads(refused.body)["detail"]
        opened.pop().close()  # one hangs up: its place is free again
        deadline = time.monotonic() + 15
        while (again := Listener(f"{server}/api/pair/{token}/events")).status != 200:
            assert time.monotonic() < deadline, "a freed place is taken again"
            time.sleep(0.05)
        again.close()
        # Nobody else's session, and no link that opens nothing.
        assert Listener(f"{server}/api/mock/{mock_id + 1}/events").status == 404
        assert Listener(f"{server}/api/pair/not-a-token/events").status == 404
    finally:
        for stream in opened:
            stream.close()


def test_a_server_with_open_streams_stops_promptly(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path}/stop.db", content_dir=FIXTURE_CONTENT)
    with serving(create_app(settings)) as base:
        mock_id, token = started_mock(base)
        candidate = Listener(f"{base}/api/mock/{mock_id}/events?since=0")
        interviewer = Listener(f"{base}/api/pair/{token}/events?since=0")
        began = time.monotonic()
    stopped = time.monotonic() - began
    # uvicorn waits for responses in progress: without the streams ended it would wait for ever
    # (the helper gives up after 20 s).
    assert stopped < 10, stopped
    candidate.wait_ended()
    interviewer.wait_ended()


def test_the_candidates_stream_is_theirs_and_ends_when_they_sign_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(streams, "HEARTBEAT_S", 0.2)  # signing out is no session news: look often
    settings = Settings(
        database_url=f"sqlite:///{tmp_path}/accounts.db",
        content_dir=FIXTURE_CONTENT,
        auth_mode="accounts",
        secret_key="k3y-for-tests-" + "abcdefghij" * 5,
    )
    with (
        serving(create_app(settings)) as base,
        httpx.Client(base_url=base) as ada,
        httpx.Client(base_url=base) as bea,
    ):
        cookies = {}
        for name, who in (("ada", ada), ("bea", bea)):
            registered = who.post("/register", data={"username": name, "password": "x" * 12})
            assert registered.status_code == 303, registered.text
            cookies[name] = "; ".join(f"{k}={v}" for k, v in who.cookies.items())
        found = re.search(r'name="csrf-token" content="([^"]+)"', ada.get("/settings").text)
        assert found
        csrf = found.group(1)
        made = ada.post("/api/mock", json={"preset": "lightning"}, headers={"X-CSRF-Token": csrf})
        assert made.status_code == 201, made.text
        stream = f"{base}/api/mock/{made.json()['id']}/events"  # no since: told the version
        assert Listener(stream).status == 401  # nobody
        assert Listener(stream, headers={"Cookie": cookies["bea"]}).status == 404  # not hers
        own = Listener(stream, headers={"Cookie": cookies["ada"]})
        try:
            assert own.status == 200, own.body
            own.wait_for(lambda e: e.name == "change")
            assert ada.post("/logout", data={"csrf_token": csrf}).status_code == 303
            own.wait_for(lambda e: e.name == "gone")
            own.wait_ended()
        finally:
            own.close()

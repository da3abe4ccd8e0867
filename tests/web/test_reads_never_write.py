"""Reads never write: every GET route of the app, crawled over an account with history,
sends no INSERT, UPDATE or DELETE to the database.

The routes are read from the app, so a GET route added later is crawled too. The account has
what makes reads tempting to write: a mock session past its deadline (whose answer counts as
submitted), a plan to a loop date, reviews, drill attempts and a recording.
"""

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from tests.conftest import ClientFactory, FakeClock
from tests.web.routes import api_routes

START = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE)\b", re.I)
LABS = ("memory", "collectives", "pipeline", "checkpoint", "moe", "layout")


@pytest.fixture
def lived_in(make_client: ClientFactory) -> tuple[TestClient, FakeClock, int]:
    """A local profile with reviews, a plan, attempts, a recording and an overdue mock."""
    clock = FakeClock(START)
    client = make_client(clock=clock, srs_fuzz=False)
    for key, card in enumerate(("alpha-busbw", "alpha-ring-bytes", "beta-derive")):
        graded = client.post(
            f"/api/review/{card}", json={"rating": 3, "idempotency_key": f"k{key}"}
        )
        assert graded.status_code == 200, graded.text
    client.post("/api/cards/alpha-busbw/attempts", json={"answer": "175 GB/s"})
    assert (
        client.put("/api/plan", json={"loop_date": "2026-04-20", "daily_minutes": 45}).status_code
        == 200
    )
    made = client.post("/api/mock", json={"preset": "custom", "questions": 2, "minutes": 1})
    mock_id = made.json()["id"]
    assert client.post(f"/api/mock/{mock_id}/start", json={"position": 1}).status_code == 200
    client.put(f"/api/mock/{mock_id}/audio/1/main/1/0", content=b"\x1aE\xdf\xa3 voice",
               headers={"content-type": "audio/webm;codecs=opus"})  # fmt: skip
    saved = client.put(f"/api/mock/{mock_id}/answer", json={"part": "main", "text": "typed"})
    assert saved.status_code == 200, saved.text
    # A friend interviews by link: the interviewer's view is crawled too, and has marks.
    invite = client.post(f"/api/mock/{mock_id}/pair")
    assert invite.status_code == 201, invite.text
    token = invite.json()["invite_url"].removeprefix("/pair/")
    marked = client.post(f"/api/pair/{token}/points", json={"position": 1, "points": [0]})
    assert marked.status_code == 200, marked.text
    client.app.state.pair_token = token  # type: ignore[attr-defined]
    clock.advance(minutes=5)  # the first answer is past its deadline and grace: not yet stored
    return client, clock, mock_id


def concrete(path: str, mock_id: int, token: str) -> Iterator[str]:
    values = {"mock_id": str(mock_id), "position": "1", "part": "main", "take": "1",
              "card_id": "alpha-busbw", "slug": "alpha", "token": token}  # fmt: skip
    for name, value in values.items():
        path = path.replace("{" + name + "}", value)
    if "{name}" in path:
        yield from (path.replace("{name}", lab) for lab in LABS)
    else:
        yield path


def test_no_get_route_writes(lived_in: tuple[TestClient, FakeClock, int]) -> None:
    client, _clock, mock_id = lived_in
    engine = client.app.state.database.engine  # type: ignore[attr-defined]
    writes: list[str] = []

    def watch(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if WRITE.match(statement):
            writes.append(statement.split("\n")[0][:120])

    token = client.app.state.pair_token  # type: ignore[attr-defined]
    gets = sorted(
        {p for r in api_routes(client.app.routes) if "GET" in r.methods  # type: ignore[attr-defined]
         # An event stream never ends: its reads are walked in tests/web/test_live.py.
         and not r.path.endswith("/events")
         for p in concrete(r.path, mock_id, token)}
    )  # fmt: skip
    assert f"/mock/{mock_id}" in gets and "/api/plan" in gets and len(gets) > 40
    assert f"/pair/{token}" in gets and f"/api/pair/{token}" in gets
    client.get("/healthz")  # start-up work (the local profile, housekeeping) is done by now
    event.listen(engine, "before_cursor_execute", watch)
    try:
        for path in gets:
            for accept in ("text/html", "application/json"):
                response = client.get(path, headers={"Accept": accept}, follow_redirects=False)
                assert response.status_code < 500, (path, response.status_code)
                if "pair" in path:  # the link still opens its view (an overdue answer in it)
                    assert response.status_code == 200, (path, response.text)
                assert writes == [], (path, accept, writes)
    finally:
        event.remove(engine, "before_cursor_execute", watch)
    # The overdue answer is seen as submitted by every read...
    state = client.get(f"/api/mock/{mock_id}").json()
    assert state["questions"][0]["phase"] in ("followup", "grading")
    assert state["questions"][0]["answer"] == "typed"
    # ...and stored by the next write (a script's, without the pages' cookie and its CSRF token).
    client.cookies.clear()
    assert client.post(f"/api/mock/{mock_id}/abandon").status_code == 200
    stored = client.get(f"/api/mock/{mock_id}").json()["questions"][0]
    assert stored["answer"] == "typed" and stored["phase"] in ("followup", "grading")
    database = client.app.state.database  # type: ignore[attr-defined]
    with database.read_session() as session:
        from app.models import MockQuestion

        row = session.query(MockQuestion).filter_by(session_id=mock_id, position=1).one()
        assert row.submitted_at is not None  # stored at the deadline by the write

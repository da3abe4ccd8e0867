"""Export and import over the API: the round trip, merging, and refusing bad files whole."""

import json
import re

import pytest
from fastapi.testclient import TestClient

from tests.conftest import ClientFactory, FakeClock
from tests.datasafety.helpers import START, export_json, export_text, grade, populate


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def client(make_client: ClientFactory, clock: FakeClock) -> TestClient:
    return make_client(clock=clock, srs_fuzz=False)


def test_export_is_a_download_of_everything_and_no_secret(
    client: TestClient, clock: FakeClock
) -> None:
    populate(client, clock)
    response = client.get("/api/export")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.headers["content-disposition"] == (
        'attachment; filename="ringside-local-2026-04-02.json"'
    )
    body = response.json()
    assert (body["app"], body["format"]) == ("ringside", 1)
    assert body["user"] == {"username": "local", "display_name": "Local profile"}
    assert body["review_settings"]["new_per_day"] == 7
    assert [s["card_id"] for s in body["card_states"]] == ["alpha-ring-bytes", "beta-derive"]
    reviews = [(log["card_id"], log["rating"], log["source"]) for log in body["review_logs"]]
    assert reviews == [
        ("alpha-ring-bytes", 3, "review"),
        ("alpha-ring-bytes", 3, "review"),
        ("beta-derive", 1, "review"),
        ("beta-derive", 4, "review"),
        ("alpha-ring-bytes", 3, "mock"),
    ]
    assert body["review_logs"][0]["state_before"] is None
    assert body["review_logs"][1]["state_before"] == body["review_logs"][0]["state_after"]
    assert [a["answer"] for a in body["attempts"]] == ["3 GB"]
    assert [m["status"] for m in body["mock_sessions"]] == ["finished", "active"]
    assert body["mock_sessions"][0]["questions"][0]["confirmed_points"] == [0]
    assert body["mock_sessions"][1]["questions"][0]["answer"] == "draft"
    for secret in ("password", "token", "csrf", "session_id", "hash"):
        assert secret not in response.text


def test_export_import_export_is_identical(
    make_client: ClientFactory, client: TestClient, clock: FakeClock
) -> None:
    populate(client, clock)
    first = export_text(client)
    fresh = make_client(clock=clock, srs_fuzz=False)
    imported = fresh.post(
        "/api/import", content=first, headers={"content-type": "application/json"}
    )
    assert imported.status_code == 200, imported.text
    assert imported.json()["message"] == (
        "Imported review settings, 2 card states, 5 reviews, 1 drill attempt and 2 mock interviews."
    )
    assert export_text(fresh) == first
    # What was imported works: the restored profile undoes its latest grade like the original.
    assert fresh.post("/api/review/undo").json() == client.post("/api/review/undo").json()


def test_importing_the_same_file_twice_adds_nothing(client: TestClient, clock: FakeClock) -> None:
    populate(client, clock)
    before = export_text(client)
    again = client.post("/api/import", json=json.loads(before))
    assert again.status_code == 200
    assert again.json()["added"] == dict.fromkeys(again.json()["added"], 0)
    assert again.json()["message"] == "Nothing new to import; 11 already here, kept as they were."
    assert export_text(client) == before


def test_import_merges_another_device_in_time_order(
    make_client: ClientFactory, client: TestClient, clock: FakeClock
) -> None:
    populate(client, clock)  # the "laptop": reviews from START onwards
    laptop = export_json(client)
    clock.now = START.replace(hour=8)  # the "desktop" started an hour earlier
    desktop = make_client(clock=clock, srs_fuzz=False)
    desktop.put("/api/settings/review", json={"new_per_day": 3})
    grade(desktop, "alpha-busbw", 3, "d1")
    clock.advance(days=3)
    grade(desktop, "beta-derive", 3, "d2")  # later than the laptop's reviews of this card

    result = desktop.post("/api/import", json=laptop)
    assert result.status_code == 200, result.text
    merged = export_json(desktop)
    assert merged["review_settings"]["new_per_day"] == 3  # saved settings are kept
    history = [(log["card_id"], log["rating"]) for log in merged["review_logs"]]
    assert history == [  # one history, in the order it happened
        ("alpha-busbw", 3),
        ("alpha-ring-bytes", 3),
        ("alpha-ring-bytes", 3),
        ("beta-derive", 1),
        ("beta-derive", 4),
        ("alpha-ring-bytes", 3),
        ("beta-derive", 3),
    ]
    states = {s["card_id"]: s for s in merged["card_states"]}
    assert set(states) == {"alpha-busbw", "alpha-ring-bytes", "beta-derive"}
    assert states["beta-derive"]["reps"] == 1  # the desktop's later review wins
    assert len(merged["mock_sessions"]) == 2 and len(merged["attempts"]) == 1
    # Undo takes back the latest review, not the last one imported.
    assert desktop.post("/api/review/undo").json() == {"card_id": "beta-derive", "rating": 3}


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"cards": [1, 2, 3]}, "not a Ringside export"),
        ({"app": "ringside", "format": 2}, "newer Ringside (format 2)"),
    ],
)
def test_a_foreign_file_is_refused_with_a_clear_message(
    client: TestClient, body: dict[str, object], expected: str
) -> None:
    response = client.post("/api/import", json=body)
    assert response.status_code == 422
    assert expected in response.json()["detail"][0]["msg"]


def test_one_bad_record_refuses_the_whole_file(
    make_client: ClientFactory, client: TestClient, clock: FakeClock
) -> None:
    populate(client, clock)
    document = export_json(client)
    document["review_logs"][-1]["rating"] = 7
    fresh = make_client(clock=clock, srs_fuzz=False)
    empty = export_text(fresh)
    response = fresh.post("/api/import", json=document)
    assert response.status_code == 422
    error = response.json()["detail"][0]
    assert error["loc"] == ["body", "review_logs", 4, "rating"]
    assert export_text(fresh) == empty  # the valid records before it were not written either


def test_upload_on_the_settings_page(
    make_client: ClientFactory, client: TestClient, clock: FakeClock
) -> None:
    page = client.get("/settings")
    assert (
        'action="/settings/import#import-result"' in page.text and 'href="/api/export"' in page.text
    )
    assert '<option value="alpha">Alpha topic</option>' in page.text
    populate(client, clock)
    exported = export_text(client)
    fresh = make_client(clock=clock, srs_fuzz=False)
    done = fresh.post(
        "/settings/import", files={"file": ("mine.json", exported, "application/json")}
    )
    assert done.status_code == 200
    assert 'role="status">Imported review settings, 2 card states, 5 reviews' in done.text
    assert export_text(fresh) == exported


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x89PNG\r\n\x1a\n not json", "not a JSON file"),
        (b'{"app": "ringside", "format": 1}', "user: Field required"),
        (b"", "choose an export file (.json) first"),
    ],
)
def test_a_bad_upload_shows_why_and_writes_nothing(
    client: TestClient, content: bytes, message: str
) -> None:
    before = export_text(client)
    response = client.post("/settings/import", files={"file": ("x.json", content)})
    assert response.status_code == 422
    assert "That file cannot be imported: " + message in response.text
    assert "Nothing was changed." in response.text and 'role="alert"' in response.text
    assert "Traceback" not in response.text
    assert export_text(client) == before


def test_an_upload_too_large_is_refused(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("app.web.settings.data.MAX_UPLOAD_BYTES", 1024 * 1024)
    response = client.post("/settings/import", files={"file": ("big.json", b" " * (2**20 + 1))})
    assert response.status_code == 413
    assert "That file cannot be imported: the file is larger than 1 MB." in response.text


def test_the_upload_form_works_from_a_browser_session(client: TestClient, clock: FakeClock) -> None:
    page = client.get("/settings", headers={"accept": "text/html"})
    form = page.text[page.text.index('action="/settings/import#import-result"') :]
    token = re.search(r'name="csrf_token" value="([^"]+)"', form)
    assert token is not None, "the import form carries the page's security token"
    populate_file = export_text(client)
    response = client.post(
        "/settings/import",
        data={"csrf_token": token.group(1)},
        files={"file": ("mine.json", populate_file, "application/json")},
    )
    assert response.status_code == 200, response.text
    assert "Nothing new to import" in response.text


def test_values_the_schema_does_not_allow_are_refused(client: TestClient, clock: FakeClock) -> None:
    populate(client, clock)
    good = export_json(client)
    cases = [
        (("review_logs", 0, "reviewed_at"), 1775034000, "must be an ISO 8601 date-time"),
        (("review_logs", 0, "rating"), "3", "valid integer"),
        (("attempts", 0, "answer"), "3\x00GB", "contains a NUL character"),
        (("card_states", 0, "due"), "9999-12-31T23:00:00-05:00", "out of range once in UTC"),
        (("review_settings", "timezone"), "Mars/Olympus", "unknown time zone"),
        (("review_logs", 1, "state_before", "due"), "2026-04-01T05:00:00-05:00", "must be in UTC"),
        (("card_states", 1, "card_id"), "alpha-ring-bytes", "lists a card twice"),
    ]
    for path, value, message in cases:
        document = json.loads(json.dumps(good))
        target = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        response = client.post("/api/import", json=document)
        assert response.status_code == 422, path
        assert message in response.json()["detail"][0]["msg"], path
    assert export_json(client) == good


def test_the_plan_travels_with_an_export(
    make_client: ClientFactory, client: TestClient, clock: FakeClock
) -> None:
    populate(client, clock)
    saved = client.put("/api/plan", json={"loop_date": "2026-04-30", "daily_minutes": 45})
    assert saved.status_code == 200, saved.text
    exported = export_json(client)
    assert exported["study_plan"]["loop_date"] == "2026-04-30"
    assert exported["study_plan"]["daily_minutes"] == 45
    assert exported["study_plan"]["topics"] == []
    fresh = make_client(clock=clock, srs_fuzz=False)
    imported = fresh.post("/api/import", json=exported)
    assert imported.status_code == 200, imported.text
    assert imported.json()["added"]["study_plan"] == 1
    assert "Imported review settings, the study plan, 2 card states" in imported.json()["message"]
    plan = fresh.get("/api/plan").json()
    assert (plan["loop_date"], plan["daily_minutes"]) == ("2026-04-30", 45)
    assert export_text(fresh) == export_text(client)


def test_an_imported_plan_never_replaces_the_one_set_here(
    make_client: ClientFactory, client: TestClient, clock: FakeClock
) -> None:
    client.put("/api/plan", json={"loop_date": "2026-04-30", "daily_minutes": 45})
    exported = export_json(client)
    fresh = make_client(clock=clock, srs_fuzz=False)
    fresh.put("/api/plan", json={"loop_date": "2026-05-15", "daily_minutes": 90})
    result = fresh.post("/api/import", json=exported).json()
    assert (result["added"]["study_plan"], result["kept"]["study_plan"]) == (0, 1)
    plan = fresh.get("/api/plan").json()
    assert (plan["loop_date"], plan["daily_minutes"]) == ("2026-05-15", 90)


def test_an_export_from_before_plans_were_exported_still_imports(
    make_client: ClientFactory, client: TestClient, clock: FakeClock
) -> None:
    populate(client, clock)
    older = export_json(client)
    del older["study_plan"]
    fresh = make_client(clock=clock, srs_fuzz=False)
    response = fresh.post("/api/import", json=older)
    assert response.status_code == 200, response.text
    assert response.json()["added"]["study_plan"] == 0
    assert fresh.get("/api/plan").status_code == 404


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"loop_date": "2026-04-30", "daily_minutes": 5}, "greater than or equal to 10"),
        ({"loop_date": "soon", "daily_minutes": 45}, "valid date"),
        ({"loop_date": 20260430, "daily_minutes": 45}, "ISO 8601 date"),
        ({"loop_date": "9999-01-01", "daily_minutes": 45}, "must be between"),
        ({"loop_date": "2030-01-01", "daily_minutes": 45}, "within 365 days after updated_at"),
        ({"loop_date": "2026-03-01", "daily_minutes": 45}, "within 365 days after updated_at"),
    ],
)
def test_a_bad_plan_in_a_file_is_refused(
    client: TestClient, clock: FakeClock, value: dict[str, object], message: str
) -> None:
    document = export_json(client)
    document["study_plan"] = {**value, "topics": [], "updated_at": "2026-04-01T09:00:00+00:00"}
    response = client.post("/api/import", json=document)
    assert response.status_code == 422
    assert message in response.json()["detail"][0]["msg"]
    assert client.get("/api/plan").status_code == 404


def test_the_upload_result_is_where_the_reader_is(
    make_client: ClientFactory, client: TestClient, clock: FakeClock
) -> None:
    page = client.get("/settings")
    assert 'action="/settings/import#import-result"' in page.text
    done = client.post(
        "/settings/import", files={"file": ("mine.json", export_text(client), "application/json")}
    )
    assert 'id="import-result"' in done.text

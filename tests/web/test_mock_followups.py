"""Follow-ups aimed at the gap, and rubric suggestions with their reasons, in the mock API."""

from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from app import grading
from app.content.loader import load_catalog
from app.mock import followup
from app.models import MockQuestion
from tests.conftest import ClientFactory, FakeClock
from tests.content.helpers import write_topic

START = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)

CARD = """\
```card
id: t-ring
kind: recall
question: |
  How many bytes does each GPU send in a ring all-reduce of $K$ bytes over $N$ GPUs?
answer: |
  $2(N-1)K/N$: a reduce-scatter, then an all-gather.
rubric:
  - point: Splits it into a reduce-scatter followed by an all-gather
    keywords: [reduce-scatter, all-gather]
  - point: Each GPU sends 2(N−1)K/N bytes
    keywords: ["2(N-1)K/N"]
  - point: Tends to 2K as N grows, independent of N
    keywords: [2K, independent of N]
followups:
  - question: How long does it take if every step costs a latency α?
    probes: [1]
    answer: 2(N−1)α more.
  - question: Why would anyone use a tree instead?
    answer: Its latency grows with log N.
  - question: Which phase could a switch do for you, and what would be left?
    probes: [0, 2]
    answer: The reduction; each GPU then sends K once.
  - question: What happens to the bytes at N = 2 and at N = 1024?
    probes: [1, 2]
    answer: K at N = 2, nearly 2K at 1024.
mistakes:
  - Saying K(N−1).
sources:
  - src
```
"""
LATENCY, TREE, SWITCH, LIMITS = (
    "How long does it take if every step costs a latency α?",
    "Why would anyone use a tree instead?",
    "Which phase could a switch do for you, and what would be left?",
    "What happens to the bytes at N = 2 and at N = 1024?",
)
ONLY_PHASES = "first a reduce-scatter then an all-gather over the ring"
PHASES_AND_BYTES = ONLY_PHASES + ", and every GPU sends 2(N-1)K/N bytes"
EVERYTHING = PHASES_AND_BYTES + ", which tends to 2K: independent of N for large N"


@pytest.fixture
def content(tmp_path: Path) -> Path:
    root = tmp_path / "content"
    write_topic(root, CARD)
    return root


@pytest.fixture
def client(make_client: ClientFactory, content: Path) -> TestClient:
    return make_client(content_dir=content, clock=FakeClock(START), srs_fuzz=False)


def test_the_grader_reads_the_answers_as_these_tests_assume(content: Path) -> None:
    catalog = load_catalog(content)
    card, field = catalog.card("t-ring"), grading.Field.of(catalog)
    assert card is not None
    assert grading.check(card, ONLY_PHASES, field).points == [0]
    assert grading.check(card, PHASES_AND_BYTES, field).points == [0, 1]
    assert grading.check(card, EVERYTHING, field).points == [0, 1, 2]
    assert grading.check(card, "", field).points == []


@pytest.mark.parametrize(
    ("answer", "asked", "probes", "reason"),
    [
        # Missed points 1 and 2: the first follow-up probing point 1 (shown as point 2).
        (ONLY_PHASES, LATENCY, [1], "it probes point 2, which your answer did not make"),
        # Missed point 2 only: the first follow-up probing it.
        (PHASES_AND_BYTES, SWITCH, [0, 2], "it probes point 3, which your answer did not make"),
        # Missed everything: the first missed point is point 0.
        ("", SWITCH, [0, 2], "it probes point 1, which your answer did not make"),
        # Missed nothing: the hardest, two points, and the last of the two that probe two.
        (EVERYTHING, LIMITS, [1, 2], "your answer made every rubric point"),
    ],
)
def test_the_follow_up_asked_aims_at_the_first_point_missed(
    content: Path, answer: str, asked: str, probes: list[int], reason: str
) -> None:
    catalog = load_catalog(content)
    card = catalog.card("t-ring")
    assert card is not None
    chosen = followup.choose(card, answer, grading.Field.of(catalog))
    assert (chosen.question, chosen.probes) == (asked, probes)
    assert chosen.reason.startswith(reason)
    if answer == EVERYTHING:
        assert chosen.reason.endswith("with the hardest follow-up (it probes points 2 and 3)")


def test_untagged_follow_ups_fall_back_to_the_last_one(tmp_path: Path) -> None:
    root = tmp_path / "content"
    plain = (
        CARD.split("followups:")[0]
        + "followups:\n  - question: First?\n    answer: A.\n"
        + "  - question: Second?\n    answer: B.\nmistakes:"
        + (CARD.split("mistakes:")[1])
    )
    write_topic(root, plain)
    catalog = load_catalog(root)
    card = catalog.card("t-ring")
    assert card is not None
    chosen = followup.choose(card, ONLY_PHASES, grading.Field.of(catalog))
    assert (chosen.question, chosen.probes) == ("Second?", [])
    assert chosen.reason == "this card's follow-ups probe no rubric point in particular"


def _session(client: TestClient) -> int:
    mock = client.post("/api/mock", json={"preset": "custom", "questions": 1, "minutes": 10})
    assert mock.status_code == 201, mock.text
    mock_id: int = mock.json()["id"]
    assert client.post(f"/api/mock/{mock_id}/start", json={"position": 1}).status_code == 200
    return mock_id


def test_the_api_carries_the_follow_up_its_probes_and_why(client: TestClient) -> None:
    mock_id = _session(client)
    waiting = client.get(f"/api/mock/{mock_id}").json()["questions"][0]
    # Not chosen yet, so nothing is said about it.
    assert waiting["followup"] is None and waiting["followup_probes"] is None
    assert waiting["suggested_points"] is None and waiting["suggested_reasons"] is None
    submit = {"position": 1, "part": "main", "text": ONLY_PHASES}
    first = client.post(f"/api/mock/{mock_id}/submit", json=submit)
    assert first.status_code == 200
    question = first.json()["questions"][0]
    assert first.json()["step"] == "followup"
    assert question["followup"] == LATENCY
    assert question["followup_probes"] == [1]
    assert question["followup_reason"] == "it probes point 2, which your answer did not make"
    # A resent submit changes nothing: the same follow-up, the same answer.
    again = client.post(f"/api/mock/{mock_id}/submit", json={**submit, "text": EVERYTHING})
    assert again.json()["questions"][0] == question


def test_suggestions_with_reasons_wait_with_the_question_to_grade(client: TestClient) -> None:
    mock_id = _session(client)
    main = {"position": 1, "part": "main", "text": ONLY_PHASES}
    client.post(f"/api/mock/{mock_id}/submit", json=main)
    followup_answer = {"position": 1, "part": "followup", "text": "2(N-1) steps, so 2(N-1)α"}
    state = client.post(f"/api/mock/{mock_id}/submit", json=followup_answer).json()
    question = state["questions"][0]
    assert state["step"] == "grade"
    # From the main answer and the follow-up's together.
    assert question["suggested_points"] == [0]
    assert set(question["suggested_reasons"]) == {"0"}
    assert "reduce-scatter" in question["suggested_reasons"]["0"].lower()
    page = client.get(f"/mock/{mock_id}").text
    assert 'name="point" value="0" checked' in page
    assert 'class="suggested-reason' in page
    graded = client.post(
        f"/api/mock/{mock_id}/grade", json={"position": 1, "points": [0, 1], "rating": 3}
    ).json()
    done = graded["questions"][0]
    assert done["suggested_points"] == [0] and done["confirmed_points"] == [0, 1]
    assert done["suggested_reasons"] is None


def test_a_deadline_submit_also_aims_the_follow_up(
    make_client: ClientFactory, content: Path
) -> None:
    clock = FakeClock(START)
    client = make_client(content_dir=content, clock=clock, srs_fuzz=False)
    mock_id = _session(client)
    client.put(f"/api/mock/{mock_id}/answer", json={"part": "main", "text": PHASES_AND_BYTES})
    clock.advance(minutes=11)
    question = client.get(f"/api/mock/{mock_id}").json()["questions"][0]
    assert (question["followup"], question["followup_probes"]) == (SWITCH, [0, 2])


def test_the_report_says_which_follow_up_was_asked_and_why(client: TestClient) -> None:
    mock_id = _session(client)
    client.post(f"/api/mock/{mock_id}/submit", json={"position": 1, "part": "main",
                                                     "text": PHASES_AND_BYTES})  # fmt: skip
    client.post(f"/api/mock/{mock_id}/submit", json={"position": 1, "part": "followup",
                                                     "text": "a switch reduces"})  # fmt: skip
    client.post(f"/api/mock/{mock_id}/grade", json={"position": 1, "points": [0], "rating": 2})
    page = client.get(f"/mock/{mock_id}/report").text
    assert f"Follow-up: {SWITCH}" in page
    assert "Asked because it probes point 3, which your answer did not make." in page
    report = client.get(f"/api/mock/{mock_id}/report").json()["questions"][0]
    assert report["followup"] == SWITCH
    assert report["followup_probes"] == [0, 2]
    assert report["followup_reason"] == "it probes point 3, which your answer did not make"


def test_the_card_api_keeps_follow_ups_as_strings_beside_their_probes(
    client: TestClient,
) -> None:
    card = client.get("/api/cards/t-ring").json()
    assert card["followups"] == [LATENCY, TREE, SWITCH, LIMITS]
    assert card["followup_probes"] == [[1], [], [0, 2], [1, 2]]
    page = client.get("/cards/t-ring").text
    assert "Which phase could a switch do for you" in page
    assert "probes" not in page


def test_why_a_follow_up_was_asked_is_kept_from_when_it_was_chosen(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    mock_id = _session(client)
    main = {"position": 1, "part": "main", "text": ONLY_PHASES}
    asked = client.post(f"/api/mock/{mock_id}/submit", json=main).json()["questions"][0]
    # Whatever the grader would say today (a new version reads answers differently), the
    # session and its report keep what the interviewer decided then.
    monkeypatch.setattr(followup, "choose", lambda card, answer: pytest.fail("chosen again"))
    client.post(f"/api/mock/{mock_id}/submit", json={"position": 1, "part": "followup",
                                                     "text": "2(N-1)α"})  # fmt: skip
    client.post(f"/api/mock/{mock_id}/grade", json={"position": 1, "points": [0], "rating": 3})
    for path in (f"/api/mock/{mock_id}", f"/api/mock/{mock_id}/report"):
        question = client.get(path).json()["questions"][0]
        assert question["followup"] == LATENCY
        assert question["followup_probes"] == asked["followup_probes"] == [1]
        assert question["followup_reason"] == asked["followup_reason"]
    exported = client.get("/api/export").json()
    kept = exported["mock_sessions"][0]["questions"][0]
    assert (kept["followup_probes"], kept["followup_reason"]) == (
        [1],
        "it probes point 2, which your answer did not make",
    )


def test_a_session_from_before_reasons_were_kept_works_its_reason_out(
    client: TestClient,
) -> None:
    mock_id = _session(client)
    main = {"position": 1, "part": "main", "text": ONLY_PHASES}
    client.post(f"/api/mock/{mock_id}/submit", json=main)
    database = client.app.state.database  # type: ignore[attr-defined]
    with database.write_session() as session:
        session.execute(update(MockQuestion).values(followup_probes=None, followup_reason=None))
    question = client.get(f"/api/mock/{mock_id}").json()["questions"][0]
    assert question["followup_probes"] == [1]
    assert question["followup_reason"] == "it probes point 2, which your answer did not make"

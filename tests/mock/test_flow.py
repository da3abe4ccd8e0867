"""The mock session's steps without HTTP: each transition, each refusal, the clock's part."""

import random
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, select, update

from app import migrate
from app.auth.users import ensure_local_user
from app.content.loader import load_catalog
from app.db import Database
from app.errors import ConflictError, DomainError, FieldError, TooLargeError
from app.mock import audio, flow, report, sessions
from app.models import MockQuestion, MockSession, ReviewLog
from app.srs.days import as_utc
from tests.conftest import FIXTURE_CONTENT, FakeClock

CATALOG = load_catalog(FIXTURE_CONTENT)
START = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
WEBM = "audio/webm"


class World:
    """A database with its one user, the fixture content and a clock the test moves."""

    def __init__(self, tmp_path: Path) -> None:
        self.db = Database(f"sqlite:///{tmp_path}/mock.db")
        migrate.upgrade(self.db.engine)
        with self.db.write_session() as session:
            self.user = ensure_local_user(session).id
        self.clock = FakeClock(START)

    def new(self, **options: Any) -> int:
        """A custom session of two 6-minute questions (alpha's card first), unless told."""
        chosen = {"questions": 2, "minutes": 6, **options}
        with self.db.write_session() as session:
            mock = sessions.create(
                session, self.user, CATALOG, self.clock(), rng=random.Random(2), **chosen
            )
            return mock.id

    def do(self, step: Callable[..., Any], mock_id: int, *args: Any, **kwargs: Any) -> Any:
        """One step in one write transaction, as the router runs it: refused, it leaves
        nothing behind."""
        with self.db.write_session() as session:
            mock = sessions.load(session, self.user, mock_id)
            assert mock is not None
            return step(session, mock, CATALOG, self.clock(), *args, **kwargs)

    def mock(self, mock_id: int) -> MockSession:
        with self.db.read_session() as session:
            mock = sessions.load(session, self.user, mock_id)
            assert mock is not None
            return mock

    def questions(self, mock_id: int) -> list[MockQuestion]:
        with self.db.read_session() as session:
            return sessions.questions(session, self.mock(mock_id))

    def step(self, mock_id: int) -> tuple[str, int | None]:
        """What the session asks now, and of which question, as a reader sees it."""
        with self.db.read_session() as session:
            mock = sessions.load(session, self.user, mock_id)
            assert mock is not None
            step = sessions.current_step(
                mock, sessions.questions(session, mock), self.clock(), CATALOG
            )
            return step.kind, step.question.position if step.question else None

    def rows(self, model: type) -> int:
        with self.db.read_session() as session:
            return len(session.scalars(select(model)).all())


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def refused(kind: type[DomainError], world: World, *step: Any, **kwargs: Any) -> DomainError:
    with pytest.raises(kind) as caught:
        world.do(*step, **kwargs)
    return caught.value


def answered(world: World, **options: Any) -> int:
    """A session whose first question's main answer is in."""
    mock_id = world.new(**options)
    world.do(flow.start, mock_id)
    world.do(flow.submit, mock_id, 1, "main", "reduce-scatter, then all-gather")
    return mock_id


# --- creating ------------------------------------------------------------------------------


def test_a_preset_fixes_questions_and_minutes_a_custom_session_names_both(world: World) -> None:
    infra = world.mock(world.new(preset="infra", questions=1, minutes=1))
    assert infra.minutes_per_question == 10
    assert len(world.questions(infra.id)) == 2  # four asked, but the fixtures have two open
    for missing, options in (("questions", {"questions": None}), ("minutes", {"minutes": None})):
        with pytest.raises(FieldError) as caught:
            world.new(**options)
        assert (caught.value.field, caught.value.code) == (missing, "missing")
        assert caught.value.message == "a custom session needs questions and minutes"


@pytest.mark.parametrize(
    ("options", "field", "message"),
    [
        ({"questions": 11}, "questions", "choose 1 to 10"),
        ({"minutes": 0}, "minutes", "choose 1 to 60 per question"),
        ({"topics": ["nope"]}, "topics", "no topic 'nope'"),
    ],
)
def test_a_session_out_of_bounds_is_refused_naming_the_field(
    world: World, options: dict[str, Any], field: str, message: str
) -> None:
    with pytest.raises(FieldError) as caught:
        world.new(**options)
    assert (caught.value.field, caught.value.message, caught.value.code) == (
        field, message, "value_error",
    )  # fmt: skip
    assert world.rows(MockSession) == 0


# --- start ---------------------------------------------------------------------------------


def test_start_fixes_the_deadline_on_the_server(world: World) -> None:
    mock_id = world.new()
    world.clock.advance(minutes=1)
    world.do(flow.start, mock_id, 1)
    first = world.questions(mock_id)[0]
    assert first.started_at is not None and first.deadline is not None
    assert as_utc(first.started_at) == world.clock()
    assert (as_utc(first.deadline) - as_utc(first.started_at)).total_seconds() == 6 * 60
    assert world.step(mock_id) == ("answer", 1)


def test_a_resent_start_changes_nothing_and_another_is_refused(world: World) -> None:
    mock_id = world.new()
    world.do(flow.start, mock_id, 1)
    deadline = world.questions(mock_id)[0].deadline
    world.clock.advance(seconds=5)
    world.do(flow.start, mock_id, 1)  # a double click
    assert world.questions(mock_id)[0].deadline == deadline
    unnamed = refused(ConflictError, world, flow.start, mock_id)
    assert unnamed.message == "finish question 1 first"
    other = refused(ConflictError, world, flow.start, mock_id, 2)
    assert other.message == "question 2 is not the next one to start"
    assert world.questions(mock_id)[1].started_at is None


# --- autosave ------------------------------------------------------------------------------


def test_autosave_keeps_the_text_until_the_deadline_and_its_grace(world: World) -> None:
    mock_id = world.new()
    world.do(flow.start, mock_id)
    question = world.do(flow.autosave, mock_id, "main", "draft one")
    assert question.answer == "draft one" and question.saved_at == START
    world.clock.advance(minutes=6, seconds=10)  # past the deadline, inside the grace
    world.do(flow.autosave, mock_id, "main", "draft two")
    world.clock.advance(seconds=10)  # past the grace: it was submitted, as saved
    late = refused(sessions.TooLate, world, flow.autosave, mock_id, "main", "too late")
    assert late.code == "time_up" and "last saved text was kept" in late.message
    assert world.questions(mock_id)[0].answer == "draft two"


def test_autosave_refuses_a_part_not_being_answered_and_a_text_too_long(world: World) -> None:
    mock_id = world.new()
    before = refused(sessions.TooLate, world, flow.autosave, mock_id, "main", "x")
    assert before.message == "nothing is being answered now; the last saved text was kept"
    world.do(flow.start, mock_id)
    early = refused(sessions.TooLate, world, flow.autosave, mock_id, "followup", "x")
    assert early.message.startswith("the followup answer can no longer be changed")
    long = refused(FieldError, world, flow.autosave, mock_id, "main", "x" * 20_001)
    assert long.field == "text" and "at most 20,000 characters" in long.message
    assert world.do(flow.autosave, mock_id, "main", "y" * 20_000).answer == "y" * 20_000


# --- submit --------------------------------------------------------------------------------


def test_submitting_the_main_answer_starts_the_follow_up_with_its_own_clock(
    world: World,
) -> None:
    mock_id = world.new(minutes=9)
    world.do(flow.start, mock_id)
    world.clock.advance(minutes=2)
    world.do(flow.submit, mock_id, 1, "main", "final text")
    first = world.questions(mock_id)[0]
    assert first.answer == "final text" and first.submitted_at is not None
    assert as_utc(first.submitted_at) == world.clock()
    assert first.followup == "And the latency term?"
    assert first.followup_deadline is not None
    assert (as_utc(first.followup_deadline) - world.clock()).total_seconds() == 3 * 60
    assert world.step(mock_id) == ("followup", 1)
    world.do(flow.submit, mock_id, 1, "followup", "the latency term")
    assert world.step(mock_id) == ("grade", 1)
    assert world.questions(mock_id)[0].followup_answer == "the latency term"


def test_a_resent_submit_changes_nothing(world: World) -> None:
    mock_id = answered(world)
    submitted = world.questions(mock_id)[0].submitted_at
    world.clock.advance(seconds=2)
    world.do(flow.submit, mock_id, 1, "main", "another text")  # the same submit, resent
    first = world.questions(mock_id)[0]
    assert (first.answer, first.submitted_at) == ("reduce-scatter, then all-gather", submitted)
    assert first.followup_submitted_at is None and world.step(mock_id) == ("followup", 1)


def test_a_submit_naming_another_part_or_question_is_refused(world: World) -> None:
    mock_id = world.new()
    world.do(flow.start, mock_id)
    early = refused(ConflictError, world, flow.submit, mock_id, 1, "followup", "not yet")
    assert early.message == "question 1's followup answer is not the one being answered now"
    other = refused(ConflictError, world, flow.submit, mock_id, 2, "main")
    assert other.message == "question 2's main answer is not the one being answered now"
    assert world.questions(mock_id)[0].answer == ""


def test_an_answer_left_past_its_deadline_is_submitted_as_saved(world: World) -> None:
    mock_id = world.new(followups=False)
    world.do(flow.start, mock_id)
    world.do(flow.autosave, mock_id, "main", "what was saved")
    world.clock.advance(minutes=7)
    # A resent submit after the deadline finds it already submitted, at the deadline.
    world.do(flow.submit, mock_id, 1, "main", "written too late")
    first = world.questions(mock_id)[0]
    assert first.answer == "what was saved"
    assert first.submitted_at is not None and first.deadline is not None
    assert as_utc(first.submitted_at) == as_utc(first.deadline)
    assert world.step(mock_id) == ("grade", 1)


# --- grade ---------------------------------------------------------------------------------


def test_grading_records_one_mock_review_and_finishes_the_session(world: World) -> None:
    mock_id = answered(world, questions=1, followups=False)
    world.do(flow.grade, mock_id, [2, 0, 0], 3, 1, fuzz=False)
    first = world.questions(mock_id)[0]
    assert (first.confirmed_points, first.rating, first.suggested_points) == ([0, 2], 3, [0])
    assert world.mock(mock_id).status == "finished"
    with world.db.read_session() as session:
        logs = session.scalars(select(ReviewLog)).all()
    assert [(log.source, log.card_id, log.rating) for log in logs] == [
        ("mock", "alpha-ring-bytes", 3)
    ]


def test_a_resent_grade_changes_nothing(world: World) -> None:
    mock_id = answered(world, followups=False)
    world.do(flow.grade, mock_id, [0], 3, 1, fuzz=False)
    world.do(flow.start, mock_id)
    world.do(flow.grade, mock_id, [], 1, 1, fuzz=False)
    assert [q.rating for q in world.questions(mock_id)] == [3, None]
    assert world.rows(ReviewLog) == 1


def test_grading_refuses_what_is_not_waiting_and_values_out_of_range(world: World) -> None:
    mock_id = world.new(followups=False)
    world.do(flow.start, mock_id)
    early = refused(ConflictError, world, flow.grade, mock_id, [0], 3)
    assert early.message == "no question is waiting to be graded"
    world.do(flow.submit, mock_id, 1, "main")
    other = refused(ConflictError, world, flow.grade, mock_id, [0], 3, 2)
    assert other.message == "question 2 is not the one waiting to be graded"
    points = refused(FieldError, world, flow.grade, mock_id, [9], 3)
    assert (points.field, points.message) == ("points", "rubric points are numbered 0 to 2")
    rating = refused(FieldError, world, flow.grade, mock_id, [0], 5)
    assert rating.field == "rating"
    assert world.rows(ReviewLog) == 0


def test_a_question_whose_card_left_the_content_cannot_be_graded(world: World) -> None:
    mock_id = answered(world, followups=False)
    with world.db.write_session() as session:
        session.execute(update(MockQuestion).values(card_id="gone-since"))
    gone = refused(flow.CardGone, world, flow.grade, mock_id, [0], 3)
    assert gone.code == "card_gone" and "no longer in the content" in gone.message


def test_grading_at_the_end_asks_every_question_first(world: World) -> None:
    mock_id = world.new(grade_after_each=False, followups=False)
    world.do(flow.start, mock_id)
    world.do(flow.submit, mock_id, 1, "main")
    assert world.step(mock_id) == ("start", 2)
    world.do(flow.start, mock_id)
    world.do(flow.submit, mock_id, 2, "main")
    assert world.step(mock_id) == ("grade", 1)


# --- abandon -------------------------------------------------------------------------------


def test_abandoning_is_final_and_a_resent_abandon_changes_nothing(world: World) -> None:
    mock_id = world.new()
    world.do(flow.start, mock_id)
    world.do(flow.abandon, mock_id)
    finished_at = world.mock(mock_id).finished_at
    world.clock.advance(seconds=3)
    world.do(flow.abandon, mock_id)
    assert world.mock(mock_id).status == "abandoned"
    assert world.mock(mock_id).finished_at == finished_at
    for step, args in ((flow.start, ()), (flow.grade, ([0], 3))):
        assert refused(ConflictError, world, step, mock_id, *args).message == (
            "this session is abandoned"
        )


def test_a_finished_session_cannot_be_abandoned(world: World) -> None:
    mock_id = answered(world, questions=1, followups=False)
    world.do(flow.grade, mock_id, [0], 3, fuzz=False)
    assert refused(ConflictError, world, flow.abandon, mock_id).message == (
        "this session is finished"
    )


def test_abandoning_first_submits_what_ran_out_of_time(world: World) -> None:
    mock_id = world.new(followups=False)
    world.do(flow.start, mock_id)
    world.clock.advance(minutes=10)
    world.do(flow.abandon, mock_id)
    first = world.questions(mock_id)[0]
    assert first.submitted_at is not None and first.deadline is not None
    assert as_utc(first.submitted_at) == as_utc(first.deadline)


# --- spoken answers ------------------------------------------------------------------------


def test_audio_is_kept_in_its_answers_time_and_a_resent_chunk_changes_nothing(
    world: World,
) -> None:
    mock_id = world.new(minutes=1)
    world.do(flow.start, mock_id)
    stored = world.do(flow.record, mock_id, 1, "main", 1, 0, WEBM, b"one")
    assert (stored.stored, stored.bytes_total, stored.chunks) == (True, 3, 1)
    again = world.do(flow.record, mock_id, 1, "main", 1, 0, WEBM, b"other bytes")
    assert (again.stored, again.bytes_total, again.chunks) == (False, 3, 1)
    missing = refused(ConflictError, world, flow.record, mock_id, 9, "main", 1, 1, WEBM, b"x")
    assert missing.message == "This session has no question 9."
    early = refused(
        audio.AudioRefused, world, flow.record, mock_id, 1, "followup", 1, 0, WEBM, b"x"
    )
    assert early.status == 422 and early.field is None
    world.clock.advance(minutes=1, seconds=20)
    late = refused(audio.AudioRefused, world, flow.record, mock_id, 1, "main", 1, 1, WEBM, b"x")
    assert late.message == "time is up for the main answer; what was recorded before is kept"


def test_audio_past_the_answers_cap_is_too_large(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audio, "MAX_BYTES", 5)
    mock_id = world.new()
    world.do(flow.start, mock_id)
    world.do(flow.record, mock_id, 1, "main", 1, 0, WEBM, b"abc")
    full = refused(TooLargeError, world, flow.record, mock_id, 1, "main", 1, 1, WEBM, b"def")
    assert full.message.startswith("an answer may hold at most 5 bytes of audio")


# --- history -------------------------------------------------------------------------------


@pytest.fixture
def statements(world: World) -> Iterator[list[str]]:
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append(statement)

    event.listen(world.db.engine, "before_cursor_execute", record)
    yield seen
    event.remove(world.db.engine, "before_cursor_execute", record)


def test_the_history_reads_every_sessions_questions_in_one_query(
    world: World, statements: list[str]
) -> None:
    graded = answered(world, questions=1, followups=False)
    world.do(flow.grade, graded, [0, 1], 3, fuzz=False)
    for _ in range(4):
        world.new()
    with world.db.read_session() as session:
        statements.clear()
        rows = report.history(session, world.user, CATALOG)
        assert len(statements) == 2
    assert [r.planned for r in rows] == [2, 2, 2, 2, 1]  # newest first
    assert rows[-1].score == pytest.approx(2 / 3)


def test_history_keeps_each_users_sessions_apart(world: World) -> None:
    world.new()
    with world.db.read_session() as session:
        assert report.history(session, world.user + 1, CATALOG) == []
        assert len(report.history(session, world.user, CATALOG)) == 1

"""FSRS's parameters fitted to a user: kept only when they predict better, then used everywhere."""

import json
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from fsrs.scheduler import DEFAULT_PARAMETERS
from fsrs_rs_python import FSRS
from sqlalchemy import select

from app.config import Settings
from app.db import Database
from app.main import create_app
from app.models import ReviewLog, ReviewSettings, User
from app.srs import optimizer, refit, scheduling
from app.srs import settings as srs_settings
from bench.plan_simulation import BOUNDARY, TIMEZONE, TRUE_PARAMETERS, simulate
from tests.conftest import FIXTURE_CONTENT, ClientFactory, DatabaseFactory, FakeClock

START = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def client(make_client: ClientFactory, clock: FakeClock) -> TestClient:
    return make_client(clock=clock, srs_fuzz=False)


def learner_logs(seed: int) -> list[tuple[str, int, datetime]]:
    """Sixty days of a learner who forgets faster than FSRS's defaults (bench/plan_simulation)."""
    history = simulate("fsrs", days=60, minutes=90, seed=seed, topics=30).logs
    shift = START - timedelta(days=61) - history[0][2]  # ends the day before START
    return [(card, rating, when + shift) for card, rating, when in history]


def insert(database: Database, user_id: int, logs: list[tuple[str, int, datetime]]) -> None:
    with database.write_session() as session:
        session.add_all(
            ReviewLog(
                user_id=user_id,
                card_id=card,
                rating=rating,
                reviewed_at=when,
                duration_ms=None,
                source="review",
                was_new=False,
                idempotency_key=None,
                state_before=None,
                state_after={},
                interval_days=0.0,
                prior_interval_days=None,
            )  # fmt: skip
            for card, rating, when in logs
        )


def local_user(client: TestClient) -> int:
    return int(client.app.state.local_user_id)  # type: ignore[attr-defined]


def test_too_little_history_is_409_saying_how_many_are_needed(client: TestClient) -> None:
    insert(client.app.state.database, local_user(client), learner_logs(1)[:100])  # type: ignore[attr-defined]
    response = client.post("/api/srs/optimize")
    assert response.status_code == 409
    assert response.json()["detail"] == (
        "512 reviews are needed to fit your parameters; you have 100"
    )
    form = client.post("/settings/optimize", follow_redirects=False)
    assert form.headers["location"] == "/settings?optimize=few#memory"
    assert (
        "Not enough reviews yet: 512 are needed, you have 100."
        in client.get("/settings?optimize=few").text
    )


def test_a_fit_that_predicts_better_is_kept_and_schedules_the_users_cards(
    client: TestClient,
) -> None:
    database = client.app.state.database  # type: ignore[attr-defined]
    insert(database, local_user(client), learner_logs(5))
    body = client.post("/api/srs/optimize").json()
    assert set(body) == {
        "parameters", "reviews_used", "log_loss_before", "log_loss_after", "rmse_before",
        "rmse_after",
    }  # fmt: skip
    assert body["reviews_used"] > 512
    assert body["log_loss_after"] < body["log_loss_before"]
    assert body["rmse_after"] <= body["rmse_before"]
    fitted = body["parameters"]
    assert len(fitted) == 21 and fitted != list(DEFAULT_PARAMETERS)
    # This learner forgets new cards faster: the fit finds lower initial stabilities.
    assert fitted[2] < DEFAULT_PARAMETERS[2]
    with database.read_session() as session:
        assert srs_settings.load(session, local_user(client)).fsrs_parameters == tuple(fitted)
    # A new card graded Good now gets the interval of the fitted model, not the defaults'.
    first = client.post("/api/review/alpha-busbw", json={"rating": 3, "idempotency_key": "a"})
    second = client.post("/api/review/alpha-busbw", json={"rating": 3, "idempotency_key": "b"})
    assert first.status_code == second.status_code == 200
    # Two Goods take a new card out of learning: its stability is the fitted model's.
    card = scheduling.outcome(None, 3, START, 0.9, "s", fuzz=False, parameters=fitted).card
    mine = scheduling.scheduler(0.9, fuzz=False, parameters=fitted).review_card(card, 3, START)[0]
    plain = scheduling.scheduler(0.9, fuzz=False).review_card(
        scheduling.outcome(None, 3, START, 0.9, "s", fuzz=False).card, 3, START
    )[0]
    assert second.json()["stability"] == pytest.approx(mine.stability)
    assert mine.stability != pytest.approx(plain.stability)
    assert "fitted to your own reviews" in client.get("/settings").text


def test_a_fit_that_predicts_no_better_leaves_the_current_parameters(client: TestClient) -> None:
    database = client.app.state.database  # type: ignore[attr-defined]
    insert(database, local_user(client), learner_logs(2))  # its later fifth favours the defaults
    body = client.post("/api/srs/optimize").json()
    assert body["parameters"] == list(DEFAULT_PARAMETERS)
    assert body["log_loss_after"] == body["log_loss_before"]
    with database.read_session() as session:
        assert srs_settings.load(session, local_user(client)).fsrs_parameters is None
    assert client.get("/settings?optimize=kept").text.count("the current parameters") == 1


def test_the_fit_generalises_to_reviews_it_never_saw() -> None:
    fitted_on = optimizer.to_items(learner_logs(3), TIMEZONE, BOUNDARY)
    held_out = optimizer.to_items(learner_logs(4), TIMEZONE, BOUNDARY)
    fitted = FSRS(list(DEFAULT_PARAMETERS)).compute_parameters([i.item for i in fitted_on])
    unseen = [i.item for i in held_out]
    defaults = FSRS(list(DEFAULT_PARAMETERS)).evaluate(unseen).log_loss
    truth = FSRS(list(TRUE_PARAMETERS)).evaluate(unseen).log_loss
    assert FSRS(fitted).evaluate(unseen).log_loss < defaults
    assert truth < defaults  # the simulated memory really differs from the defaults


def test_parameters_travel_with_an_export_and_bad_ones_are_refused(
    make_client: ClientFactory, client: TestClient, clock: FakeClock
) -> None:
    database = client.app.state.database  # type: ignore[attr-defined]
    fitted = list(TRUE_PARAMETERS)
    with database.write_session() as session:
        session.add(ReviewSettings(user_id=local_user(client), fsrs_parameters=fitted))
    document = client.get("/api/export").json()
    assert document["review_settings"]["fsrs_parameters"] == fitted
    fresh = make_client(clock=clock, srs_fuzz=False)
    assert fresh.post("/api/import", json=document).status_code == 200
    database = fresh.app.state.database  # type: ignore[attr-defined]
    with database.read_session() as session:
        assert srs_settings.load(session, local_user(fresh)).fsrs_parameters == tuple(fitted)
    for bad in ([0.5] * 20, [*fitted[:20], 5.0], [float("nan")] + fitted[1:]):
        other = make_client(clock=clock, srs_fuzz=False)
        broken = json.loads(json.dumps({**document, "review_settings": {
            **document["review_settings"], "fsrs_parameters": bad}}, allow_nan=True))  # fmt: skip
        response = other.post(
            "/api/import",
            content=json.dumps(broken, allow_nan=True),
            headers={"content-type": "application/json"},
        )
        assert response.status_code == 422, response.text
        assert "fsrs_parameters" in response.text


def test_the_weekly_refit_waits_for_a_week_of_new_reviews(
    client: TestClient, clock: FakeClock
) -> None:
    database = client.app.state.database  # type: ignore[attr-defined]
    user = local_user(client)
    assert refit.due_users(database, clock()) == []  # no reviews at all
    insert(database, user, learner_logs(5))
    assert refit.due_users(database, clock()) == [user]  # never fitted
    assert refit.refit_due(database, clock()) == 1
    assert refit.due_users(database, clock()) == []
    clock.advance(days=8)
    assert refit.due_users(database, clock()) == []  # a week, but nothing new reviewed
    insert(database, user, [("alpha-busbw", 3, clock() - timedelta(hours=1))])
    assert refit.due_users(database, clock()) == [user]


def test_two_users_are_scheduled_each_with_their_own_parameters(
    new_database: DatabaseFactory, clock: FakeClock
) -> None:
    key = "Two-users-each-with-their-own-memory-model-0123456789"
    settings = Settings(
        database_url=new_database(),
        content_dir=FIXTURE_CONTENT,
        auth_mode="accounts",
        secret_key=key,
        srs_fuzz=False,
    )
    app = create_app(settings, clock)
    stabilities = {}
    with TestClient(app) as fast, TestClient(app) as slow:
        for client, name in ((fast, "fast"), (slow, "slow")):
            form = {"username": name, "password": "correct horse battery staple"}
            assert client.post("/register", data=form, follow_redirects=False).status_code == 303
        with app.state.database.write_session() as session:
            user = session.scalar(select(User.id).where(User.username == "fast"))
            session.add(ReviewSettings(user_id=user, fsrs_parameters=list(TRUE_PARAMETERS)))
        for client, name in ((fast, "fast"), (slow, "slow")):
            token = client.get("/settings").text.split('name="csrf-token" content="')[1]
            headers = {"X-CSRF-Token": token.split('"')[0]}
            for key_suffix in ("1", "2"):  # two Goods: out of learning, into review
                response = client.post(
                    "/api/review/alpha-busbw",
                    json={"rating": 3, "idempotency_key": name + key_suffix},
                    headers=headers,
                )
                assert response.status_code == 200, response.text
            stabilities[name] = response.json()["stability"]
    # The fast forgetter's model starts a Good card at 1.2 days' stability, the default at 2.3.
    assert stabilities["fast"] < stabilities["slow"]
    assert stabilities["slow"] == pytest.approx(
        scheduling.scheduler(0.9, fuzz=False)
        .review_card(scheduling.outcome(None, 3, START, 0.9, "s", fuzz=False).card, 3, START)[0]
        .stability
    )


def test_offline_review_computes_intervals_with_the_users_parameters(client: TestClient) -> None:
    database = client.app.state.database  # type: ignore[attr-defined]
    assert client.get("/api/review/offline").json()["scheduler"]["parameters"] == list(
        DEFAULT_PARAMETERS
    )
    with database.write_session() as session:
        session.add(
            ReviewSettings(user_id=local_user(client), fsrs_parameters=list(TRUE_PARAMETERS))
        )
    offline = client.get("/api/review/offline").json()["scheduler"]
    assert offline["parameters"] == list(TRUE_PARAMETERS)

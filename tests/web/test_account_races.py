"""Account rules under real concurrency: two app instances on one database, requests at once.

Each instance has its own engine, pool and (on SQLite) process lock, as two processes would,
so only the database can make the checks hold: on PostgreSQL nothing serialises writers, and
a rule checked by reading and then writing lets every parallel request through.
"""

import re
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from app.auth import accounts
from app.config import Settings
from app.main import create_app
from app.models import ApiToken, LoginAttempt, User
from tests.conftest import FIXTURE_CONTENT, DatabaseFactory
from tests.servers import serving

pytestmark = pytest.mark.slow

KEY = "race-tests-" + "abcdefghij" * 5
PASSWORD = "a long enough passphrase"
Servers = Callable[..., tuple[list[str], FastAPI]]


@pytest.fixture
def servers(new_database: DatabaseFactory) -> Iterator[Servers]:
    """Start two real servers in accounts mode on one new database; stopped after the test."""
    running = ExitStack()

    def start(**overrides: Any) -> tuple[list[str], FastAPI]:
        url = new_database()
        bases, apps = [], []
        for _ in range(2):
            settings = Settings(
                database_url=url, content_dir=FIXTURE_CONTENT, auth_mode="accounts",
                secret_key=KEY, **overrides,
            )  # fmt: skip
            app = create_app(settings)
            base = running.enter_context(serving(app))
            # FastAPI builds a route's parameters at the first request that reaches it; built
            # from many threads at once, pydantic may warn (an error under pytest). Build them
            # now, so the burst races on the database, not on route building.
            for method, path in (("GET", "/login"), ("POST", "/login"), ("POST", "/register")):
                httpx.request(method, base + path, data={}, timeout=20)
            bases.append(base)
            apps.append(app)
        return bases, apps[0]

    with running:
        yield start


def at_once(calls: list[Callable[[], httpx.Response]]) -> Counter[int]:
    """Run the calls in parallel threads; the count of each status code."""
    with ThreadPoolExecutor(len(calls)) as pool:
        return Counter(r.status_code for r in pool.map(lambda call: call(), calls))


def count(app: FastAPI, query: Any) -> int:
    with app.state.database.read_session() as session:
        return int(session.scalar(query) or 0)


def post(
    base: str, path: str, cookies: dict[str, str] | None = None, **kwargs: Any
) -> Callable[[], httpx.Response]:
    def send() -> httpx.Response:
        with httpx.Client(timeout=120, cookies=cookies) as client:
            return client.post(base + path, **kwargs)

    return send


def test_parallel_wrong_passwords_evaluate_at_most_five_per_account(servers: Servers) -> None:
    bases, app = servers()
    assert httpx.post(f"{bases[0]}/register", data={"username": "ada", "password": PASSWORD},
                      timeout=60).status_code == 303  # fmt: skip
    guesses = [
        post(bases[i % 2], "/login", data={"username": "ada", "password": f"guess {i}"})
        for i in range(30)
    ]
    statuses = at_once(guesses)
    assert statuses == {401: 5, 429: 25}
    failed = select(func.count()).where(
        LoginAttempt.kind == "sign-in", LoginAttempt.succeeded.is_(False)
    )
    assert count(app, failed) == 5


def test_parallel_sign_ins_from_one_address_evaluate_at_most_twenty(servers: Servers) -> None:
    bases, app = servers()
    guesses = [
        post(bases[i % 2], "/login", data={"username": f"user{i}", "password": "whatever 123"})
        for i in range(26)
    ]
    statuses = at_once(guesses)
    assert statuses == {401: 20, 429: 6}
    assert count(app, select(func.count()).where(LoginAttempt.kind == "sign-in")) == 20


def test_one_invitation_code_makes_exactly_one_account(servers: Servers) -> None:
    bases, app = servers(registration="invite")
    with app.state.database.write_session() as session:
        code = accounts.create_invite(session, app.state.clock(), app.state.auth_policy)
    attempts = [
        post(bases[i % 2], "/register",
             data={"username": f"invited{i}", "password": PASSWORD, "invite": code})
        for i in range(10)
    ]  # fmt: skip
    assert at_once(attempts) == {303: 1, 422: 9}
    assert count(app, select(func.count()).where(User.username.like("invited%"))) == 1


def test_a_username_taken_at_the_same_moment_is_a_422(servers: Servers) -> None:
    bases, app = servers()
    attempts = [
        post(bases[i % 2], "/register", data={"username": "grace", "password": PASSWORD})
        for i in range(8)
    ]
    assert at_once(attempts) == {303: 1, 422: 7}
    assert count(app, select(func.count()).where(User.username == "grace")) == 1


def test_parallel_token_creations_stop_at_the_limit(servers: Servers) -> None:
    bases, app = servers()
    with httpx.Client(timeout=120) as browser:
        data = {"username": "ada", "password": PASSWORD}
        assert browser.post(f"{bases[0]}/register", data=data).status_code == 303
        page = browser.get(f"{bases[0]}/settings").text
        match = re.search(r'name="csrf-token" content="([^"]+)"', page)
        assert match
        headers = {"X-CSRF-Token": match.group(1)}
        cookies = dict(browser.cookies)
    creations = [
        post(bases[i % 2], "/api/auth/tokens", json={"name": f"t{i}"}, headers=headers,
             cookies=cookies)
        for i in range(accounts.MAX_TOKENS + 6)
    ]  # fmt: skip
    assert at_once(creations) == {201: accounts.MAX_TOKENS, 422: 6}
    assert count(app, select(func.count()).select_from(ApiToken)) == accounts.MAX_TOKENS

"""Who is asking is resolved once per request, before anything renders; templates only read it."""

import re

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.auth import accounts as accounts_module
from app.models import AuthSession
from tests.conftest import ClientFactory, loopback_client
from tests.web.test_accounts import accounts, clock, csrf_of, register  # noqa: F401

HTML = {"Accept": "text/html"}


def token_on(html: str) -> str:
    match = re.search(r'name="csrf-token" content="([^"]*)"', html)
    assert match is not None
    return match.group(1)


def test_an_error_page_carries_the_signed_in_readers_token(
    accounts: ClientFactory,  # noqa: F811
) -> None:
    client = accounts()
    register(client, "ada")
    token = csrf_of(client)
    missing = client.get("/nowhere", headers=HTML)
    assert missing.status_code == 404
    assert token_on(missing.text) == token  # the header's sign-out form still works


def test_an_error_page_for_a_new_local_browser_writes_nothing(make_client: ClientFactory) -> None:
    client = make_client()
    visitor = loopback_client(client.app)  # no cookie
    missing = visitor.get("/nowhere", headers=HTML)
    assert missing.status_code == 404
    assert token_on(missing.text)  # derived from the cookie it is given, not stored
    assert "ringside_session=" in missing.headers["set-cookie"]
    with client.app.state.database.read_session() as session:  # type: ignore[attr-defined]
        assert session.scalar(select(func.count()).select_from(AuthSession)) == 0


@pytest.mark.parametrize(
    ("path", "status"),
    [("/settings", 200), ("/review", 200), ("/topics/alpha", 200), ("/nowhere", 404)],
)
def test_a_signed_in_request_looks_its_session_up_once(
    accounts: ClientFactory,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    path: str,
    status: int,
) -> None:
    client = accounts()
    register(client, "ada")
    lookups = []
    real = accounts_module.find_session

    def counted(*args: object, **kwargs: object) -> object:
        lookups.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(accounts_module, "find_session", counted)
    response = client.get(path, headers=HTML)
    assert response.status_code == status
    assert token_on(response.text)
    assert len(lookups) == 1


def test_templates_have_no_way_to_look_identity_up(client: TestClient) -> None:
    env = client.app.state.templates.env  # type: ignore[attr-defined]
    assert "csrf_token" not in env.globals  # a value in each page's context, not a function
    template = env.from_string("{{ csrf_field() }}")
    assert template.render(csrf_token='a"b') == (
        '<input type="hidden" name="csrf_token" value="a&#34;b">'
    )
    assert template.render() == '<input type="hidden" name="csrf_token" value="">'

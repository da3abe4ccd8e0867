"""Topic pages rendered once per topic: what each reader gets must still be their own."""

import re
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from app.content.catalog import Catalog
from app.srs import stats
from tests.conftest import ClientFactory, loopback_client

HTML = {"Accept": "text/html"}


def page(client: TestClient, slug: str = "alpha") -> str:
    answer = client.get(f"/topics/{slug}", headers=HTML)
    assert answer.status_code == 200
    return answer.text


def form_values(html: str, name: str) -> list[str]:
    return re.findall(rf'name="{name}" value="([^"]*)"', html)


def test_each_view_gets_fresh_grade_keys_one_per_card(client: TestClient) -> None:
    first, second = page(client), page(client)
    keys = form_values(first, "idempotency_key")
    cards = re.findall(r'<form method="post" action="/review/([a-z0-9-]+)"', first)
    assert keys and len(keys) == len(cards)
    per_card = dict(zip(cards, keys, strict=True))  # a card's four buttons share one key
    assert all(keys[i] == per_card[card] for i, card in enumerate(cards))
    assert len(set(per_card.values())) == len(per_card)  # no two cards share one
    assert not set(keys) & set(form_values(second, "idempotency_key"))
    assert all(len(key) <= 100 for key in keys)
    assert "\x00" not in first


def test_every_form_carries_the_readers_own_csrf_token(make_client: ClientFactory) -> None:
    alice = make_client()
    bob = loopback_client(alice.app)  # the same app, so the same pre-rendered pages
    tokens = {}
    for name, client in (("alice", alice), ("bob", bob)):
        html = page(client)
        meta = re.search(r'<meta name="csrf-token" content="([^"]+)">', html)
        assert meta
        assert set(form_values(html, "csrf_token")) == {meta.group(1)}
        tokens[name] = meta.group(1)
    assert tokens["alice"] != tokens["bob"]


def test_a_grade_button_on_the_page_grades_its_card(client: TestClient) -> None:
    html = page(client)
    token = form_values(html, "csrf_token")[0]
    key = form_values(html, "idempotency_key")[0]
    card = re.findall(r'<form method="post" action="/review/([a-z0-9-]+)"', html)[0]
    form = {"csrf_token": token, "idempotency_key": key, "rating": "3", "source": "embedded"}
    graded = client.post(f"/review/{card}", data=form, follow_redirects=False)
    assert graded.status_code == 303
    assert "% mastered: review" in page(client)


def test_drills_show_varied_numbers(client: TestClient) -> None:
    seeds = {form_values(page(client), "seed")[0] for _ in range(30)}
    assert len(seeds) > 1
    attempt = client.post(
        "/cards/alpha-drill-bytes/attempts",
        data={
            "seed": seeds.pop(),
            "answer": "1 GB",
            "csrf_token": form_values(page(client), "csrf_token")[0],
        },
        headers=HTML,
    )
    assert attempt.status_code == 200


def test_topic_mastery_agrees_with_mastery_of_all_topics(client: TestClient) -> None:
    html = page(client)
    token, key = form_values(html, "csrf_token")[0], form_values(html, "idempotency_key")[0]
    card = re.findall(r'<form method="post" action="/review/([a-z0-9-]+)"', html)[0]
    client.post(
        f"/review/{card}",
        data={"csrf_token": token, "idempotency_key": key, "rating": "4"},
        follow_redirects=False,
    )
    state = client.app.state  # type: ignore[attr-defined]
    catalog: Catalog = state.catalog
    now = datetime.now(UTC)
    with state.database.read_session() as session:
        every = stats.mastery(session, state.local_user_id, catalog, now)
        for topic in catalog.topics:
            one = stats.topic_mastery(session, state.local_user_id, topic, now)
            assert one == pytest.approx(every[topic.slug])
    assert every["alpha"] > 0


def test_a_topic_says_when_and_against_what_it_was_checked(client: TestClient) -> None:
    topic = client.get("/api/topics/alpha").json()
    assert topic["checked_on"] == "2026-11-30"
    assert topic["checked_against"] == {"NCCL": "2.28.7", "PyTorch": "2.9"}
    page = client.get("/topics/alpha").text
    assert (
        '<time datetime="2026-11-30">30 November 2026</time> against NCCL 2.28.7, PyTorch 2.9'
        in page
    )


def test_every_topic_links_to_the_errata_which_lists_the_corrections(client: TestClient) -> None:
    assert 'href="/errata"' in client.get("/topics/beta").text
    errata = client.get("/errata")
    assert errata.status_code == 200
    assert "3 findings: 1 clarified, 1 fixed, 1 rebutted." in errata.text
    assert "review-02#1" in errata.text

"""The JSON API: shapes, 404s as JSON, search, health, and the OpenAPI schema."""

from fastapi.testclient import TestClient


def test_list_topics(client: TestClient) -> None:
    topics = client.get("/api/topics").json()
    assert [t["slug"] for t in topics] == ["alpha", "beta"]
    assert topics[0] == {
        "slug": "alpha",
        "title": "Alpha topic",
        "summary": "The first fixture topic, about bandwidth.",
        "order": 1,
        "card_count": 3,
        "url": "/topics/alpha",
    }


def test_get_topic_with_cards(client: TestClient) -> None:
    topic = client.get("/api/topics/alpha").json()
    assert topic["related"] == ["beta"]
    assert topic["references"][0]["key"] == "nt"
    assert [c["id"] for c in topic["cards"]] == [
        "alpha-ring-bytes",
        "alpha-busbw",
        "alpha-drill-bytes",
    ]
    numeric = topic["cards"][1]
    assert (numeric["value"], numeric["unit"], numeric["tolerance"]) == (175, "GB/s", 0.02)
    assert len(numeric["rubric"]) == 3 and numeric["rubric"][0]["keywords"] == ["2(n-1)/n"]


def test_get_card(client: TestClient) -> None:
    card = client.get("/api/cards/beta-order").json()
    assert card["kind"] == "order" and card["topic"] == "beta"
    assert card["steps"][0] == "Find the lagging rank."  # the correct order
    assert card["value"] is None and card["followups"] == ["What if no rank lags?"]


def test_unknown_slug_and_id_are_json_404s(client: TestClient) -> None:
    for path, name in (("/api/topics/nope", "slug 'nope'"), ("/api/cards/nope", "id 'nope'")):
        response = client.get(path)
        assert response.status_code == 404
        assert response.headers["content-type"] == "application/json"
        assert name in response.json()["detail"]
    assert client.get("/api/nothing-here").json() == {"detail": "Not Found"}


def test_search_api(client: TestClient) -> None:
    body = client.get("/api/search", params={"q": "busbw"}).json()
    assert body["query"] == "busbw"
    assert {h["key"] for h in body["hits"]} >= {"alpha", "alpha-busbw"}
    hit = body["hits"][0]
    assert set(hit) == {"kind", "key", "title", "url", "topic", "snippet_html", "score"}


def test_search_api_names_the_spelling_its_hits_are_for(client: TestClient) -> None:
    exact = client.get("/api/search", params={"q": "busbw"}).json()
    assert exact["did_you_mean"] is None
    typo = client.get("/api/search", params={"q": "bussbw"}).json()
    assert typo["did_you_mean"] == "busbw" and typo["hits"] == exact["hits"]


def test_search_api_validates_the_query(client: TestClient) -> None:
    missing = client.get("/api/search")
    assert missing.status_code == 422 and missing.json()["detail"][0]["loc"] == ["query", "q"]
    long = client.get("/api/search", params={"q": "a" * 201})
    assert long.status_code == 422 and long.json()["detail"].startswith("q: at most 200")


def test_healthz(client: TestClient) -> None:
    assert client.get("/healthz").json() == {
        "status": "ok",
        "topics": 2,
        "cards": 5,
        "database": "ok",
    }


def test_openapi_documents_the_api(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/topics", "/api/topics/{slug}", "/api/cards/{card_id}", "/api/search"):
        assert "get" in paths[path], path
    assert "/healthz" in paths
    assert "/topics/{slug}" not in paths  # pages are not API

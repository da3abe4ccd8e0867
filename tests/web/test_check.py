"""POST /api/cards/{id}/check: the points a typed answer makes, and what it refuses."""

from fastapi.testclient import TestClient

from app.mock.sessions import MAX_ANSWER


def test_check_returns_points_made_with_reasons(client: TestClient) -> None:
    response = client.post(
        "/api/cards/alpha-ring-bytes/check",
        json={"answer": "a reduce scatter, then an all gather: each sends 2(N-1)/N, about 2K"},
    )
    assert response.status_code == 200
    body = response.json()
    assert body["points"] == [0, 1, 2]
    assert set(body["reasons"]) == {"0", "1", "2"}
    assert body["reasons"]["0"] == "matched “reduce scatter”, “all gather”"  # as typed
    assert body["model_available"] is False
    assert body["model"] is None


def test_check_does_not_credit_a_point_stated_in_the_negative(client: TestClient) -> None:
    response = client.post(
        "/api/cards/alpha-ring-bytes/check",
        json={"answer": "it is not a reduce-scatter followed by an all-gather"},
    )
    assert response.json()["points"] == []


def test_check_unknown_card_is_404(client: TestClient) -> None:
    response = client.post("/api/cards/no-such-card/check", json={"answer": "anything"})
    assert response.status_code == 404
    assert "no-such-card" in response.json()["detail"]


def test_check_refuses_empty_blank_and_oversized_answers(client: TestClient) -> None:
    url = "/api/cards/alpha-ring-bytes/check"
    for answer in ("", "   \n "):
        assert client.post(url, json={"answer": answer}).status_code == 422
    assert client.post(url, json={}).status_code == 422
    assert client.post(url, json={"answer": 42}).status_code == 422
    assert client.post(url, json={"answer": "x" * (MAX_ANSWER + 1)}).status_code == 422
    assert client.post(url, json={"answer": "all-gather " * (MAX_ANSWER // 11)}).status_code == 200


def test_check_asks_for_no_model_unless_one_is_configured(client: TestClient) -> None:
    response = client.post(
        "/api/cards/alpha-ring-bytes/check", json={"answer": "all-gather", "model": True}
    )
    assert response.status_code == 200
    assert response.json()["model"] is None


def test_check_names_the_mistakes_an_answer_states_in_its_own_words(client: TestClient) -> None:
    response = client.post(
        "/api/cards/alpha-ring-bytes/check",
        json={"answer": "RS then AG.\nEach GPU sends K(N−1) bytes, so it tends to 2K."},
    )
    assert response.status_code == 200
    body = response.json()
    assert body["mistakes"] == [0]
    assert body["mistake_reasons"] == {
        "0": "You said “Each GPU sends K(N−1) bytes, so it tends to 2K”"
    }
    assert body["mistake_corrections"]["0"].startswith("Saying K(N−1)")
    assert "2" not in body["points"] and "contradicted" in body["withheld"]["2"]
    # Point 1 writes (N−1)/N: "N−1" in "K(N−1)" has its words but not its formula.
    assert "(N−1)/N" in body["withheld"]["1"]
    # "RS then AG" would make point 0, but not in an answer that states a mistake: the grader
    # cannot decide it, and says so.
    assert body["points"] == [] and body["undecided"] == [0]
    assert set(body) >= {"points", "reasons", "model_available", "model", "undecided"}


def test_check_says_when_it_cannot_decide(client: TestClient) -> None:
    # "2K" alone is the point's figure and nothing else: credited, but at the bar.
    body = client.post("/api/cards/alpha-ring-bytes/check", json={"answer": "about 2K"}).json()
    assert body["points"] == [2] and body["undecided"] == [2]
    assert body["mistakes"] == [] and body["mistake_reasons"] == {}


def test_check_of_a_denied_mistake_finds_none(client: TestClient) -> None:
    body = client.post(
        "/api/cards/alpha-ring-bytes/check",
        json={"answer": "it does not send K(N-1); it is not a tree"},
    ).json()
    assert body["mistakes"] == []

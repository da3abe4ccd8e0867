"""Numeric drills over HTTP: the draw, the check, the record, and the page form."""

import re

import pytest
from fastapi.testclient import TestClient


def expected_for(client: TestClient, seed: int) -> tuple[float, dict[str, object]]:
    """Work the drill out from its drawn values, independently of the server's answer."""
    values = client.get("/api/cards/alpha-drill-bytes/draw", params={"seed": seed}).json()["values"]
    ranks, size = int(values["ranks"]), float(values["bytes"])  # type: ignore[arg-type]
    return 2 * (ranks - 1) / ranks * size / 1e9, values


def test_draw_gives_fresh_numbers_and_repeats_by_seed(client: TestClient) -> None:
    first = client.get("/api/cards/alpha-drill-bytes/draw").json()
    assert first["unit"] == "GB" and first["tolerance"] == 0.02
    assert "<p>" in first["question_html"] and "{{" not in first["question"]
    again = client.get("/api/cards/alpha-drill-bytes/draw", params={"seed": first["seed"]}).json()
    assert again == first
    seeds = {client.get("/api/cards/alpha-drill-bytes/draw").json()["seed"] for _ in range(5)}
    assert len(seeds) > 1


def test_a_fixed_numeric_card_draws_its_value(client: TestClient) -> None:
    body = client.get("/api/cards/alpha-busbw/draw").json()
    assert body["seed"] is None and body["values"] == {}


def test_draw_of_a_non_numeric_card_is_404(client: TestClient) -> None:
    response = client.get("/api/cards/alpha-ring-bytes/draw")
    assert response.status_code == 404 and "not a numeric card" in response.json()["detail"]


def test_a_correct_answer_in_another_unit_is_recorded(client: TestClient) -> None:
    expected, values = expected_for(client, 42)
    gib = expected * 1e9 / 2**30
    response = client.post(
        "/api/cards/alpha-drill-bytes/attempts",
        json={"seed": 42, "answer": f"{gib:.4f} GiB", "duration_ms": 12000},
    )
    assert response.status_code == 201
    body = response.json()
    assert body["correct"] is True and body["suggested_rating"] == 3
    assert body["expected_value"] == pytest.approx(expected)
    assert body["values"] == values and body["message"].startswith("Correct")
    assert "<math" in body["solution_html"]
    history = client.get("/api/cards/alpha-drill-bytes/attempts").json()
    assert len(history) == 1
    assert history[0]["values"] == values and history[0]["seed"] == 42
    assert history[0]["created_at"].endswith(("Z", "+00:00"))
    assert history[0]["duration_ms"] == 12000 and history[0]["answer"] == f"{gib:.4f} GiB"


def test_a_wrong_answer_gets_the_worked_solution(client: TestClient) -> None:
    expected, values = expected_for(client, 5)
    body = client.post(
        "/api/cards/alpha-drill-bytes/attempts", json={"seed": 5, "answer": f"{expected * 3} GB"}
    ).json()
    assert body["correct"] is False and body["suggested_rating"] == 1
    assert "Not quite" in body["message"] and "200% off" in body["message"]
    assert str(values["ranks"]) in body["solution"]


@pytest.mark.parametrize(
    ("body", "field", "problem"),
    [
        ({"seed": 1, "answer": ""}, "answer", "type a number"),
        ({"seed": 1, "answer": "12 parsecs"}, "answer", "unknown unit"),
        ({"seed": 1, "answer": "12 s"}, "answer", "measures seconds"),
        ({"seed": 1, "answer": "1" * 201}, "answer", "at most 200"),
        ({"answer": "12 GB"}, "seed", "seed"),
        ({"seed": -3, "answer": "12 GB"}, "seed", "seed"),
    ],
)
def test_bad_attempts_get_422_naming_the_field(
    client: TestClient, body: dict[str, object], field: str, problem: str
) -> None:
    response = client.post("/api/cards/alpha-drill-bytes/attempts", json=body)
    assert response.status_code == 422
    detail = response.json()["detail"][0]
    assert detail["loc"] == ["body", field] and problem in detail["msg"]
    assert client.get("/api/cards/alpha-drill-bytes/attempts").json() == []


def test_extra_fields_and_wrong_types_are_refused(client: TestClient) -> None:
    url = "/api/cards/alpha-drill-bytes/attempts"
    assert client.post(url, json={"answer": "1 GB", "seed": 1, "grade": 4}).status_code == 422
    assert client.post(url, json={"answer": 12, "seed": 1}).status_code == 422
    assert client.post(url, content=b"not json").status_code == 422


def test_card_page_shows_a_draw_and_a_form(client: TestClient) -> None:
    page = client.get("/cards/alpha-drill-bytes", params={"seed": 9})
    assert page.status_code == 200
    draw = client.get("/api/cards/alpha-drill-bytes/draw", params={"seed": 9}).json()
    assert f"over {draw['values']['ranks']} GPUs" in page.text
    assert (
        'name="seed" value="9"' in page.text
        and 'action="/cards/alpha-drill-bytes/attempts"' in page.text
    )
    assert "New numbers" in page.text and "/cards/alpha-drill-bytes?seed=9" in page.text


def test_topic_page_draws_its_numeric_cards(client: TestClient) -> None:
    html = client.get("/topics/alpha").text
    assert html.count('class="drill-form"') == 2  # the drill and the fixed numeric card
    assert re.search(r'name="seed" value="\d+"', html)


def test_page_form_checks_and_keeps_the_typed_text(client: TestClient) -> None:
    expected, _ = expected_for(client, 9)
    right = client.post(
        "/cards/alpha-drill-bytes/attempts", data={"seed": "9", "answer": f"{expected} GB"}
    )
    assert right.status_code == 200 and "Correct" in right.text and "is-correct" in right.text
    assert '<details class="card-answer" open>' in right.text
    wrong = client.post(
        "/cards/alpha-drill-bytes/attempts", data={"seed": "9", "answer": "12 lightyears"}
    )
    assert wrong.status_code == 422 and "unknown unit" in wrong.text
    assert 'value="12 lightyears"' in wrong.text  # nothing the user typed is lost
    assert len(client.get("/api/cards/alpha-drill-bytes/attempts").json()) == 1


def test_page_form_escapes_what_was_typed(client: TestClient) -> None:
    page = client.post(
        "/cards/alpha-busbw/attempts", data={"answer": '"><script>alert(1)</script>'}
    )
    assert page.status_code == 422 and "<script>alert(1)" not in page.text

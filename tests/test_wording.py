"""Counts agree with their nouns wherever they are shown."""

from fastapi.testclient import TestClient

from app.wording import plural


def test_one_is_singular_everything_else_plural() -> None:
    assert plural(1, "unseen card") == "1 unseen card"
    assert plural(0, "unseen card") == "0 unseen cards"
    assert plural(2, "microbatch", "microbatches") == "2 microbatches"
    assert plural(1024, "token") == "1,024 tokens"


def test_pages_count_in_the_singular_for_one(client: TestClient) -> None:
    pipeline = client.get("/labs/pipeline", params={"stages": 1, "microbatches": 1})
    assert pipeline.status_code in (200, 422)
    assert "1 stages" not in pipeline.text and "1 microbatches" not in pipeline.text
    mock = client.get("/mock")
    assert mock.status_code == 200 and "1 questions" not in mock.text

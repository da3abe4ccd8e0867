"""Every page: what a reader sees, and the helpful 404."""

from fastapi.testclient import TestClient


def test_home_lists_topics_in_order_with_card_counts(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    html = page.text
    assert html.index("Alpha topic") < html.index("Beta topic")
    assert "2 cards" in html
    assert 'href="/topics/alpha"' in html


def test_topics_index_redirects_home(client: TestClient) -> None:
    response = client.get("/topics", follow_redirects=False)
    assert response.status_code == 308 and response.headers["location"] == "/"


def test_topic_page_has_essay_math_cards_references_and_pager(client: TestClient) -> None:
    page = client.get("/topics/alpha")
    assert page.status_code == 200
    html = page.text
    assert "<math" in html and "<mfrac>" in html
    assert 'id="card-alpha-ring-bytes"' in html and "check yourself" in html
    assert "Show answer" in html and "A strong answer covers" in html
    assert 'id="ref-nt"' in html and 'href="/topics/alpha#ref-nt"' in html
    assert 'rel="next"' in html and 'href="/topics/beta"' in html and 'rel="prev"' not in html
    assert "On this page" in html and 'href="#the-ring"' in html
    assert "Related topics" in html


def test_card_answers_are_hidden_until_asked_for(client: TestClient) -> None:
    html = client.get("/topics/alpha").text
    card = html[html.index('id="card-alpha-busbw"') :]
    assert card.index("<details") < card.index("175")  # the value sits inside the closed box
    assert '<details class="card-answer" open' not in html


def test_derivation_and_order_cards(client: TestClient) -> None:
    html = client.get("/topics/beta").text
    assert "Derive it step by step (3 steps)" in html and "data-stepwise" in html
    assert 'class="order-shuffled"' in html and 'class="order-correct"' in html


def test_card_page(client: TestClient) -> None:
    page = client.get("/cards/alpha-busbw")
    assert page.status_code == 200
    assert "Numeric" in page.text and "175" in page.text and "GB/s" in page.text
    assert 'href="/topics/alpha#card-alpha-busbw"' in page.text


def test_search_page(client: TestClient) -> None:
    page = client.get("/search", params={"q": "busbw"})
    assert page.status_code == 200
    assert "<mark>busbw</mark>" in page.text.lower() or "<mark>busbw" in page.text
    assert 'href="/cards/alpha-busbw"' in page.text
    empty = client.get("/search", params={"q": "zzzz"})
    assert "Nothing matched" in empty.text
    blank = client.get("/search")
    assert blank.status_code == 200 and "every word you type must appear" in blank.text


def test_search_page_offers_the_word_meant_for_a_typo(client: TestClient) -> None:
    page = client.get("/search", params={"q": "bussbw"})
    assert page.status_code == 200
    assert "Nothing matched “bussbw”. Did you mean" in page.text
    assert '<a href="/search?q=busbw">busbw</a>' in page.text
    assert 'href="/cards/alpha-busbw"' in page.text


def test_search_page_escapes_the_query(client: TestClient) -> None:
    page = client.get("/search", params={"q": "<script>alert(1)</script>"})
    assert "<script>alert(1)</script>" not in page.text
    assert "&lt;script&gt;" in page.text


def test_search_page_refuses_an_overlong_query_with_a_message(client: TestClient) -> None:
    page = client.get("/search", params={"q": "a" * 201})
    assert page.status_code == 422 and "too long" in page.text


def test_unknown_pages_get_a_helpful_404(client: TestClient) -> None:
    for path in ("/nowhere", "/topics/nope", "/cards/nope"):
        page = client.get(path)
        assert page.status_code == 404, path
        assert "text/html" in page.headers["content-type"]
        assert "There is no page at this address" in page.text
        assert 'action="/search"' in page.text and 'href="/"' in page.text
        assert "Traceback" not in page.text


def test_static_files_and_the_math_font_are_served(client: TestClient) -> None:
    assert client.get("/static/css/app.css").status_code == 200
    font = client.get("/static/vendor/stix-two-math/STIXTwoMath-Regular.woff2")
    assert font.status_code == 200 and font.content[:4] == b"wOF2"
    assert client.get("/static/js/cards.js").status_code == 200


def test_pages_are_responsive_and_follow_the_os_theme(client: TestClient) -> None:
    html = client.get("/").text
    assert 'name="viewport"' in html and 'name="color-scheme" content="light dark"' in html
    css = client.get("/static/css/app.css").text
    assert "prefers-color-scheme: dark" in css and "@media (max-width" in css

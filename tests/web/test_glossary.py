"""The glossary page and its JSON: alphabetical, rendered, every link leading somewhere real."""

import re
import shutil
from pathlib import Path

from fastapi.testclient import TestClient

from tests.conftest import FIXTURE_CONTENT, REAL_CONTENT, ClientFactory

GLOSSARY = """\
- term: busbw
  definition: |
    algbw × $\\frac{2(N-1)}{N}$ for an all-reduce.
  see: [/topics/alpha#the-ring, /cards/alpha-busbw, /labs/collectives]
- term: algbw
  definition: Bytes over **time**.
  see: [/topics/alpha]
"""


def with_glossary(tmp_path: Path) -> Path:
    root = tmp_path / "content"
    shutil.copytree(FIXTURE_CONTENT, root)
    (root / "glossary.yml").write_text(GLOSSARY, encoding="utf-8")
    return root


def test_page_lists_terms_alphabetically_with_rendered_definitions(
    make_client: ClientFactory, tmp_path: Path
) -> None:
    client = make_client(with_glossary(tmp_path))
    page = client.get("/glossary")
    assert page.status_code == 200
    html = page.text
    assert html.index('id="algbw"') < html.index('id="busbw"')
    assert '<a href="#letter-A">A</a>' in html and '<a href="#letter-B">B</a>' in html
    assert '<h2 id="letter-A">' in html
    assert "<math" in html and "$" not in html.split('id="busbw"')[1].split("</dd>")[0]
    assert "<strong>time</strong>" in html
    assert '<a href="/topics/alpha#the-ring">Alpha topic › The ring</a>' in html
    assert 'href="/cards/alpha-busbw">card: ' in html
    assert '<a href="/labs/collectives">lab: ' in html


def test_api_returns_terms_with_resolved_links(make_client: ClientFactory, tmp_path: Path) -> None:
    client = make_client(with_glossary(tmp_path))
    response = client.get("/api/glossary")
    assert response.status_code == 200
    terms = response.json()
    assert [t["term"] for t in terms] == ["algbw", "busbw"]
    busbw = terms[1]
    assert busbw["id"] == "busbw" and busbw["definition"].startswith("algbw ×")
    assert busbw["see"][0] == {
        "href": "/topics/alpha#the-ring",
        "kind": "topic",
        "label": "Alpha topic",
        "section": "The ring",
    }
    assert [link["kind"] for link in busbw["see"]] == ["topic", "card", "lab"]


def test_without_a_glossary_file_the_page_says_so(client: TestClient) -> None:
    page = client.get("/glossary")
    assert page.status_code == 200 and "no glossary terms yet" in page.text
    assert client.get("/api/glossary").json() == []


def test_every_page_links_to_the_glossary(client: TestClient) -> None:
    assert '<a href="/glossary">Glossary</a>' in client.get("/").text


def test_the_shipped_glossary_page_and_every_link_it_shows(make_client: ClientFactory) -> None:
    client = make_client(REAL_CONTENT)
    page = client.get("/glossary")
    assert page.status_code == 200
    terms = re.findall(r'<dt id="([^"]+)"><strong>([^<]+)</strong>', page.text)
    assert len(terms) >= 40
    names = [name.casefold() for _, name in terms]
    assert names == sorted(names)
    hrefs = set(re.findall(r'<a href="(/(?:topics|cards|labs)/[^"]+)"', page.text))
    pages: dict[str, str] = {}
    for href in sorted(hrefs):
        path, _, anchor = href.partition("#")
        if path not in pages:
            response = client.get(path)
            assert response.status_code == 200, href
            pages[path] = response.text
        if anchor:
            assert f'id="{anchor}"' in pages[path], href

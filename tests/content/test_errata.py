"""The errata page's file: one line per finding, each with its outcome, no finding twice."""

from pathlib import Path

import pytest

from app.content.errata import load_errata
from app.content.loader import ContentError
from tests.conftest import FIXTURE_CONTENT


def test_entries_are_counted_by_outcome() -> None:
    errata = load_errata(FIXTURE_CONTENT)
    assert errata is not None
    assert errata.entries == 3
    assert errata.outcomes == {"fixed": 1, "rebutted": 1, "clarified": 1}
    assert [text for _, text in errata.headings] == ["Alpha", "Beta"]
    assert "<math" in errata.html  # formulas typeset as in the topics


def test_no_file_means_no_page(tmp_path: Path) -> None:
    assert load_errata(tmp_path) is None


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        ("- topics-01-02#1 fixed: no markup", "opens with **report#id**"),
        ("- **topics-01-02#1** (ignored) Not an outcome.", "outcome (ignored)"),
        ("- **topics-01-02#1** (fixed)", "opens with **report#id**"),
    ],
)
def test_a_malformed_entry_names_its_line(tmp_path: Path, line: str, fragment: str) -> None:
    (tmp_path / "ERRATA.md").write_text(f"# Errata\n\n{line}\n", encoding="utf-8")
    with pytest.raises(ContentError) as caught:
        load_errata(tmp_path)
    assert caught.value.line == 3
    assert fragment in caught.value.message


def test_a_finding_is_listed_once(tmp_path: Path) -> None:
    entry = "- **topics-09-10#9-1** (fixed) Changed. Source: a paper."
    (tmp_path / "ERRATA.md").write_text(f"{entry}\n{entry}\n", encoding="utf-8")
    with pytest.raises(ContentError, match="topics-09-10#9-1 is also at line 1"):
        load_errata(tmp_path)

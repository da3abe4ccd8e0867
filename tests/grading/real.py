"""The real catalog's word counts, for tests that grade a rubric written in the test: words
weigh what they weigh in the content the app serves."""

from pathlib import Path

from app.content.loader import load_catalog
from app.grading import Field

REAL_CONTENT = Path(__file__).resolve().parents[2] / "content"
REAL_CATALOG = load_catalog(REAL_CONTENT)
REAL_FIELD = Field.of(REAL_CATALOG)

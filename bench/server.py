"""A Ringside server for load benchmarks, with a bare `GET /bench/hello` as the baseline.

    python bench/server.py PORT DATABASE_URL

Both endpoints live in the same process, so their ratio is measured on equal terms.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import uvicorn  # noqa: E402

from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402


def main() -> None:
    port, url = int(sys.argv[1]), sys.argv[2]
    app = create_app(Settings(database_url=url))

    @app.get("/bench/hello")
    def hello() -> dict[str, bool]:
        return {"ok": True}

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()

"""A Ringside server for load benchmarks, with a bare `GET /bench/hello` as the baseline.

    python bench/server.py PORT DATABASE_URL [CONTENT_DIR]

Production settings, as `ringside serve` runs: one uvicorn worker in this process, uvloop and
httptools, no access log, logs at warning. The hello endpoint is a plain `def` route returning
a small JSON object, so it crosses the same middleware and thread pool as the app's routes and
the ratio of any route to it is the cost of that route's own work.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import uvicorn  # noqa: E402

from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from app.web.observability import uvicorn_options  # noqa: E402


def main() -> None:
    port, url = int(sys.argv[1]), sys.argv[2]
    settings = Settings(database_url=url, host="127.0.0.1", port=port)
    if len(sys.argv) > 3:
        settings = settings.model_copy(update={"content_dir": Path(sys.argv[3])})
    app = create_app(settings)

    @app.get("/bench/hello")
    def hello() -> dict[str, bool]:
        return {"ok": True}

    uvicorn.run(app, host=settings.host, port=settings.port, **uvicorn_options(settings))


if __name__ == "__main__":
    main()

"""How much rendering content once at start-up saves, measured against baselines in one run.

    python bench/pages.py [--requests 300]

Prints, for the same process and moment: a bare JSON route (/healthz, the floor), a topic page
served from pre-rendered HTML, and the cost of rendering that topic's markdown again (what a
render-per-request design would add to every page view). Compare the ratios, not the absolute
times: these machines are shared and noisy.
"""

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi.testclient import TestClient  # noqa: E402

from app.config import Settings  # noqa: E402
from app.content.loader import load_topic  # noqa: E402
from app.content.render import Renderer  # noqa: E402
from app.main import create_app  # noqa: E402


def timed(action: Callable[[], object], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(database_url=f"sqlite:///{tmp}/bench.db")
        start = time.perf_counter()
        app = create_app(settings)
        startup = time.perf_counter() - start
        topic = app.state.catalog.topics[0]
        # Local mode serves only this machine: a loopback client, to 127.0.0.1.
        loopback = {"base_url": "http://127.0.0.1:8000", "client": ("127.0.0.1", 50000)}
        with TestClient(app, **loopback) as client:  # type: ignore[arg-type]
            client.get(f"/topics/{topic.slug}")  # warm up templates
            floor = timed(lambda: client.get("/healthz"), args.requests)
            page = timed(lambda: client.get(f"/topics/{topic.slug}"), args.requests)
        renderer = Renderer()
        render = timed(lambda: load_topic(topic.path, renderer), max(20, args.requests // 10))

    def ms(samples: list[float]) -> str:
        return f"{statistics.median(samples) * 1e3:7.2f} ms"

    floor_ms = statistics.median(floor)
    print(f"start-up (load, validate, render all content; migrate): {startup * 1e3:.0f} ms")
    print(f"GET /healthz (floor)                      median {ms(floor)}  1.00x")
    print(
        f"GET /topics/{topic.slug} (pre-rendered)   median {ms(page)}  "
        f"{statistics.median(page) / floor_ms:.2f}x"
    )
    print(
        f"render {topic.path.name} from markdown       median {ms(render)}  "
        f"{statistics.median(render) / floor_ms:.2f}x  (avoided on every request)"
    )


if __name__ == "__main__":
    main()

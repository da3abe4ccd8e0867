"""How long the plan and the optimizer take, against baselines measured in the same run.

    python bench/plan.py [--requests 100]

Prints, for one process on the real content: GET /healthz (the floor), GET /api/plan when
nothing changed since the last call (kept), GET /api/plan right after a grade (made again),
and the optimizer fitting 10,000 reviews next to a bare evaluation of the same items. Targets
(issue 15): the plan under 200 ms, the fit under 10 s, on these 2-core machines.
"""

import argparse
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastapi.testclient import TestClient  # noqa: E402
from fsrs.scheduler import DEFAULT_PARAMETERS  # noqa: E402
from fsrs_rs_python import FSRS  # noqa: E402

from app.config import Settings  # noqa: E402
from app.main import create_app  # noqa: E402
from app.srs.optimizer import to_items  # noqa: E402
from bench.pages import timed  # noqa: E402
from bench.plan_simulation import BOUNDARY, TIMEZONE, simulate  # noqa: E402


def ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(Settings(database_url=f"sqlite:///{tmp}/bench.db", srs_fuzz=False))
        # Local mode serves only this machine: a loopback client, to 127.0.0.1.
        with TestClient(
            app, base_url="http://127.0.0.1:8000", client=("127.0.0.1", 50000)
        ) as client:
            loop = (date.today() + timedelta(days=21)).isoformat()
            body = {"loop_date": loop, "daily_minutes": 45}
            assert client.put("/api/plan", json=body).status_code == 200
            today = client.get("/api/review/queue").json()
            ids = [card["card_id"] for card in today["cards"]]
            floor = timed(lambda: client.get("/healthz"), args.requests)
            kept = timed(lambda: client.get("/api/plan"), args.requests)
            counter = iter(range(10**9))

            def grade_then_plan() -> float:
                key = f"k{next(counter)}"
                client.post(f"/api/review/{ids[0]}", json={"rating": 3, "idempotency_key": key})
                start = time.perf_counter()
                client.get("/api/plan")
                return time.perf_counter() - start

            remade = [grade_then_plan() for _ in range(max(10, args.requests // 5))]
    print(f"GET /healthz                    {ms(floor):8.2f} ms (floor)")
    print(f"GET /api/plan, kept             {ms(kept):8.2f} ms ({ms(kept) / ms(floor):.1f}× floor)")
    print(
        f"GET /api/plan, after a grade    {ms(remade):8.2f} ms ({ms(remade) / ms(floor):.1f}× "
        "floor; target < 200 ms)"
    )

    logs: list[tuple[str, int, object]] = []
    seed = 0
    while len(logs) < 10_000:
        logs += [
            (f"{seed}-{c}", r, t)
            for c, r, t in simulate("fsrs", days=90, minutes=90, seed=seed, topics=30).logs
        ]
        seed += 1
    items = [i.item for i in to_items(logs[:10_000], TIMEZONE, BOUNDARY)]
    model = FSRS(list(DEFAULT_PARAMETERS))
    evaluate = timed(lambda: model.evaluate(items), 3)
    fit = timed(lambda: model.compute_parameters(items), 3)
    print(f"evaluate {len(items)} items (10,000 reviews) {ms(evaluate):8.1f} ms (baseline)")
    print(
        f"fit the same items              {ms(fit):8.1f} ms "
        f"({ms(fit) / ms(evaluate):.1f}× evaluate; target < 10 s)"
    )


if __name__ == "__main__":
    main()

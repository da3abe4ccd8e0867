"""The benchmark behind `ringside bench`: each figure beside a baseline measured in the same run.

    python bench/suite.py [--duration 10] [--connections 64] [--json FILE]

Starts the app as `ringside serve` runs it (one uvicorn worker per process, the asyncio loop and
httptools, access log off, logs at warning, SQLite in a temporary folder) and loads it over
loopback with wrk: bare hello endpoints of the same server (`def` and `async def`: see
bench/server.py), a topic page, the queue API
(every card overdue: a full page of 50), the review POST and a lab POST. Prints requests/s,
p50, p99 and each route's share of hello's requests/s; memory at rest and under load;
start-up time with the ten topics and with a generated 1,000-card content set. These machines
are shared and noisy: compare the ratios of one run, not absolute figures across runs.
Without wrk the load runs are skipped.
"""

import argparse
import json
import random
import sys
import tempfile
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import insert  # noqa: E402

from app.auth.users import ensure_local_user  # noqa: E402
from app.db import Database  # noqa: E402
from app.models import CardState  # noqa: E402
from bench.loadtest import BenchServer, PeakRss, WrkResult, have_wrk, run_wrk  # noqa: E402
from bench.synthetic import write_content  # noqa: E402

RSS_LIMIT_MB = 200.0
STARTUP_LIMIT_S = 5.0
GENERATED_CARDS = 1000
# A 7B model on 8-way data parallelism with ZeRO-1 and activations: the memory lab's classic.
LAB_BODY = {
    "params": 7e9,
    "dp": 8,
    "zero_stage": 1,
    "seq_len": 4096,
    "micro_batch": 1,
    "hidden": 4096,
    "heads": 32,
    "layers": 32,
}


@dataclass(frozen=True)
class Run:
    name: str
    label: str
    result: WrkResult
    target: float | None  # minimum share of hello's requests/s


@dataclass(frozen=True)
class Startup:
    label: str
    topics: int
    cards: int
    seconds: float
    cpu_seconds: float  # with its worker processes': one core's wall time, without waiting
    rss_mb: float


def card_ids(server: BenchServer) -> list[str]:
    topics = server.get_json("/api/topics")
    return [c["id"] for t in topics for c in server.get_json(f"/api/topics/{t['slug']}")["cards"]]


def seed_backlog(database_url: str, cards: list[str]) -> None:
    """Every card reviewed before and overdue now, so the queue has a full page to show."""
    rng, now = random.Random(7), datetime.now(UTC)
    database = Database(database_url)
    rows = []
    for card_id in cards:
        stability = rng.uniform(1, 30)
        last = now - timedelta(days=stability * rng.uniform(1.2, 3))
        rows.append(
            {
                "card_id": card_id, "state": 2, "step": None, "stability": stability,
                "difficulty": rng.uniform(1, 10), "last_review": last,
                "due": last + timedelta(days=stability), "reps": 3, "lapses": 0,
            }
        )  # fmt: skip
    with database.write_session() as session:
        user_id = ensure_local_user(session).id
        session.execute(insert(CardState), [{**row, "user_id": user_id} for row in rows])
    database.dispose()


def load_runs(server: BenchServer, duration: float, connections: int) -> list[Run]:
    """Hello first and last (their mean is the baseline), the app's routes in between."""
    topics = server.get_json("/api/topics")
    pages = ",".join(f"/topics/{t['slug']}" for t in topics)
    cards = card_ids(server)
    browser = server.browser_headers()
    base = server.base

    def run(name: str, label: str, target: float | None, path: str, **wrk: object) -> Run:
        result = run_wrk(base + path, duration, connections, **wrk)  # type: ignore[arg-type]
        return Run(name, label, result, target)

    return [
        run("hello", "GET  /bench/hello (baseline, first)", None, "/bench/hello"),
        run("hello_async", "GET  /bench/hello-async", None, "/bench/hello-async"),
        run(
            "topic",
            f"GET  /topics/{{slug}}, {len(topics)} topics, as a browser",
            0.50,
            "/",
            script="paths.lua",
            script_args=(pages,),
            headers=browser,
        ),
        run("queue", f"GET  /api/review/queue, {len(cards)} overdue", 0.40, "/api/review/queue"),
        run(
            "queue_plain",
            "GET  the same queue, read the plain way",
            None,
            "/bench/plain/queue",
        ),
        run(
            "review",
            "POST /api/review/{card}, a fresh key each",
            0.15,
            "/api/review/",
            script="grade.lua",
            script_args=(",".join(cards),),
        ),
        run(
            "lab",
            "POST /api/labs/memory",
            None,
            "/api/labs/memory",
            script="post.lua",
            script_args=(json.dumps(LAB_BODY),),
        ),
        run(
            "topic_plain",
            "GET  topic pages rendered per request",
            None,
            "/",
            script="paths.lua",
            script_args=(pages.replace("/topics/", "/bench/plain/topics/"),),
            headers=browser,
        ),
        run("hello_last", "GET  /bench/hello (baseline, last)", None, "/bench/hello"),
    ]


def warm_up(server: BenchServer) -> None:
    """One request of each kind, so templates are compiled before anything is measured."""
    for topic in server.get_json("/api/topics"):
        server.get_json(f"/api/topics/{topic['slug']}")
    server.get_json("/api/review/queue")


def print_runs(runs: list[Run], hello: float) -> None:
    hello_async = next(r.result.requests_per_s for r in runs if r.name == "hello_async")
    print(f"{'':44}{'req/s':>8}{'p50 ms':>9}{'p99 ms':>9}{'× hello':>9}{'× async':>9}  target")
    for run in runs:
        r = run.result
        share = r.requests_per_s / hello
        verdict = ""
        if run.target is not None:
            ok = "ok" if share >= run.target else "MISSED"
            verdict = f"≥ {run.target:.2f}  {ok}"
        errors = f"  {r.errors:,} ERRORS" if r.errors else ""
        print(
            f"{run.label:44}{r.requests_per_s:8,.0f}{r.p50_ms:9.2f}{r.p99_ms:9.2f}"
            f"{share:9.2f}{r.requests_per_s / hello_async:9.2f}  {verdict}{errors}"
        )
    print(
        "× hello: requests/s over the mean of the two runs of the `def` hello, the baseline of\n"
        "the targets; × async: over the `async def` hello's, which skips the thread pool as the\n"
        "topic page and the queue API do"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=10, help="seconds per load run")
    parser.add_argument("--connections", type=int, default=64, help="concurrent connections")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.duration <= 0 or args.connections < 2:
        parser.error("--duration must be positive and --connections at least 2")

    wrk = have_wrk()
    print(
        f"ringside bench: wrk -t2 -c{args.connections}, {args.duration:g} s per run, loopback.\n"
        "Server: the app as `ringside serve` runs it, one uvicorn worker (the asyncio loop,\n"
        "httptools), access log off, logs at warning, SQLite (WAL) in a temporary folder.\n"
    )
    runs: list[Run] = []
    startups: list[Startup] = []
    memory: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="ringside-bench-") as tmp:
        with BenchServer(f"sqlite:///{tmp}/bench.db") as server:
            seed_backlog(f"sqlite:///{tmp}/bench.db", card_ids(server))
            topics = server.get_json("/api/topics")
            cards = sum(t["card_count"] for t in topics)
            startups.append(
                Startup(
                    "the shipped topics",
                    len(topics),
                    cards,
                    server.startup_s,
                    server.startup_cpu_s,
                    server.rss_mb(),
                )
            )
            warm_up(server)
            memory["at_rest_mb"] = server.rss_mb()
            if wrk:
                with PeakRss(server.process.pid) as peak:
                    runs = load_runs(server, args.duration, args.connections)
                memory["peak_under_load_mb"] = peak.peak_mb
                memory["after_load_mb"] = server.rss_mb()

        generated = Path(tmp) / "generated"
        topic_count, card_count = write_content(ROOT / "content", generated, GENERATED_CARDS)
        with BenchServer(f"sqlite:///{tmp}/generated.db", generated) as server:
            startups.append(
                Startup(
                    "a generated set",
                    topic_count,
                    card_count,
                    server.startup_s,
                    server.startup_cpu_s,
                    server.rss_mb(),
                )
            )

    hello = 0.0
    if runs:
        hello = sum(r.result.requests_per_s for r in runs if r.name in ("hello", "hello_last")) / 2
        print_runs(runs, hello)
    else:
        print("load runs: skipped, wrk is not installed (apt-get install wrk)")

    print()
    peak_mb = max(memory.values())
    verdict = "ok" if peak_mb < RSS_LIMIT_MB else "MISSED"
    print(
        "memory (RSS): "
        + ", ".join(
            f"{k.removesuffix('_mb').replace('_', ' ')} {v:.0f} MB" for k, v in memory.items()
        )
        + f"  (target < {RSS_LIMIT_MB:.0f} MB: {verdict})"
    )
    print(f"start-up, from exec to the first 200 from /readyz (target < {STARTUP_LIMIT_S:.0f} s):")
    for s in startups:
        ok = "ok" if s.seconds < STARTUP_LIMIT_S else "MISSED"
        print(
            f"  {s.label + ':':20} {s.topics:3} topics, {s.cards:5,} cards  {s.seconds:6.2f} s"
            f" {ok:6}  (CPU {s.cpu_seconds:.2f} s, RSS at rest {s.rss_mb:.0f} MB)"
        )

    if args.json:
        figures = {
            "hello_rps": hello,
            "hello_async_rps": next(
                (r.result.requests_per_s for r in runs if r.name == "hello_async"), 0.0
            ),
            "runs": [
                {**asdict(r.result), "name": r.name, "share": r.result.requests_per_s / hello}
                for r in runs
            ],
            "memory": memory,
            "startup": [asdict(s) for s in startups],
        }
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    failed = [r.name for r in runs if r.result.errors]
    if failed:
        print(f"errors during the load of: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

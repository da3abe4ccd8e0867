"""Review performance, each figure beside a baseline measured in the same run.

    python bench/review.py [--skip-load] [--duration 10]

1. Queue: build today's queue for a user with 10,000 card states and 100,000 review logs
   (target: under 10 ms), against the bare SQL fetch of the same rows.
2. Grading: POST /api/review/{card} from 64 concurrent connections (wrk) against a bare hello
   endpoint of the same server (target: at least 15% of hello's requests/s). Needs `wrk`
   (apt-get install wrk); skipped with a message without it.
"""

import argparse
import json
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import insert, text  # noqa: E402

from app import migrate  # noqa: E402
from app.auth.users import ensure_local_user  # noqa: E402
from app.content.catalog import CardView, Catalog, Topic  # noqa: E402
from app.content.loader import load_catalog  # noqa: E402
from app.content.schema import FrontMatter, RecallCard, Reference, RubricPoint  # noqa: E402
from app.db import Database  # noqa: E402
from app.models import CardState, ReviewLog  # noqa: E402
from app.srs import queue  # noqa: E402
from app.srs.settings import Settings  # noqa: E402

CARDS, LOGS = 10_000, 100_000
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def synthetic_catalog(count: int) -> Catalog:
    """A catalog of `count` minimal cards: the queue reads only ids, topics and kinds."""
    rubric = [RubricPoint(point=p, keywords=[p]) for p in ("a", "b", "c")]
    meta = FrontMatter(
        slug="bench",
        order=1,
        title="Bench",
        summary="s",
        references=[Reference(key="r", text="r")],
    )
    cards = tuple(
        CardView(
            card=RecallCard(
                id=f"c-{i}",
                kind="recall",
                question="q",
                answer="a",
                rubric=rubric,
                followups=["f"],
                mistakes=["m"],
                sources=["r"],
            ),  # fmt: skip
            topic_slug="bench",
            topic_title="Bench",
            line=1,
            question_html="<p>q</p>",
            answer_html=None,
            steps_html=(),
            shuffled_steps=(),
            rubric=(),
            followups_html=(),
            mistakes_html=(),
            sources=(),
            question_text="q",
            plain_text="q",
        )  # fmt: skip
        for i in range(count)
    )
    topic = Topic(meta, Path("bench.md"), (), cards, (), (), "", 0)
    return Catalog([topic])


def fill(database: Database, user_id: int) -> None:
    rng = random.Random(7)
    states, logs = [], []
    for i in range(CARDS):
        # A long-standing collection: nearly every card in review, a few relearning, and a
        # backlog (last reviews up to 120 days ago, intervals up to 200 days).
        last = NOW - timedelta(days=rng.uniform(0, 120))
        stability = rng.uniform(0.5, 200)
        states.append(
            {
                "user_id": user_id, "card_id": f"c-{i}", "state": 3 if rng.random() < 0.03 else 2,
                "step": 0, "stability": stability, "difficulty": rng.uniform(1, 10),
                "due": last + timedelta(days=stability * rng.uniform(0.5, 1.5)),
                "last_review": last, "reps": 10, "lapses": rng.randint(0, 3),
            }
        )  # fmt: skip
    for j in range(LOGS):
        moment = NOW - timedelta(days=rng.uniform(0, 365))
        snapshot = {"state": 2, "due": moment.isoformat(), "stability": 5.0, "difficulty": 5.0}
        logs.append(
            {
                "user_id": user_id, "card_id": f"c-{j % CARDS}", "rating": rng.randint(1, 4),
                "reviewed_at": moment, "duration_ms": 4000, "source": "review",
                "was_new": j < CARDS, "idempotency_key": f"k-{j}", "state_before": None,
                "state_after": snapshot, "interval_days": 3.0, "prior_interval_days": 3.0,
            }
        )  # fmt: skip
    with database.write_session() as session:
        session.execute(insert(CardState), states)
        session.execute(insert(ReviewLog), logs)


def timed_ms(action: object, repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()  # type: ignore[operator]
        samples.append((time.perf_counter() - start) * 1e3)
    return samples


def bench_queue() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        database = Database(f"sqlite:///{tmp}/bench.db")
        migrate.upgrade(database.engine)
        with database.write_session() as session:
            user_id = ensure_local_user(session).id
        fill(database, user_id)
        catalog, settings = synthetic_catalog(CARDS), Settings()

        def build() -> None:
            with database.read_session() as session:
                queue.build(session, user_id, catalog, settings, NOW, limit=50)

        def baseline() -> None:
            with database.read_session() as session:
                session.execute(
                    text("SELECT card_id, state, stability, last_review, due FROM card_states"
                         " WHERE user_id = :u"), {"u": user_id},
                ).all()  # fmt: skip

        build()
        with database.read_session() as session:
            built = queue.build(session, user_id, catalog, settings, NOW, limit=50)
        floor = statistics.median(timed_ms(baseline, 30))
        took = statistics.median(timed_ms(build, 30))
        print(
            f"queue: {CARDS:,} card states, {LOGS:,} review logs; {built.due_count} due today "
            f"(+{built.over_limit} over the daily limit); first 50 listed, as GET /api/review/queue"
        )
        print(f"  bare SQL fetch, all 10,000 states   median {floor:6.2f} ms   1.00x")
        verdict = "ok" if took < 10 else "OVER the 10 ms target"
        print(f"  queue.build            median {took:6.2f} ms   {took / floor:.2f}x  {verdict}")
        database.dispose()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wrk(url: str, duration: int, script: list[str] | None = None) -> float:
    command = ["wrk", "-t2", "-c64", f"-d{duration}s", "--latency"]
    command += script or []
    command.append(url)
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    if "Non-2xx" in output:
        raise SystemExit(f"errors during the load:\n{output}")
    match = re.search(r"Requests/sec:\s+([\d.]+)", output)
    assert match, output
    return float(match.group(1))


def bench_grading(duration: int) -> None:
    if shutil.which("wrk") is None:
        print("grading: skipped, wrk is not installed (apt-get install wrk)")
        return
    cards = ",".join(c.id for c in load_catalog(ROOT / "content").cards)
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "server.py"), str(port), f"sqlite:///{tmp}/g.db"]
        )
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(200):
                try:
                    subprocess.run(["curl", "-sf", f"{base}/healthz"], check=True,
                                   capture_output=True)  # fmt: skip
                    break
                except subprocess.CalledProcessError:
                    time.sleep(0.1)
            script = ["-s", str(ROOT / "bench" / "grade.lua"), f"{base}/api/review/x", "--", cards]
            hello = wrk(f"{base}/bench/hello", duration)
            grading = wrk("", duration, script[:2] + [script[2]] + script[3:])
            with Database(f"sqlite:///{tmp}/g.db").read_session() as session:
                logged = session.scalar(text("SELECT count(*) FROM review_logs"))
        finally:
            server.terminate()
            server.wait(timeout=10)
    share = grading / hello
    verdict = "ok" if share >= 0.15 else "UNDER the 15% target"
    print(f"grading: 64 connections, {duration} s each, one server process")
    print(f"  GET /bench/hello (baseline)     {hello:8.0f} req/s   1.00x")
    print(f"  POST /api/review/{{card}}        {grading:8.0f} req/s   {share:.2f}x  {verdict}")
    print(f"  review logs written: {logged:,}")
    print(json.dumps({"hello_rps": hello, "grade_rps": grading, "share": share}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-load", action="store_true", help="only the queue benchmark")
    parser.add_argument("--duration", type=int, default=10, help="seconds per load run")
    args = parser.parse_args()
    bench_queue()
    if not args.skip_load:
        bench_grading(args.duration)


if __name__ == "__main__":
    main()

"""The browser's scheduler (static/js/fsrs-offline.js on ts-fsrs) agrees with the server's
(py-fsrs through app.srs.scheduling) on the same cards, ratings, times and fuzz."""

import json
import random
import shutil
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from app.srs import offline, scheduling

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
RUNNER = """
const fsrs = require(process.argv[1]);
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = cases.map((c) => {
  const result = fsrs.review(c.config, c.before, c.rating, new Date(c.now), c.draw);
  return { interval: result.interval, state: result.state, label: fsrs.describe(result.interval) };
});
process.stdout.write(JSON.stringify(out));
"""


def _row(saved: dict[str, Any] | None) -> SimpleNamespace | None:
    if saved is None:
        return None
    last = saved["last_review"]
    return SimpleNamespace(
        **{
            **saved,
            "due": datetime.fromisoformat(saved["due"]),
            "last_review": datetime.fromisoformat(last) if last else None,
        }
    )


def _cases(count: int, seed: int) -> list[dict[str, Any]]:
    """Card histories graded by the server's code: random ratings after random gaps."""
    rng = random.Random(seed)
    cases = []
    for history in range(count):
        retention = rng.choice([0.8, 0.85, 0.9, 0.95])
        fuzz = rng.random() < 0.7
        config = offline.scheduler_config(retention, fuzz)
        card_id = f"card-{history}"
        saved: dict[str, Any] | None = None
        now = datetime(2026, 3, 2, 12, 0, tzinfo=UTC) + timedelta(seconds=rng.randrange(86400))
        for _ in range(rng.randrange(1, 12)):
            rating = rng.choices([1, 2, 3, 4], weights=[2, 1, 5, 2])[0]
            row = _row(saved)
            reps = row.reps if row else 0
            seed_text = scheduling.fuzz_seed(7, card_id, reps)
            outcome = scheduling.outcome(row, rating, now, retention, seed_text, fuzz)
            draw = offline.fuzz_draws(7, card_id, reps, 1)[0] if fuzz else None
            card = outcome.card
            after = {
                "state": int(card.state),
                "step": card.step,
                "stability": card.stability,
                "difficulty": card.difficulty,
                "due": card.due.isoformat(),
                "last_review": card.last_review.isoformat() if card.last_review else None,
                "reps": reps + 1,
                "lapses": (row.lapses if row else 0)
                + (1 if row is not None and row.state == 2 and rating == 1 else 0),
            }
            cases.append(
                {
                    "config": config,
                    "before": saved,
                    "rating": rating,
                    "now": now.isoformat().replace("+00:00", "Z"),
                    "draw": draw,
                    "expected": after,
                    "interval": outcome.interval.total_seconds() * 1000,
                    "label": scheduling.describe_interval(outcome.interval),
                }
            )
            saved = after
            # Sometimes on time, sometimes early, late, or within the same day.
            due = datetime.fromisoformat(after["due"])
            wait = (due - now) * rng.choice([0.3, 1.0, 1.0, 2.5]) + timedelta(
                minutes=rng.randrange(0, 180)
            )
            now = now + max(wait, timedelta(minutes=1))
    return cases


@pytest.mark.skipif(NODE is None, reason="node is not installed: apt-get install nodejs")
def test_browser_and_server_schedule_alike() -> None:
    cases = _cases(400, seed=19)
    assert len(cases) > 1500
    assert NODE is not None
    finished = subprocess.run(
        [NODE, "-e", RUNNER, str(ROOT / "static" / "js" / "fsrs-offline.js")],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    results = json.loads(finished.stdout)
    states = {(c["expected"]["state"], c["before"] is None) for c in cases}
    assert {(1, True), (1, False), (2, False), (3, False)} <= states  # every path is exercised
    for case, got in zip(cases, results, strict=True):
        expected = case["expected"]
        where = (case["before"], case["rating"], case["now"], case["draw"])
        assert got["interval"] == pytest.approx(case["interval"], abs=1), where
        assert got["label"] == case["label"], where
        state = got["state"]
        assert (state["state"], state["step"], state["reps"], state["lapses"]) == (
            expected["state"],
            expected["step"],
            expected["reps"],
            expected["lapses"],
        ), where
        # ts-fsrs caps stability at 36,500 days where py-fsrs does not; both cap the
        # interval there, so what the buttons show still agrees.
        stability = min(expected["stability"], 36500)
        assert state["stability"] == pytest.approx(stability, rel=1e-6), where
        assert state["difficulty"] == pytest.approx(expected["difficulty"], rel=1e-6), where
        # The browser keeps milliseconds; the server, microseconds.
        due = datetime.fromisoformat(state["due"].replace("Z", "+00:00"))
        assert abs(due - datetime.fromisoformat(expected["due"])) < timedelta(milliseconds=2)

"""How long start-up spends on the content, with and without the rendered-topic cache.

    python bench/startup.py [--rounds 3]

Each measurement is a fresh process that loads the real content as create_app does (parse,
render, figures, the drill check): with no cache (the baseline, as before the cache), with an
empty cache (the first start: render, then write), and with a warm cache (every later start).
The three alternate within each round, so the machine's load falls on all of them alike.
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROGRAM = """
import sys, time
from pathlib import Path
start = time.perf_counter()
from app.content.loader import load_catalog
from app.content.render import Renderer
from app.drills import check
imported = time.perf_counter()
cache = Path(sys.argv[1]) if sys.argv[1] != "-" else None
load_catalog(Path("content"), Renderer(), check=check.at_startup(), cache_dir=cache)
print(time.perf_counter() - imported)
"""


def seconds(cache: Path | None) -> float:
    argument = str(cache) if cache else "-"
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, argument],
        cwd=ROOT, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return float(done.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    none, empty, warm = [], [], []
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as folder:
            cache = Path(folder)
            none.append(seconds(None))
            empty.append(seconds(cache))
            warm.append(seconds(cache))
    base = statistics.median(none)
    print(f"content load, no cache (baseline)   {base:6.2f} s")
    print(f"content load, empty cache (writes)  {statistics.median(empty):6.2f} s")
    print(
        f"content load, warm cache            {statistics.median(warm):6.2f} s "
        f"({base / statistics.median(warm):.0f}× faster than the baseline)"
    )


if __name__ == "__main__":
    main()

"""Grade → next card in a real browser, the review page before and after local-first review.

    python bench/review_browser.py [--cards 20] [--baseline REF]

For each version of the app (REF, by default the last commit before local-first review,
taken from git into a temporary folder, and this working tree) and each mode (online, then
offline with the network cut by Playwright), a fresh server on the real content and a fresh
database with 30 extra new cards, Debian's chromium opens /review at 1280 × 800 and grades
`--cards` cards with the keys: Space shows the answer, 4 grades it Easy. The time is
performance.now() from the grade's keydown (a capturing listener registered before the
page's own) to the MutationObserver callback that sees #review-session name another card:
the next card's DOM is in the page. Prints the median and p90 of each, in one run.

Needs chromium (/usr/bin/chromium, or RINGSIDE_CHROMIUM) and Playwright. Timings depend on
the machine; the ratio between the two versions in the same run is the figure to read.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from io import BytesIO
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("RINGSIDE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
# The last commit whose review page waited for the server before showing the next card.
BEFORE_LOCAL_FIRST = "2c01682"
EXTRA_NEW_CARDS = 30
TREE = ("app", "bench", "content", "migrations", "static", "templates", "alembic.ini")

# Registered before any of the page's scripts: the grade's keydown, captured first, and the
# moment #review-session names another card.
TIMER = """
window.__grades = [];
let pressed = null;
document.addEventListener("keydown", (event) => {
  if (["1", "2", "3", "4"].includes(event.key)) {
    const card = document.getElementById("review-session")?.dataset.card;
    pressed = { at: performance.now(), card };
  }
}, true);
new MutationObserver(() => {
  const card = document.getElementById("review-session")?.dataset.card;
  if (pressed && card !== undefined && card !== pressed.card) {
    window.__grades.push(performance.now() - pressed.at);
    pressed = null;
  }
}).observe(document, {
  subtree: true, childList: true, attributes: true, attributeFilter: ["data-card"],
});
"""


def extract(ref: str, into: Path) -> Path:
    """The app as it was at `ref`, from git (nothing in this working tree changes)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", ref, *TREE],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def server(tree: Path, database: Path) -> Iterator[str]:
    """bench/server.py of `tree` (its own app package first on the path), on `tree`'s content."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [
            sys.executable,
            str(tree / "bench" / "server.py"),
            str(port),
            f"sqlite:///{database}",
            str(tree / "content"),
        ],
        cwd=tree,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/bench/hello", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server of {tree} did not start")
            time.sleep(0.1)
        response = httpx.post(f"{url}/api/review/extra", json={"new_cards": EXTRA_NEW_CARDS})
        response.raise_for_status()
        yield url
    finally:
        process.terminate()
        process.wait(10)


def wait_for(page: Any, expression: str, what: str, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise RuntimeError(f"never true: {what}")
        time.sleep(0.02)


def grade_cards(browser: Any, url: str, cards: int, offline: bool) -> list[float]:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, service_workers="block")
    context.add_init_script(TIMER)
    page = context.new_page()
    try:
        page.goto(f"{url}/review")
        # Both versions keep the server's cards on the device before they can grade offline.
        wait_for(page, "RingsideOffline.loadSnapshot().then((s) => Boolean(s))", "cards stored")
        page.wait_for_timeout(500)  # let the page's start-up requests settle
        if offline:
            context.set_offline(True)
        for n in range(cards):
            card = page.locator("#review-session").get_attribute("data-card")
            if not card:
                raise RuntimeError(f"no card to grade after {n}")
            page.keyboard.press("Escape")  # out of a numeric card's answer box
            page.keyboard.press("Space")
            page.locator("#review-session .card-answer[open]").wait_for()
            page.keyboard.press("4")
            wait_for(page, f"window.__grades.length > {n}", "the next card")
            page.wait_for_timeout(150)  # a person reads the card: the grade's sending settles
        timings: list[float] = page.evaluate("window.__grades")
        return timings
    finally:
        context.close()


def describe(timings: list[float]) -> str:
    ordered = sorted(timings)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered):6.1f} ms   p90 {p90:6.1f} ms   (n={len(ordered)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=20)
    parser.add_argument("--baseline", default=BEFORE_LOCAL_FIRST, help="git ref of the baseline")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        sys.exit(f"no chromium at {CHROMIUM}: apt-get install chromium (or set RINGSIDE_CHROMIUM)")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        temp = Path(folder)
        versions = [
            (f"before ({args.baseline})", extract(args.baseline, temp / "before")),
            ("after (this tree)", ROOT),
        ]
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        print(f"grade → next card's DOM, {args.cards} cards each, chromium at 1280 × 800")
        for mode in ("online", "offline"):
            for label, tree in versions:
                database = temp / f"{label.split()[0]}-{mode}.db"
                with server(tree, database) as url:
                    timings = grade_cards(browser, url, args.cards, mode == "offline")
                print(f"  {mode:8} {label:24} {describe(timings)}")
        browser.close()


if __name__ == "__main__":
    main()

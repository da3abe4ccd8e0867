"""Check the pinned runtime dependencies (requirements.lock) for known vulnerabilities.

    make audit

Runs pip-audit on the exact versions the Docker image installs. It needs the network (PyPI's
JSON API, where pip-audit looks advisories up): where that cannot be reached, it says so and
exits 0, so an offline machine is not a failure. A vulnerability found exits non-zero.
"""

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

LOCK = Path(__file__).resolve().parent.parent / "requirements.lock"


def pins() -> list[tuple[str, str]]:
    lines = LOCK.read_text().splitlines()
    return [tuple(line.split("==", 1)) for line in lines if "==" in line]  # type: ignore[misc]


def reachable() -> str | None:
    """None when the advisory service answers for a pinned release, else why not.

    pip-audit reads PyPI's per-release JSON (with its `vulnerabilities`); a mirror that serves
    only the project pages makes every package "not found", which says nothing about safety.
    """
    name, version = pins()[0]
    url = f"https://pypi.org/pypi/{name}/{version}/json"
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            found = json.loads(response.read())
    except (urllib.error.URLError, TimeoutError, OSError, ValueError) as error:
        return f"{url}: {getattr(error, 'reason', error)}"
    return None if "vulnerabilities" in found else f"{url} lists no vulnerabilities field"


def main() -> int:
    problem = reachable()
    if problem is not None:
        print(f"audit: skipped: the vulnerability database cannot be reached here ({problem})")
        return 0
    command = [sys.executable, "-m", "pip_audit", "--requirement", str(LOCK), "--no-deps",
               "--disable-pip", "--progress-spinner", "off", "--strict"]  # fmt: skip
    print("audit:", " ".join(command[2:]))
    return subprocess.call(command)


if __name__ == "__main__":
    raise SystemExit(main())

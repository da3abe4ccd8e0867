"""requirements.lock pins every runtime dependency the Dockerfile installs (make lock)."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_the_lock_pins_every_runtime_dependency_to_one_version() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {
        canonical(re.split(r"[\[<>=!~ ;]", d, maxsplit=1)[0]) for d in project["dependencies"]
    }
    pinned: dict[str, str] = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if line and not line.startswith("#"):
            name, sep, version = line.partition("==")
            assert sep and re.fullmatch(r"[0-9][0-9A-Za-z.+!-]*", version), line
            pinned[canonical(name)] = version
    assert wanted <= pinned.keys(), wanted - pinned.keys()
    assert "--constraint requirements.lock" in (ROOT / "Dockerfile").read_text()

"""Rendered topics kept between starts, so a restart does not parse and render them again.

Rendering every topic (markdown-it, math to MathML, highlighting, figures) and drawing its
drills takes seconds at start-up (bench/startup.py), yet between two starts the files rarely
change. A topic is kept as a pickle under a key made of everything its rendering depends on:
the file's bytes, every figure's bytes, the source of the code that renders and checks it, the
versions of the libraries that do, and the check that ran. Any change to one of them is a
different key, so a stale topic is never served: it is simply rendered again.

The cache lives in a folder of the server's own data (Settings.content_cache_dir), written
0600 like the database: a pickle is code to whoever can write it, and only the owner can.
"""

import hashlib
import logging
import os
import pickle
from collections.abc import Callable
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

logger = logging.getLogger("ringside")

# Whose code shapes a rendered, checked topic: content (parse, render, figures), labs and
# drills (the drill check draws through the labs).
_CODE = ("content", "labs", "drills")
_LIBRARIES = ("markdown-it-py", "mdit-py-plugins", "pygments", "latex2mathml", "pydantic", "pyyaml")
_FORMAT = b"ringside-topic-cache-1"


@cache
def _code_version() -> bytes:
    app = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(_FORMAT)
    for package in _CODE:
        for source in sorted((app / package).rglob("*.py")):
            digest.update(source.relative_to(app).as_posix().encode())
            digest.update(source.read_bytes())
    for name in _LIBRARIES:
        try:
            digest.update(f"{name}={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name}=none".encode())
    return digest.digest()


def keys(paths: list[Path], check: Callable[..., Any] | None) -> list[str]:
    """The name each rendered topic is kept under: it changes with anything its result depends
    on. What every topic shares (code, figures, the check) is read and hashed once."""
    shared = hashlib.sha256(_code_version())
    figures = paths[0].parent.parent / "figures" if paths else Path()
    for figure in sorted(figures.glob("*.svg")) if figures.is_dir() else []:
        shared.update(figure.name.encode())
        shared.update(figure.read_bytes())
    shared.update(_describe(check).encode())
    out = []
    for path in paths:
        digest = shared.copy()
        digest.update(str(path).encode())
        digest.update(path.read_bytes())
        out.append(digest.hexdigest())
    return out


def _describe(check: Callable[..., Any] | None) -> str:
    """A check's identity: its function and any arguments bound to it (functools.partial)."""
    if check is None:
        return "no check"
    inner = getattr(check, "func", check)
    bound = (getattr(check, "args", ()), sorted(getattr(check, "keywords", {}).items()))
    return f"{inner.__module__}.{inner.__qualname__}{bound!r}"


def read(folder: Path, name: str) -> Any | None:
    """The kept object, or None when there is none (or it cannot be read: then it is rebuilt)."""
    try:
        with (folder / f"{name}.topic").open("rb") as handle:
            return pickle.load(handle)  # noqa: S301 - our own file, owner-only (module doc)
    except FileNotFoundError:
        return None
    except Exception as error:  # a truncated or foreign file: render again
        logger.warning("content cache: ignoring %s (%s)", name, error)
        return None


def write(folder: Path, name: str, value: Any) -> None:
    """Keep `value`, atomically; a cache that cannot be written only costs time."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        partial = folder / f".{name}.{os.getpid()}.partial"
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        partial.replace(folder / f"{name}.topic")
    except OSError as error:
        logger.warning("content cache: cannot write to %s (%s)", folder, error)


def prune(folder: Path, keep: set[str]) -> None:
    """Delete kept topics no longer current, so the folder does not grow with every edit."""
    for old in folder.glob("*.topic") if folder.is_dir() else []:
        if old.stem not in keep:
            old.unlink(missing_ok=True)

"""Ringside: prepare for distributed-training interviews."""

from pathlib import Path

__version__ = "0.1.0"

#: The checkout or image root: content/, templates/, static/ and migrations/ live here.
PROJECT_ROOT = Path(__file__).resolve().parent.parent

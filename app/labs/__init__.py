"""Pure formulas behind the labs, pinned to the papers' published numbers.

Each module returns frozen dataclasses whose field names are the JSON API's (serialise with
`dataclasses.asdict`), plus `steps`: a list of `Step(label, formula, substituted, value, unit)`
for the worked derivation on the lab page. Invalid input raises `app.errors.FieldError` naming
the parameter (a ValueError whose text starts "<parameter>: "). SI units throughout: bytes,
seconds, bytes/s, FLOP/s.
"""

from app.labs._common import Step

__all__ = ["Step"]

"""LaTeX to MathML, checked: a formula that would render wrong is an error, not a page.

latex2mathml is lenient: it passes an unknown command through as text and accepts unbalanced
braces. The checks here catch both, so a typo in a formula fails `ringside content check`.
"""

import re
from functools import lru_cache

from latex2mathml.converter import convert

_UNKNOWN_COMMAND = re.compile(r">(\\[A-Za-z]+)<")


class MathError(ValueError):
    pass


def _check_braces(latex: str) -> None:
    depth = 0
    escaped = False
    for char in latex:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                raise MathError(f"unbalanced braces in ${latex}$: a '}}' closes nothing")
    if depth > 0:
        raise MathError(f"unbalanced braces in ${latex}$: {depth} '{{' never closed")


@lru_cache(maxsize=4096)
def to_mathml(latex: str, display: bool = False) -> str:
    """MathML for `latex`; raises MathError naming the problem."""
    _check_braces(latex)
    try:
        mathml: str = convert(latex, display="block" if display else "inline")
    except Exception as error:  # latex2mathml raises many exception types for bad input
        reason = type(error).__name__ if not str(error) else str(error)
        raise MathError(f"cannot typeset ${latex}$: {reason}") from None
    unknown = _UNKNOWN_COMMAND.search(mathml)
    if unknown:
        raise MathError(f"unknown LaTeX command {unknown.group(1)} in ${latex}$")
    return mathml

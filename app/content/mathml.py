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


_GREEK = {
    name: chr(code)
    for name, code in {
        "alpha": 0x3B1,
        "beta": 0x3B2,
        "gamma": 0x3B3,
        "delta": 0x3B4,
        "epsilon": 0x3B5,
        "eta": 0x3B7,
        "theta": 0x3B8,
        "lambda": 0x3BB,
        "mu": 0x3BC,
        "pi": 0x3C0,
        "rho": 0x3C1,
        "sigma": 0x3C3,
        "tau": 0x3C4,
        "phi": 0x3C6,
        "psi": 0x3C8,
        "Psi": 0x3A8,
        "Sigma": 0x3A3,
        "Delta": 0x394,
        "cdot": 0xB7,
        "times": 0xD7,
        "approx": 0x2248,
        "le": 0x2264,
        "leq": 0x2264,
        "ge": 0x2265,
        "geq": 0x2265,
        "to": 0x2192,
        "rightarrow": 0x2192,
        "infty": 0x221E,
        "sum": 0x2211,
        "ll": 0x226A,
        "gg": 0x226B,
        "neq": 0x2260,
        "lceil": 0x2308,
        "rceil": 0x2309,
        "lfloor": 0x230A,
        "rfloor": 0x230B,
    }.items()
}
_WORDS = {"log": "log", "ln": "ln", "exp": "exp", "max": "max", "min": "min", "sqrt": "√"}
_FRAC = re.compile(r"\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}")
_COMMAND = re.compile(r"\\([A-Za-z]+)")


def _group(term: str) -> str:
    return term if term.isalnum() else f"({term})"


def to_plain(latex: str) -> str:
    """A formula as readable text, for search snippets and titles: 2(N-1)K/N, not markup."""
    text = latex
    while (folded := _FRAC.sub(lambda m: f"{_group(m[1])}/{_group(m[2])}", text)) != text:
        text = folded
    text = _COMMAND.sub(lambda m: _GREEK.get(m.group(1)) or _WORDS.get(m.group(1), ""), text)
    text = re.sub(r"\\[,;:! ]", " ", text).replace("{", "").replace("}", "")
    return " ".join(text.replace("\\", "").split())


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

"""What a statement speaks of: "DP all-reduces…, TP uses…" says each thing of its own subject.

A rubric point about FSDP is not made by something said of DP, so each statement's subject
(a parallelism strategy, a ZeRO stage, a pipeline schedule, a PCIe path, a utilisation
metric) is followed: "MFU counts the recomputation" does not make a point about HFU.
"""

import re

_SUBJECT = re.compile(
    r"\b(?:zero|z)[- ]?(?P<zero>[123])(?:/(?P<zero2>[123]))?\b"
    r"|\bstages? (?P<stage>[123])(?: and (?P<stage2>[123]))?\b"
    r"|\b(?P<name>ddp|dp|tp|pp|ep|cp|sp|fsdp|1f1b|gpipe|dualpipe|pix|pxb|phb|sys|pxn)\b"
    r"|\b(?P<kind>data|tensor|pipeline|expert|context|sequence)[- ]parallel(?:ism)?\b"
    r"|\b(?P<metric>mfu|hfu|(?P<flops>model|hardware) flops utili[sz]ation)\b"
)
_KINDS = {"data": "dp", "tensor": "tp", "pipeline": "pp", "expert": "ep", "context": "cp"}
_KINDS |= {"sequence": "sp", "ddp": "dp", "fsdp": "zero3"}
_OBJECT = re.compile(
    r"\b(?:as|than|like|vs|versus|to|with|of|from|over|behind|inside|within|outside|beside)"
    r"(?:\s+(?:the|a|an|plain|pure|regular|normal|vanilla|ordinary))?\s+$"
)
_TOGETHER = re.compile(r"[\s,/&+x]*(?:and|or|vs|versus)?[\s,/&+]*")


def _subject_of(match: re.Match[str]) -> set[str]:
    if match["metric"]:
        return {"hfu" if match["flops"] == "hardware" or match["metric"] == "hfu" else "mfu"}
    if match["name"]:
        return {_KINDS.get(match["name"], match["name"])}
    if match["kind"]:
        return {_KINDS[match["kind"]]}
    numbers = [match[g] for g in ("zero", "zero2", "stage", "stage2") if match[g]]
    return {f"zero{n}" for n in numbers}


def subjects(text: str) -> list[tuple[int, frozenset[str]]]:
    """Where the text's subject changes, and to what; "PP and DP" is one subject of two."""
    out: list[tuple[int, frozenset[str]]] = []
    end = -1
    for match in _SUBJECT.finditer(text):
        names = _subject_of(match)
        if out and _OBJECT.search(text[: match.start()]):
            continue  # "the same as plain DP": DP is compared with, not spoken of
        if out and _TOGETHER.fullmatch(text[end : match.start()]):
            out[-1] = (out[-1][0], out[-1][1] | names)
        else:
            out.append((match.start(), frozenset(names)))
        end = match.end()
    return out


def entities(text: str) -> frozenset[str]:
    """Everything the text names as a subject."""
    return frozenset().union(*(names for _start, names in subjects(text)))

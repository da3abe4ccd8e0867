"""YAML that remembers where things are, so errors can name the line.

PyYAML's composer gives a node tree with positions; pydantic's errors give a path of keys and
indexes. `line_of` follows the path through the tree to the line of the field at fault.
"""

from collections.abc import Sequence
from typing import Any

import yaml

# libyaml's parser composes the same node tree with the same positions ~15x faster than the
# pure-Python one: most of start-up with a large content set (bench/suite.py).
_COMPOSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlProblem(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line  # 0-based, relative to the parsed text
        self.message = message


def parse(text: str) -> tuple[Any, yaml.Node | None]:
    """The data and its node tree; raises YamlProblem for bad YAML or a repeated key."""
    try:
        node = yaml.compose(text, Loader=_COMPOSER)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problem = error.problem or str(error)
        raise YamlProblem(mark.line if mark else 0, f"invalid YAML: {problem}") from None
    except yaml.YAMLError as error:
        raise YamlProblem(0, f"invalid YAML: {error}") from None
    if node is None:
        return None, None
    _refuse_duplicate_keys(node)
    loader = yaml.SafeLoader("")
    try:
        data = loader.construct_document(node)
    except yaml.YAMLError as error:
        raise YamlProblem(node.start_mark.line, f"invalid YAML: {error}") from None
    finally:
        loader.dispose()
    return data, node


def _refuse_duplicate_keys(node: yaml.Node) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                if key.value in seen:
                    raise YamlProblem(key.start_mark.line, f"{key.value}: appears twice")
                seen.add(key.value)
            _refuse_duplicate_keys(value)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _refuse_duplicate_keys(item)


def line_of(node: yaml.Node | None, path: Sequence[int | str]) -> int:
    """The 0-based line of the deepest node along `path` that exists."""
    if node is None:
        return 0
    line = node.start_mark.line
    for part in path:
        child: yaml.Node | None = None
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                    child, line = value, key.start_mark.line
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if 0 <= part < len(node.value):
                child = node.value[part]
                line = child.start_mark.line
        if child is None:
            break
        node = child
    return line

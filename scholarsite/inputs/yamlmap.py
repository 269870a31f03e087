"""`key: value` settings in YAML (`site.yaml`, front matter), read defensively.

Only PyYAML's safe loader is used, on a node tree composed first, so that before any value is
built: keys must be plain text and appear once, explicit tags are refused, and a value may
not expand (through aliases) beyond `MAX_NODES` nodes, which stops "billion laughs" documents.
Every problem is a diagnostic with its line; no message shows more than a short excerpt.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import yaml

from scholarsite.errors import BuildError, Diagnostic, error

MAX_NODES = 10_000
EXCERPT = 60


class Setting(NamedTuple):
    """One top-level `key: value` with the line its key is on."""

    key: str
    value: Any
    line: int


def excerpt(value: Any) -> str:
    """`repr(value)`, cut to a short excerpt for a message (never expanded in full)."""
    if isinstance(value, str | int | float | bool) or value is None:
        text = repr(value)
    else:
        text = f"a {type(value).__name__}"
    return text if len(text) <= EXCERPT else text[: EXCERPT - 1] + "…"


def read_settings(text: str, path: str, first_line: int = 1) -> list[Setting]:
    """The top-level settings of a YAML mapping whose first line is `first_line` of `path`;
    BuildError listing every problem."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise BuildError([_syntax_error(exc, path, first_line)]) from None
    if root is None:
        return []
    line = root.start_mark.line + first_line
    if not isinstance(root, yaml.MappingNode):
        raise BuildError([error(path, line, "expected key: value settings")])
    settings, problems, seen = [], [], set()
    for key_node, value_node in root.value:
        line = key_node.start_mark.line + first_line
        problem = _key_problem(key_node, seen) or _value_problem(value_node)
        if problem:
            problems.append(error(path, line, problem))
            continue
        seen.add(key_node.value)
        try:
            value = yaml.safe_load(yaml.serialize(value_node))
        except yaml.YAMLError as exc:
            problems.append(_syntax_error(exc, path, first_line))
            continue
        settings.append(Setting(key_node.value, value, line))
    if problems:
        raise BuildError(problems)
    return settings


def _syntax_error(exc: yaml.YAMLError, path: str, first_line: int) -> Diagnostic:
    """A diagnostic for YAML the safe loader rejects (syntax, an unknown tag)."""
    mark = getattr(exc, "problem_mark", None)
    line = mark.line + first_line if mark else first_line
    problem = str(getattr(exc, "problem", None) or "invalid")
    return error(path, line, f"not valid YAML: {problem[:EXCERPT]}")


def _key_problem(node: yaml.Node, seen: set[str]) -> str | None:
    """Why a key is not acceptable: not plain text, or a repeat."""
    if not isinstance(node, yaml.ScalarNode) or node.tag != "tag:yaml.org,2002:str":
        return "keys must be plain names (complex keys such as '? [a, b]' and tagged keys are not allowed)"
    if node.value in seen:
        return f"'{node.value[:EXCERPT]}' is set twice"
    return None


def _value_problem(node: yaml.Node) -> str | None:
    """Why a value is not acceptable: a custom tag, or too large once aliases are expanded."""
    for count, current in enumerate(_expanded(node), start=1):
        if count > MAX_NODES:
            return f"the value is too large (over {MAX_NODES} items once aliases are expanded)"
        if current.tag.startswith("!"):
            return f"YAML tags such as '{current.tag[:EXCERPT]}' are not allowed"
    return None


def _expanded(node: yaml.Node) -> Iterator[yaml.Node]:
    """Every node of a value, aliases expanded (each visit counted), depth first."""
    pending = [node]
    while pending:
        current = pending.pop()
        yield current
        if isinstance(current, yaml.SequenceNode):
            pending += current.value
        elif isinstance(current, yaml.MappingNode):
            pending += [part for pair in current.value for part in pair]

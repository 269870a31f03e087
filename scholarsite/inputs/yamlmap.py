"""`key: value` settings in YAML (`site.yaml`, front matter, `sources.yaml`), read defensively.

Only PyYAML's safe loader is used, composing a node tree first, so that before any value is
built: nesting is at most `MAX_DEPTH` levels (checked while composing, whose recursion would
otherwise overflow), explicit tags (`!custom`, `!!python/...`, even `!!int`) are refused,
keys must be plain text and appear once, and a value may not expand (through aliases) beyond
`MAX_NODES` nodes, which stops "billion laughs" documents. Every problem is a diagnostic at
the line it is on; no message shows more than a short excerpt.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import yaml

from scholarsite.errors import BuildError, Diagnostic, error

MAX_NODES = 10_000
MAX_DEPTH = 64
EXCERPT = 60
MAX_INT_CHARS = 30  # a year, a count, a size in bytes: far below; Python refuses over 4,300 digits


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


class Refused(yaml.MarkedYAMLError):
    """YAML that is well formed but not accepted here (too deep, an explicit tag)."""


class BoundedLoader(yaml.SafeLoader):
    """The safe loader, refusing while it composes what it would not survive or should not
    build: nesting deeper than `MAX_DEPTH` and explicit tags."""

    def __init__(self, stream: str):
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        """One node, refused at its line when it is tagged or nested too deep."""
        event = self.peek_event()
        tag = getattr(event, "tag", None)
        if tag not in (None, "!"):
            shown = tag.replace("tag:yaml.org,2002:", "!!")[:EXCERPT]
            raise Refused(
                problem=f"YAML tags such as '{shown}' are not allowed", problem_mark=event.start_mark
            )
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise Refused(
                    problem=f"nested too deeply (over {MAX_DEPTH} levels of lists and mappings)",
                    problem_mark=event.start_mark,
                )
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_bounded_int(self, node: yaml.ScalarNode) -> int:
        """An integer, refused at its line when it is written with more than `MAX_INT_CHARS`
        characters (no setting needs one; Python refuses to convert over 4,300 digits)."""
        if len(str(node.value)) > MAX_INT_CHARS:
            raise Refused(
                problem=f"an integer of {len(str(node.value))} characters: expected at most {MAX_INT_CHARS}",
                problem_mark=node.start_mark,
            )
        return int(self.construct_yaml_int(node))


BoundedLoader.add_constructor("tag:yaml.org,2002:int", BoundedLoader.construct_bounded_int)


def read_settings(text: str, path: str, first_line: int = 1) -> list[Setting]:
    """The top-level settings of a YAML mapping whose first line is `first_line` of `path`;
    BuildError listing every problem."""
    loader = BoundedLoader(text)
    try:
        root = loader.get_single_node()
    except yaml.YAMLError as exc:
        raise BuildError([_syntax_error(exc, path, first_line)]) from None
    finally:
        loader.dispose()
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
            value = loader.construct_document(value_node)
        except yaml.YAMLError as exc:
            problems.append(_syntax_error(exc, path, first_line))
            continue
        settings.append(Setting(key_node.value, value, line))
    if problems:
        raise BuildError(problems)
    return settings


def _syntax_error(exc: yaml.YAMLError, path: str, first_line: int) -> Diagnostic:
    """A diagnostic at the line of the problem for YAML the loader rejects (syntax, a tag,
    nesting)."""
    mark = getattr(exc, "problem_mark", None)
    line = mark.line + first_line if mark else first_line
    problem = str(getattr(exc, "problem", None) or "invalid")
    if isinstance(exc, Refused):
        return error(path, line, problem)
    return error(path, line, f"not valid YAML: {problem[:EXCERPT]}")


def _key_problem(node: yaml.Node, seen: set[str]) -> str | None:
    """Why a key is not acceptable: not plain text, or a repeat."""
    if not isinstance(node, yaml.ScalarNode) or node.tag != "tag:yaml.org,2002:str":
        return "keys must be plain names (complex keys such as '? [a, b]' and tagged keys are not allowed)"
    if node.value in seen:
        return f"'{node.value[:EXCERPT]}' is set twice"
    return None


def _value_problem(node: yaml.Node) -> str | None:
    """Why a value is not acceptable: too large once aliases are expanded."""
    for count, _ in enumerate(_expanded(node), start=1):
        if count > MAX_NODES:
            return f"the value is too large (over {MAX_NODES} items once aliases are expanded)"
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

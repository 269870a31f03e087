"""`key: value` settings in YAML (`site.yaml`, front matter, `sources.yaml`), read defensively.

Only PyYAML's safe loader is used, composing a node tree first, so that before any value is
built: nesting is at most `MAX_DEPTH` levels (checked while composing, whose recursion would
otherwise overflow), explicit tags (`!custom`, `!!python/...`, even `!!int`) are refused,
keys must be plain text and appear once in every mapping, and aliases may not add more than
`MAX_EXPANSION` nodes to a value, which stops "billion laughs" documents (a file's own nodes
are not counted: its size is bounded by the size of the file). A plain scalar typed as a date
or a number that is none (`2025-02-30`, `0000-00-00`, `0x_`), on which PyYAML's constructors
raise a bare ValueError, is refused at its line. Every problem is a diagnostic at the line it
is on; no message shows more than a short excerpt.

Large files (`sources.yaml` of 100,000 papers, when `inputs.blockyaml`'s quicker reader cannot
take them) are composed by libyaml (`CSafeLoader`) when it is installed and the text cannot hold
what only the Python loader checks while composing: no anchor, alias, tag or flow collection can
start a node, and a bound on the nesting computed from the text (the indentation and block
indicators opening each line, see `plain`) is within `MAX_DEPTH` (libyaml's composer recurses in
C and crashes on deep nesting). Any other text goes through the checking Python loader; both
build the same values.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from scholarsite.errors import BuildError, Diagnostic, error
from scholarsite.inputs.setting import EXCERPT, Setting, excerpt

MAX_EXPANSION = 10_000  # nodes that aliases may add to a value
MAX_DEPTH = 64
# Where an anchor (&a), alias (*a), tag (!t) or flow collection ([, {) could start a node: at a
# line's start or after a space or an indicator. Titles such as "R&D" or "Yes!" do not match.
NODE_START_RE = re.compile(r"(?<![^\s\[\]{},:?-])[&*!\[{]")
# A line's indentation with the block indicators that open nodes on it (`- - `, `? `).
LEADING_RE = re.compile(r"^[ ]*(?:[-?](?:[ ]+|$))*", re.MULTILINE)
CLoader = getattr(yaml, "CSafeLoader", None)
MAX_INT_CHARS = 30  # a year, a count, a size in bytes: far below; Python refuses over 4,300 digits
DATE_ONLY_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # a timestamp with no time
QUOTE_IT = "or text in quotes"  # what a plain scalar typed as a date or number that is none may be


class Refused(yaml.MarkedYAMLError):
    """YAML that is well formed but not accepted here (too deep, an explicit tag)."""


class UniqueKeys:
    """A constructor refusing a mapping that has a key twice (PyYAML keeps the last silently),
    at the line of the repeat."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """The mapping of a node; Refused at the second occurrence of a key."""
        mapping = super().construct_mapping(node, deep)  # type: ignore[misc]
        if len(mapping) < len(node.value):
            seen: set[tuple[str, str]] = set()
            for key_node, _ in node.value:
                name = (key_node.tag, str(key_node.value))
                if name in seen:
                    shown = excerpt(key_node.value)
                    raise Refused(problem=f"{shown} is set twice", problem_mark=key_node.start_mark)
                seen.add(name)
        return mapping


class BoundedInts:
    """A constructor refusing integers no setting needs."""

    def construct_bounded_int(self, node: yaml.ScalarNode) -> int:
        """An integer, refused at its line when it is written with more than `MAX_INT_CHARS`
        characters (no setting needs one; Python refuses to convert over 4,300 digits)."""
        if len(str(node.value)) > MAX_INT_CHARS:
            raise Refused(
                problem=f"an integer of {len(str(node.value))} characters: expected at most {MAX_INT_CHARS}",
                problem_mark=node.start_mark,
            )
        try:
            return int(self.construct_yaml_int(node))
        except ValueError:  # `0x_`, `0b_`: the resolver's pattern, no digits
            raise Refused(
                problem=f"not a number: {written(node)} (expected digits after its prefix, {QUOTE_IT})",
                problem_mark=node.start_mark,
            ) from None


class CheckedDates:
    """A constructor refusing a plain scalar written as a date that is none (`2025-02-30`,
    `0000-00-00`, an hour of 25), which PyYAML's constructor fails on with a ValueError."""

    def construct_checked_timestamp(self, node: yaml.ScalarNode) -> Any:
        """A date (or date and time), refused at its line when it is not a real one."""
        try:
            return self.construct_yaml_timestamp(node)  # type: ignore[attr-defined]
        except (ValueError, OverflowError):
            if DATE_ONLY_RE.fullmatch(str(node.value)):
                problem = f"not a date: {written(node)} (expected a real date as YYYY-MM-DD, {QUOTE_IT})"
            else:
                problem = f"not a date and time: {written(node)} (expected a real one as YYYY-MM-DD HH:MM:SS)"
            raise Refused(problem=problem, problem_mark=node.start_mark) from None


def written(node: yaml.ScalarNode) -> str:
    """A scalar's text as written, cut to a short excerpt for a message."""
    text = str(node.value)
    return text if len(text) <= EXCERPT else text[: EXCERPT - 1] + "…"


class BoundedLoader(UniqueKeys, BoundedInts, CheckedDates, yaml.SafeLoader):
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


BoundedLoader.add_constructor("tag:yaml.org,2002:int", BoundedInts.construct_bounded_int)
BoundedLoader.add_constructor("tag:yaml.org,2002:timestamp", CheckedDates.construct_checked_timestamp)


if CLoader is not None:

    class FastLoader(UniqueKeys, BoundedInts, CheckedDates, CLoader):  # type: ignore[misc, valid-type]
        """libyaml's safe loader, refusing repeated keys, huge integers and dates that are none;
        only for `plain` text."""

    FastLoader.add_constructor("tag:yaml.org,2002:int", BoundedInts.construct_bounded_int)
    FastLoader.add_constructor("tag:yaml.org,2002:timestamp", CheckedDates.construct_checked_timestamp)


def plain(text: str) -> bool:
    """No node of the text can be an anchor, alias, tag or flow collection, and its nesting
    is bounded within MAX_DEPTH. Without flow collections, a block level starts on a new,
    further indented line (at most two levels a column: a sequence may share its key's
    column) or after a `- ` or `? ` on its line, each taking columns too; a `key: ` adds one
    level more. So twice the widest run of spaces and those indicators opening a line, plus
    two, bounds the depth."""
    if NODE_START_RE.search(text):
        return False
    widest = max(map(len, LEADING_RE.findall(text)), default=0)
    return 2 * widest + 4 <= MAX_DEPTH


def loader_of(text: str) -> yaml.SafeLoader:
    """The fast loader when it is installed and the text is `plain`, else the checking one."""
    if CLoader is not None and plain(text):
        return FastLoader(text)
    return BoundedLoader(text)


def read_settings(
    text: str, path: str, first_line: int = 1, key_lines: dict[str, dict[str, int]] | None = None
) -> list[Setting]:
    """The top-level settings of a YAML mapping whose first line is `first_line` of `path`;
    BuildError listing every problem. `key_lines`, when given, gets the line of each key of
    every setting whose value is a mapping (by setting)."""
    loader = loader_of(text)
    try:
        root = loader.get_single_node()
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
        aliased = isinstance(loader, BoundedLoader)  # the fast loader's text has no alias
        problem = _key_problem(key_node, seen) or (_value_problem(value_node) if aliased else None)
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
        if key_lines is not None:
            key_lines[key_node.value] = _key_lines(value_node, first_line)
    loader.dispose()
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
    """Why a value is not acceptable: aliases expand it by more than MAX_EXPANSION nodes."""
    if _added_by_aliases(node) > MAX_EXPANSION:
        return f"the value is too large (aliases expand it by over {MAX_EXPANSION} items)"
    return None


def _added_by_aliases(root: yaml.Node) -> int:
    """How many nodes a value has once aliases are expanded, beyond its distinct nodes.

    Each distinct node's expanded size is computed once (children first, without recursion),
    so a billion-laughs document is measured in time linear in its text."""
    sizes: dict[int, int] = {}
    pending: list[tuple[yaml.Node, bool]] = [(root, False)]
    while pending:
        node, ready = pending.pop()
        if id(node) in sizes:
            continue
        children = _children(node)
        if ready:
            sizes[id(node)] = 1 + sum(sizes[id(child)] for child in children)
        else:
            pending.append((node, True))
            pending += [(child, False) for child in children if id(child) not in sizes]
    return sizes[id(root)] - len(sizes)


def _children(node: yaml.Node) -> list[yaml.Node]:
    """The nodes directly under a node."""
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _key_lines(node: yaml.Node, first_line: int) -> dict[str, int]:
    """The line of each plain key of a mapping node (none for other nodes)."""
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {
        str(key.value): key.start_mark.line + first_line
        for key, _ in node.value
        if isinstance(key, yaml.ScalarNode)
    }

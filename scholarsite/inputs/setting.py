"""One top-level `key: value` setting as the build takes it, and how a message quotes a value:
what the YAML reader (`yamlmap`) makes and its memo (`yamlsettings`) keeps, without PyYAML."""

from __future__ import annotations

from typing import Any, NamedTuple

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

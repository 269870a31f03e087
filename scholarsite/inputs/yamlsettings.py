"""Top-level `key: value` settings of a YAML text as the build takes them, and a memo of them.

A text read before (site.yaml, a page's front matter) has its settings from the build's memo,
so PyYAML and the checking reader (`yamlmap`, 17 ms to import) are loaded only for a text that
changed. Settings are kept as JSON, and only when JSON gives each value back as it is: a text
with a date, a key that is not text or a value shared through an alias is read each time.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from scholarsite.inputs.setting import Setting

if TYPE_CHECKING:
    from scholarsite.inputs.memo import Memo

NOT_KEPT = ""  # the memo's entry for settings JSON would not give back as they are


def read_settings(text: str, path: str, first_line: int = 1) -> list[Setting]:
    """`yamlmap.read_settings`, that module (and PyYAML) loaded by the first call."""
    from scholarsite.inputs.yamlmap import read_settings

    return read_settings(text, path, first_line)


def remembered_settings(text: str, path: str, memo: Memo | None, first_line: int = 1) -> list[Setting]:
    """The settings of a YAML text whose first line is `first_line` of `path` (`read_settings`:
    BuildError listing every problem), from `memo` when it read the same text before."""
    if memo is None:
        return read_settings(text, path, first_line)
    read: list[list[Setting]] = []

    def kept(source: str) -> str:
        read.append(read_settings(source, path, first_line))
        return kept_json(read[0])

    found = memo.text(f"yaml settings from line {first_line}", kept, text)
    if read:
        return read[0]
    if found == NOT_KEPT:
        return read_settings(text, path, first_line)
    return [Setting(key, value, line) for key, value, line in json.loads(found)]


def kept_json(settings: list[Setting]) -> str:
    """The settings as JSON, or NOT_KEPT when JSON would not give them back as they are."""
    seen: set[int] = set()
    if not all(same_from_json(value, seen) for _, value, _ in settings):
        return NOT_KEPT
    return json.dumps([list(setting) for setting in settings])


def same_from_json(value: Any, seen: set[int]) -> bool:
    """Whether JSON gives `value` back equal, of the same types, and with no list or mapping
    that is also elsewhere in it (`seen`: those met so far)."""
    if value is None or type(value) in (str, int, float, bool):
        return True
    if type(value) not in (list, dict) or id(value) in seen:
        return False
    seen.add(id(value))
    if isinstance(value, list):
        return all(same_from_json(item, seen) for item in value)
    return all(type(key) is str and same_from_json(item, seen) for key, item in value.items())

"""The JSON text of the site's bookkeeping (the manifest, the stats record), member by member.

Both are objects of short arrays, one member a file of the site, rewritten by every sync though
a save changes few of them: each member's text is remembered, so a sync after a change writes
a manifest of 100,000 files by joining texts, not by encoding them all again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import lru_cache

REMEMBERED_MEMBERS = 2**18  # a large site's files, in a process that builds again (the preview)


@lru_cache(maxsize=REMEMBERED_MEMBERS)
def member_text(name: str, value: tuple[str | int, ...]) -> str:
    """One member, `"name":[...]`, as `json.dumps` writes it without spaces."""
    return f"{json.dumps(name)}:{json.dumps(list(value), separators=(',', ':'))}"


def object_text(members: Mapping[str, Iterable[str | int]]) -> str:
    """`json.dumps(members, separators=(",", ":"), sort_keys=True)` for an object whose members
    are arrays of strings and integers (names sorted: the text depends on the values alone)."""
    return "{" + ",".join(member_text(name, tuple(members[name])) for name in sorted(members)) + "}"

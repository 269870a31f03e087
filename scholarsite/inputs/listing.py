"""A folder's names, listed once while the folder stays the same (the seeds of a preview that
builds again on every save: 15,000 names take 50 ms to list, sort and sort out).

A folder's mtime changes whenever a name in it is added, removed or renamed. The clock that
stamps it is coarse, so a change in the same tick as the last one can keep the mtime: a listing
is kept only when the folder's last change was well before it was taken (git's "racily clean"
rule).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import NamedTuple

SETTLED_NS = 3 * 10**9  # a folder changed this recently may change again unseen by its mtime


class Name(NamedTuple):
    """A name in a folder, and whether it is a folder itself (a symlink is not)."""

    name: str
    is_dir: bool


_kept: dict[str, tuple[tuple[int, int, int], tuple[Name, ...]]] = {}  # by folder: its identity, its names


def sorted_names(folder: Path) -> tuple[Name, ...]:
    """The names in `folder` (OSError as `os.scandir` raises it), sorted; the same tuple again
    while the folder is unchanged."""
    where = str(folder)
    stat = os.stat(where)
    identity = (stat.st_dev, stat.st_ino, stat.st_mtime_ns)
    kept = _kept.get(where)
    if kept is not None and kept[0] == identity:
        return kept[1]
    listed_at = time.time_ns()
    with os.scandir(where) as listing:  # entries know if they are folders: no stat each
        names = tuple(sorted(Name(entry.name, entry.is_dir(follow_symlinks=False)) for entry in listing))
    if stat.st_mtime_ns < listed_at - SETTLED_NS:
        _kept[where] = (identity, names)
    else:
        _kept.pop(where, None)
    return names

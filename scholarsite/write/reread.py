"""Files of site/ that one build reads more than once (the manifest, the stats record): parsed
once while the file stays the same one. Both are only ever replaced whole, by a rename, so a
new version is a new inode; size and mtime guard the rest."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

Parsed = TypeVar("Parsed")
_kept: dict[str, tuple[tuple[int, ...], Any]] = {}  # by parser name: the file's identity, what it held


def parsed_once(path: str, parse: Callable[[bytes], Parsed]) -> Parsed:
    """`parse` of the bytes of the file at `path`, from the last reading while the file is the
    same; FileNotFoundError when there is none. Never change what it returns: copy it."""
    stat = os.stat(path)
    identity = (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)
    name = f"{parse.__module__}.{parse.__qualname__}"
    kept = _kept.get(name)
    if kept is None or kept[0] != identity:
        kept = _kept[name] = (identity, parse(Path(path).read_bytes()))
    return kept[1]

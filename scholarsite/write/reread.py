"""A file of site/ that one build reads more than once (the manifest): parsed once while the
file stays the same one. It is only ever replaced whole, by a rename, so a new version is a new
inode; size and mtime guard the rest."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

Parsed = TypeVar("Parsed")
_kept: dict[str, tuple[tuple[int, ...], Any]] = {}  # by parser name: the file's identity, what it held


def identity_of(path: str) -> tuple[int, ...]:
    """What tells one version of a file from another: device, inode, size, mtime."""
    stat = os.stat(path)
    return stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns


def name_of(parse: Callable[[bytes], Any]) -> str:
    """The name a parser's results are kept under."""
    return f"{parse.__module__}.{parse.__qualname__}"


def parsed_once(path: str, parse: Callable[[bytes], Parsed]) -> Parsed:
    """`parse` of the bytes of the file at `path`, from the last reading while the file is the
    same; FileNotFoundError when there is none. Never change what it returns: copy it."""
    identity = identity_of(path)
    kept = _kept.get(name_of(parse))
    if kept is None or kept[0] != identity:
        kept = _kept[name_of(parse)] = (identity, parse(Path(path).read_bytes()))
    return kept[1]


def written(path: str, parse: Callable[[bytes], Parsed], value: Parsed) -> None:
    """The file at `path`, just written by this process, holds what `parse` would make `value`
    of: kept as its parse, so that reading it back costs a `stat` (a manifest of 124,000 files
    takes seconds to parse). Never change `value` afterwards."""
    _kept[name_of(parse)] = (identity_of(path), value)

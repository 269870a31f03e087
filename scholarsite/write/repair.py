"""Finding the files of site/ that were changed or damaged since the build wrote them.

The manifest holds the sha256 of every file the build owns. Hashing the whole site on every
build would cost more than the no-change build itself, so a record beside the manifest
(`statsrecord`) keeps, for each file last found intact, its size, mtime, ctime and inode with
that digest: a file whose stat still matches is taken as intact unread, and only the others are
hashed, in chunks. A file whose bytes no longer match is rewritten by the next build, even
when the inputs are unchanged.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterable, Mapping

from scholarsite.write import statsrecord
from scholarsite.write.statsrecord import Stat

CHUNK = 2**20


def damaged(root: str, entries: Mapping[str, tuple[str, str]], files: Mapping[str, bool]) -> set[str]:
    """The paths of `entries` (path -> (key, sha256)) that are regular files in site/ (`files`:
    path -> is a symlink, as listed) whose bytes no longer match their digest."""
    record = statsrecord.read(root, entries.keys())
    learned: dict[str, Stat] = {}
    found: set[str] = set()
    for path, (_, sha) in entries.items():
        if files.get(path) is not False or not sha:  # missing or a symlink: planned as missing anyway
            continue
        full = os.path.join(root, path)
        try:
            now = (*stat_of(full), sha)
            if record.get(path) == now:
                continue
            intact = sha256_of(full) == sha
        except OSError:
            intact = False
        if intact:
            learned[path] = now
        else:
            found.add(path)
    forgotten = [path for path in found if path in record]
    if learned or forgotten:
        statsrecord.record(root, learned, forgotten)
    return found


def remember(
    root: str, entries: Mapping[str, tuple[str, str]], written: Iterable[str], removed: Iterable[str]
) -> None:
    """Record the stat of the files a sync just wrote (`entries`: the new manifest's) and
    forget those it `removed`."""
    found: dict[str, Stat] = {}
    for path in written:
        with contextlib.suppress(OSError):
            found[path] = (*stat_of(os.path.join(root, path)), entries[path][1])
    forgotten = list(removed)
    if found or forgotten:
        statsrecord.record(root, found, forgotten)


def stat_of(path: str) -> tuple[int, int, int, int]:
    """What changes when a file's bytes are changed in place or replaced."""
    st = os.stat(path, follow_symlinks=False)
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


def sha256_of(path: str) -> str:
    """The sha256 of a file, read in chunks (never whole)."""
    summary = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(CHUNK):
            summary.update(block)
    return summary.hexdigest()

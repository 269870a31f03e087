"""Finding the files of site/ that were changed or damaged since the build wrote them.

The manifest holds the sha256 of every file the build owns. Hashing the whole site on every
build would cost more than the no-change build itself, so a record beside the manifest
(`STATS`) keeps, for each file last found intact, its size, mtime, ctime and inode with that
digest: a file whose stat still matches is taken as intact unread, and only the others are
hashed, in chunks. A file whose bytes no longer match is rewritten by the next build, even
when the inputs are unchanged.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterable, Mapping

from scholarsite.inputs.jsondata import loads_checked
from scholarsite.outputs.registry import STATS, TMP_PREFIX
from scholarsite.write.objecttext import object_text
from scholarsite.write.reread import parsed_once, written

CHUNK = 2**20
Record = dict[str, list[int | str]]  # path -> [size, mtime_ns, ctime_ns, inode, sha256]


def damaged(root: str, entries: Mapping[str, tuple[str, str]], files: Mapping[str, bool]) -> set[str]:
    """The paths of `entries` (path -> (key, sha256)) that are regular files in site/ (`files`:
    path -> is a symlink, as listed) whose bytes no longer match their digest."""
    record = read_record(root)
    learned, found = False, set()
    for path, (_, sha) in entries.items():
        if files.get(path) is not False or not sha:  # missing or a symlink: planned as missing anyway
            continue
        full = os.path.join(root, path)
        try:
            now = [*stat_of(full), sha]
            if record.get(path) == now:
                continue
            intact = sha256_of(full) == sha
        except OSError:
            intact = False
        if intact:
            record[path], learned = now, True
        else:
            found.add(path)
            learned = record.pop(path, None) is not None or learned
    if learned:
        save_record(root, record)
    return found


def remember(root: str, entries: Mapping[str, tuple[str, str]], written: Iterable[str]) -> None:
    """Record the stat of the files a sync just wrote (`entries`: the new manifest's); the
    record is written again only when this changed it."""
    record = read_record(root)
    gone = record.keys() - entries.keys()
    for path in gone:
        del record[path]
    changed = bool(gone)
    for path in written:
        with contextlib.suppress(OSError):
            now = [*stat_of(os.path.join(root, path)), entries[path][1]]
            if record.get(path) != now:
                record[path], changed = now, True
    if changed:
        save_record(root, record)


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


def read_record(root: str) -> Record:
    """The record, or an empty one when it is missing or damaged (every file is then hashed).
    A sync asks twice (`damaged`, then `remember`): the second costs a `stat` (`reread`)."""
    try:
        return dict(parsed_once(os.path.join(root, STATS), parse_record))
    except OSError:
        return {}


def parse_record(raw: bytes) -> Record:
    """The record a file holds; an empty one when it is damaged. Read by orjson: a value
    that is not what `remember` writes only fails to match a file's stat (it is then hashed)."""
    try:
        body = loads_checked(raw)
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def save_record(root: str, record: Record) -> None:
    """Write the record through a temporary file and a rename (none when it is empty). It only
    saves work: when it cannot be written (site/ deleted meanwhile, a read-only disk), the next
    build hashes what it would have vouched for."""
    with contextlib.suppress(OSError):
        if not record:
            os.unlink(os.path.join(root, STATS))
            return
        temporary = os.path.join(root, TMP_PREFIX + STATS)
        with open(temporary, "w", encoding="ascii") as handle:
            handle.write(object_text(record))
        os.replace(temporary, os.path.join(root, STATS))
        written(os.path.join(root, STATS), parse_record, dict(record))

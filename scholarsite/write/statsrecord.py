"""The stats record beside the manifest (`site/.scholarsite-stats.sqlite`): for each file the
build owns that was last found intact, its size, mtime, ctime and inode with its sha256 (see
`repair`), one SQLite row a file.

Read and written row by row: a sync records the stat of the files it wrote and forgets those it
removed, without the record of every other file. (It was one JSON object, parsed and written
again whole by every sync that changed the site: 0.3 s and, for the moment it was parsed, 250 MB
of an edit at 37,537 papers.) It only saves work: a record that cannot be read (damaged, planted,
of another layout) is taken as empty, so every file is hashed, and it is made anew at the next
write. Its journal is kept in memory (`journal_mode=MEMORY`), so no other file of the build's
appears in site/: a write cut short may damage the record, which is then as if empty.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Collection, Iterable, Mapping

from scholarsite.inputs.sqlitefile import batched
from scholarsite.outputs.registry import LEGACY_STATS, STATS

Stat = tuple[int, int, int, int, str]  # size, mtime_ns, ctime_ns, inode, sha256
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS stats (path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL,"
    " ctime INTEGER NOT NULL, inode INTEGER NOT NULL, sha TEXT NOT NULL) WITHOUT ROWID"
)
FEW = 2000  # paths asked for one by one (in batches); more: the whole record is read


def connected(root: str, *, making: bool = False) -> sqlite3.Connection | None:
    """A connection to the record of the site at `root`; None when there is none (and it is not
    `making` one), or it is not a record of this layout."""
    path = os.path.join(root, STATS)
    if not making and not os.path.isfile(path):
        return None
    try:
        db = sqlite3.connect(path, timeout=30, isolation_level=None)
    except sqlite3.Error:
        return None
    try:
        db.execute("PRAGMA journal_mode = MEMORY")
        db.execute("PRAGMA synchronous = OFF")
        db.execute(SCHEMA)
    except sqlite3.Error:
        db.close()
        return None
    return db


def read(root: str, paths: Collection[str] | None = None) -> dict[str, Stat]:
    """The record's rows, by path (of `paths` only, when given); none when it cannot be read."""
    db = connected(root)
    if db is None:
        return {}
    try:
        if paths is not None and len(paths) <= FEW:
            query = "SELECT path, size, mtime, ctime, inode, sha FROM stats WHERE path IN ({marks})"
            rows = batched(db, query, list(paths))
        else:
            rows = db.execute("SELECT path, size, mtime, ctime, inode, sha FROM stats")
        return {path: (size, mtime, ctime, inode, sha) for path, size, mtime, ctime, inode, sha in rows}
    except sqlite3.Error:
        return {}
    finally:
        db.close()


def sizes(root: str) -> dict[str, int]:
    """The size of each file the record holds, by path; none when it cannot be read."""
    db = connected(root)
    if db is None:
        return {}
    try:
        return dict(db.execute("SELECT path, size FROM stats"))
    except sqlite3.Error:
        return {}
    finally:
        db.close()


def record(root: str, found: Mapping[str, Stat], forgotten: Iterable[str] = ()) -> None:
    """Record the stat of the files `found` and forget those `forgotten`, in one transaction
    (the JSON record an earlier version left removed); a record that cannot be written is made
    anew. When even that fails (site/ deleted meanwhile, a read-only disk), nothing is
    recorded: the next build hashes what it would have vouched for."""
    with contextlib.suppress(OSError):
        os.unlink(os.path.join(root, LEGACY_STATS))
    if not written(root, found, forgotten):
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(root, STATS))
        written(root, found, forgotten)


def written(root: str, found: Mapping[str, Stat], forgotten: Iterable[str]) -> bool:
    """Whether the record took these rows (see `record`); a record left empty is removed."""
    db = connected(root, making=True)
    if db is None:
        return False
    try:
        with db:
            db.execute("BEGIN")
            db.executemany("DELETE FROM stats WHERE path = ?", ((path,) for path in forgotten))
            db.executemany("INSERT OR REPLACE INTO stats VALUES (?, ?, ?, ?, ?, ?)", rows_of(found))
        empty = db.execute("SELECT NOT EXISTS (SELECT 1 FROM stats)").fetchone()[0]
    except sqlite3.Error:
        return False
    finally:
        db.close()
    if empty:
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(root, STATS))
    return True


def rows_of(found: Mapping[str, Stat]) -> Iterable[tuple[str, int, int, int, int, str]]:
    """The rows of these stats."""
    return ((path, *stat) for path, stat in found.items())

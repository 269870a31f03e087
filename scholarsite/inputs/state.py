"""The build's state between builds, in one SQLite file (`.scholarsite-cache/state.sqlite`).

A table per kind of derived value, keyed by identity, updated in place in one transaction at
the end of a complete build: a build reads what it needs and writes only the rows its change
touched. A file that cannot be read as the state (damaged, from another version) is set aside
and the build starts from empty state, which gives the same site, only slower.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path

from scholarsite.inputs.digests import code_version
from scholarsite.inputs.store import CACHE_FOLDER

STATE_FILE = CACHE_FOLDER / "state.sqlite"
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS inputs (
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL, inode INTEGER NOT NULL,
    digest BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS related (
    key TEXT PRIMARY KEY, digest TEXT NOT NULL, counts TEXT NOT NULL, vector TEXT NOT NULL,
    related TEXT NOT NULL
) WITHOUT ROWID;
"""
RelatedColumns = tuple[str, str, str, str, str]  # key, digest, counts, vector, related (JSON)
Stamp = tuple[int, int, int]  # a file's size, mtime (ns) and inode


class BuildState:
    """The state store of one project (None as path: in memory, never kept)."""

    def __init__(self, path: Path | None):
        self.path = path
        self.db = self._open()

    def _open(self) -> sqlite3.Connection:
        """The store, made or set aside and made again when it is not the state of this code;
        in memory when the project's folder cannot hold it (read-only, full)."""
        if self.path is None:
            return self._schema(sqlite3.connect(":memory:"))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = self._schema(sqlite3.connect(self.path, timeout=30))
            if self._version(db) == code_version():
                return db
            db.close()
        except (sqlite3.Error, OSError):
            pass
        try:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            db = self._schema(sqlite3.connect(self.path, timeout=30))
            with db:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('code', ?)", (code_version(),))
            return db
        except (sqlite3.Error, OSError):
            self.path = None
            return self._schema(sqlite3.connect(":memory:"))

    @staticmethod
    def _schema(db: sqlite3.Connection) -> sqlite3.Connection:
        """The store with its tables."""
        db.executescript(SCHEMA)
        return db

    @staticmethod
    def _version(db: sqlite3.Connection) -> str | None:
        """The code version the store was made by."""
        row = db.execute("SELECT value FROM meta WHERE name = 'code'").fetchone()
        return row[0] if row else None

    def input_digests(self) -> dict[str, tuple[Stamp, bytes]]:
        """The digest of each input file (by project path) when it had the stamp given."""
        rows = self.db.execute("SELECT path, size, mtime, inode, digest FROM inputs")
        return {path: ((size, mtime, inode), digest) for path, size, mtime, inode, digest in rows}

    def save_input_digests(
        self, digests: dict[str, tuple[Stamp, bytes]], known: dict[str, tuple[Stamp, bytes]]
    ) -> None:
        """Replace the input files' digests, `known` (what `input_digests` gave): only the rows
        that differ are written."""
        with self.kept():
            gone = sorted(known.keys() - digests.keys())
            self.db.executemany("DELETE FROM inputs WHERE path = ?", ((path,) for path in gone))
            self.db.executemany(
                "INSERT OR REPLACE INTO inputs VALUES (?, ?, ?, ?, ?)",
                (
                    (path, *stamp, digest)
                    for path, (stamp, digest) in sorted(digests.items())
                    if known.get(path) != (stamp, digest)
                ),
            )

    def related_rows(self) -> Iterator[RelatedColumns]:
        """Every paper's row of the related-papers index."""
        yield from self.db.execute("SELECT key, digest, counts, vector, related FROM related")

    def value(self, name: str) -> str | None:
        """A value kept by name (None when there is none)."""
        row = self.db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        return row[0] if row else None

    def save_related(self, rows: Iterable[RelatedColumns], removed: Iterable[str], k: int) -> None:
        """Keep changed rows and drop removed ones, and the lists' length k, in one transaction."""
        with self.kept():
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('related_k', ?)", (str(k),))
            self.db.executemany("DELETE FROM related WHERE key = ?", ((key,) for key in removed))
            self.db.executemany("INSERT OR REPLACE INTO related VALUES (?, ?, ?, ?, ?)", rows)

    @contextlib.contextmanager
    def kept(self) -> Iterator[None]:
        """A transaction; if it cannot be written (disk full, locked too long) nothing is kept,
        which costs the next build time, never correctness: every value is checked by digest."""
        try:
            with self.db:
                yield
        except sqlite3.Error:
            pass

    def close(self) -> None:
        """Close the store."""
        self.db.close()

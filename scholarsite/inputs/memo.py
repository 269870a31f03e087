"""Results of pure text functions (TeX to HTML and text, BibTeX) kept between builds.

Rendering the TeX of every title and abstract and writing every BibTeX entry cost seconds at
10,000 papers, though few of them change between two builds. The memo keeps each result by
a digest of its input, in one SQLite file (`.scholarsite-cache/derived.sqlite`, made by one
version of scholarsite's code: another's is made anew), read entry by entry: an edit at
37,537 papers asks for ten thousand of its 280,000 entries, where loading them all (JSON
shards before) cost 0.7 s and 140 MB. Each process opens its own connection when it first
asks (forked render workers and the search process read; only the building process writes,
when it saves). A build that planned every page keeps only the entries it used or kept
(`keep`); any other keeps every entry: it made the cards of the pages it planned only (an
edit that dropped the others' TeX renderings had the next build that showed them render
them again, thousands at 37,537 papers). A file that cannot be read is made anew.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import sqlite3
import weakref
from collections.abc import Callable, Iterable
from functools import lru_cache, partial
from pathlib import Path

from markupsafe import Markup

from scholarsite.inputs.digests import code_version
from scholarsite.inputs.store import CACHE_FOLDER

MEMO_FILE = CACHE_FOLDER / "derived.sqlite"
SHARDS_BEFORE = "derived"  # the folder of JSON shards the memo was kept in before, beside the file
SHARD_NAME = re.compile(r"[0-9a-f]{2,3}\.json")
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (key BLOB PRIMARY KEY, text TEXT NOT NULL) WITHOUT ROWID;
"""


CONNECTED: weakref.WeakSet[Memo] = weakref.WeakSet()  # memos that may hold a connection


def closed_before_fork() -> None:
    """Close every memo's connection before this process forks (a render worker, the search
    process): SQLite's record of the file's locks would be copied into the child, whose own
    connection would then take no lock of its own. Each process opens its own when it asks."""
    for memo in list(CONNECTED):
        memo.close()


os.register_at_fork(before=closed_before_fork)


def connected(path: Path) -> sqlite3.Connection:
    """A connection to the memo's file, its transactions begun and ended by hand, usable from
    the preview's build thread. (Not memory-mapped: each page a lookup touched would count in
    the process's resident memory, 120 MB at 37,537 papers, for 10 ms.)"""
    return sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)


def reading(db: sqlite3.Connection) -> None:
    """Hold a read transaction on a file kept in WAL mode (where it never holds up the writer):
    a lookup then takes no lock of its own (4 µs, not 12, at ten thousand lookups a build)."""
    if db.execute("PRAGMA journal_mode").fetchall() == [("wal",)]:
        db.execute("BEGIN")


@lru_cache(maxsize=2**19)  # a collection's titles and abstracts, in a process that builds again
def entry_key(name: str, source: str) -> bytes:
    """The memo's key of `name` applied to `source`."""
    return hashlib.sha256(f"{name}\0{source}".encode("utf-8", "surrogatepass")).digest()


class Memo:
    """A dictionary of computed strings by (function name, input), kept in SQLite (None as
    path: in memory only)."""

    def __init__(self, path: Path | None = None):
        self.path = path
        self.entries: dict[bytes, str] = {}  # read or computed by this process
        self.unsaved: dict[bytes, str] = {}  # computed here or handed over, not in the file
        self.used: set[bytes] = set()
        self.kept: list[tuple[str, list[str]]] = []  # (name, sources) `keep` was told of
        self.added: dict[bytes, str] = {}  # entries computed since `take_added` or `save`
        self.connections: dict[int, sqlite3.Connection | None] = {}  # by process: never another's

    def connection(self) -> sqlite3.Connection | None:
        """This process's connection to the file (None: no file of this code to read)."""
        pid = os.getpid()
        if pid not in self.connections:
            self.connections[pid] = self.opened()
            CONNECTED.add(self)
        return self.connections[pid]

    def close(self) -> None:
        """Close this process's connection (opened again when next asked)."""
        if (db := self.connections.pop(os.getpid(), None)) is not None:
            db.close()

    def opened(self) -> sqlite3.Connection | None:
        """The file, when it is there and holds this code's entries, in a read transaction."""
        if self.path is None or not self.path.is_file():
            return None
        try:
            db = connected(self.path)
            reading(db)
            if db.execute("SELECT value FROM meta WHERE name = 'code'").fetchall() == [(code_version(),)]:
                return db
            db.close()
        except sqlite3.Error:
            pass
        return None

    def stored(self, key: bytes) -> str | None:
        """The text the file holds by `key` (None: none, or the file cannot be read)."""
        db = self.connection()
        if db is None:
            return None
        try:
            rows = db.execute("SELECT text FROM entries WHERE key = ?", (key,)).fetchall()
        except sqlite3.Error:
            return None
        return rows[0][0] if rows and isinstance(rows[0][0], str) else None

    @staticmethod
    def key(name: str, source: str) -> bytes:
        """The entry of `name` applied to `source`."""
        return entry_key(name, source)

    def known(self, key: bytes) -> str | None:
        """The entry of `key`, read once a process (None: not known)."""
        found = self.entries.get(key)
        if found is None and (found := self.stored(key)) is not None:
            self.entries[key] = found
        return found

    def has(self, name: str, source: str) -> bool:
        """Whether `name` applied to `source` is known."""
        return self.known(self.key(name, source)) is not None

    def text(self, name: str, compute: Callable[[str], str], source: str) -> str:
        """`compute(source)`, from the memo when it was computed before."""
        key = self.key(name, source)
        self.used.add(key)
        found = self.known(key)
        if found is None:
            found = self.entries[key] = self.added[key] = self.unsaved[key] = compute(source)
        return found

    def take_added(self) -> dict[bytes, str]:
        """The entries computed since this was last asked (by a forked render worker, whose
        memo is its own copy: `add` gives them to the building process's)."""
        added, self.added = self.added, {}
        return added

    def add(self, entries: object) -> None:
        """Entries a worker computed (`take_added`), kept as this process's own, and used."""
        assert isinstance(entries, dict)
        for key, text in entries.items():
            if key not in self.entries:
                self.entries[key] = self.unsaved[key] = text
        self.used.update(entries)

    def keep(self, name: str, sources: Iterable[str]) -> None:
        """Keep the entries of `name` applied to `sources` that are known, though this build
        does not use them (a later build will); their keys are worked out only by a save that
        collects."""
        self.kept.append((name, list(sources)))

    def markup(self, name: str, compute: Callable[[str], Markup], source: str) -> Markup:
        """Like `text`, for functions that return safe HTML."""
        return Markup(self.text(name, compute, source))

    def save(self, collect: bool = True) -> None:
        """Keep the entries this build used (every entry, without `collect`: a build that
        planned only some pages used only their cards' entries, and the rest are still the
        site's): the new ones are written, the unused ones deleted, in one transaction. When
        it cannot be written (disk full, locked too long) the next build computes again."""
        if collect:
            for name, sources in self.kept:
                self.used.update(map(partial(entry_key, name), sources))
            self.entries = {key: text for key, text in self.entries.items() if key in self.used}
        with contextlib.suppress(sqlite3.Error, OSError):
            if self.path is not None and (db := self.writable()) is not None:
                self.write(db, collect)
                self.remove_shards_before()
        self.used, self.kept, self.added, self.unsaved = set(), [], {}, {}  # saved: none added since

    def write(self, db: sqlite3.Connection, collect: bool) -> None:
        """Write the new entries and, with `collect`, delete the unused ones, in one transaction
        (the read transaction held before is ended, and begun again after)."""
        if db.in_transaction:
            db.execute("COMMIT")
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany("INSERT OR IGNORE INTO entries VALUES (?, ?)", sorted(self.unsaved.items()))
            if collect:
                self.collect(db)
            db.execute("COMMIT")
        finally:
            if db.in_transaction:
                db.execute("ROLLBACK")
            reading(db)

    def writable(self) -> sqlite3.Connection | None:
        """This process's connection to the file, made anew (empty, for this code) when there
        is none of this code (damaged, another version's, never made)."""
        if (db := self.connection()) is not None:
            return db
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-journal", "-wal", "-shm"):  # a journal left would be applied to the new file
            self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)
        db = connected(self.path)
        db.execute("PRAGMA journal_mode = WAL")  # readers and the writer never wait for each other
        db.executescript(SCHEMA)
        db.execute("INSERT INTO meta VALUES ('code', ?)", (code_version(),))
        self.connections[os.getpid()] = db
        CONNECTED.add(self)
        return db

    def collect(self, db: sqlite3.Connection) -> None:
        """Delete the entries this build did not use (inside the save's transaction)."""
        db.execute("CREATE TEMP TABLE IF NOT EXISTS used (key BLOB PRIMARY KEY) WITHOUT ROWID")
        db.executemany("INSERT OR IGNORE INTO temp.used VALUES (?)", ((key,) for key in self.used))
        db.execute("DELETE FROM entries WHERE key NOT IN (SELECT key FROM temp.used)")
        db.execute("DELETE FROM temp.used")

    def remove_shards_before(self) -> None:
        """Remove the JSON shards an earlier scholarsite kept the memo in (its own files only)."""
        assert self.path is not None
        folder = self.path.parent / SHARDS_BEFORE
        if folder.is_dir():
            for shard in folder.iterdir():
                if SHARD_NAME.fullmatch(shard.name):
                    shard.unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                folder.rmdir()

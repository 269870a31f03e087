"""A cache kept in one SQLite file of `.scholarsite-cache/`, for one version of scholarsite's code.

The memo of derived text (`memo`) and the parse cache (`cache`) are each one such file: read
row by row, in WAL mode (readers never wait for the writer, nor it for them). Each process
opens its own connection when it first asks (forked render workers and the search process
read; only the building process writes, when it saves) and holds a read transaction, so a
lookup takes no lock of its own. A file that cannot be read, or of another version of the
code, is made anew when written.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import weakref
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from scholarsite.inputs.digests import code_version

WAL_LIMIT = 2**24  # bytes
BATCH = 500  # keys a query asks for at once (SQLite takes 999 parameters at least)
META = "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);"

OPEN: weakref.WeakSet[SqliteFile] = weakref.WeakSet()  # files that may hold a connection


def closed_before_fork() -> None:
    """Close every file's connection before this process forks (a render worker, the search
    process): SQLite's record of the file's locks would be copied into the child, whose own
    connection would then take no lock of its own. Each process opens its own when it asks."""
    for file in list(OPEN):
        file.close()


os.register_at_fork(before=closed_before_fork)


def connected(path: Path) -> sqlite3.Connection:
    """A connection to a cache file, its transactions begun and ended by hand, usable from
    the preview's build thread, whose write-ahead log is cut back to `WAL_LIMIT` once copied
    into the file and begun again, at the next write (it kept the size of the largest write:
    the whole file, after a first build; a checkpoint that empties it would wait for readers).
    (Not memory-mapped: each page a lookup touched would count in the process's resident
    memory, 120 MB at 37,537 papers, for 10 ms.)"""
    db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    db.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT}")
    return db


def batched(db: sqlite3.Connection, query: str, keys: Sequence[object], *first: object) -> Iterator[Any]:
    """The rows `query` finds for `keys`, asked `BATCH` keys at a time (`{marks}` in the
    query stands for a batch's placeholders, after the parameters `first`)."""
    for start in range(0, len(keys), BATCH):
        batch = keys[start : start + BATCH]
        yield from db.execute(query.format(marks=", ".join("?" * len(batch))), [*first, *batch])


def reading(db: sqlite3.Connection) -> None:
    """Hold a read transaction on a file kept in WAL mode (where it never holds up the writer):
    a lookup then takes no lock of its own (4 µs, not 12, at ten thousand lookups a build)."""
    if db.execute("PRAGMA journal_mode").fetchall() == [("wal",)]:
        db.execute("BEGIN")


class SqliteFile:
    """One cache file with the tables of `schema` (None as path: no file, nothing kept)."""

    def __init__(self, path: Path | None, schema: str):
        self.path = path
        self.schema = schema
        self.connections: dict[int, sqlite3.Connection | None] = {}  # by process: never another's
        self.damaged = False  # a file was there that could not be read (not another version's)

    def connection(self) -> sqlite3.Connection | None:
        """This process's connection to the file (None: no file of this code to read)."""
        pid = os.getpid()
        if pid not in self.connections:
            self.connections[pid] = self.opened()
            OPEN.add(self)
        return self.connections[pid]

    def close(self) -> None:
        """Close this process's connection (opened again when next asked)."""
        if (db := self.connections.pop(os.getpid(), None)) is not None:
            db.close()

    def opened(self) -> sqlite3.Connection | None:
        """The file, when it is there and holds this code's rows, in a read transaction."""
        if self.path is None or not self.path.is_file():
            return None
        try:
            db = connected(self.path)
            reading(db)
            if db.execute("SELECT value FROM meta WHERE name = 'code'").fetchall() == [(code_version(),)]:
                return db
            db.close()
        except sqlite3.Error:
            self.damaged = True
        return None

    def discard(self) -> None:
        """Drop the file (made anew when next written)."""
        self.close()
        self.connections[os.getpid()] = None

    @contextlib.contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """A write transaction on the file (made anew, empty, when there is none of this code:
        damaged, another version's, never made); the read transaction held before is ended,
        and begun again after."""
        db = self.writable()
        if db.in_transaction:
            db.execute("COMMIT")
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
            db.execute("COMMIT")
        finally:
            if db.in_transaction:
                db.execute("ROLLBACK")
            reading(db)

    def writable(self) -> sqlite3.Connection:
        """This process's connection to the file, made anew when there is none of this code."""
        if (db := self.connection()) is not None:
            return db
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-journal", "-wal", "-shm"):  # a journal left would be applied to the new file
            self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)
        db = connected(self.path)
        db.execute("PRAGMA journal_mode = WAL")
        db.executescript(META + self.schema)
        db.execute("INSERT INTO meta VALUES ('code', ?)", (code_version(),))
        self.connections[os.getpid()] = db
        OPEN.add(self)
        return db


def keep_only(db: sqlite3.Connection, table: str, keys: Iterable[object]) -> None:
    """Delete the rows of `table` whose key is not among `keys`, inside the caller's write
    transaction."""
    db.execute("CREATE TEMP TABLE IF NOT EXISTS used (key PRIMARY KEY) WITHOUT ROWID")
    db.executemany("INSERT OR IGNORE INTO temp.used VALUES (?)", ((key,) for key in keys))
    db.execute(f"DELETE FROM {table} WHERE key NOT IN (SELECT key FROM temp.used)")
    db.execute("DELETE FROM temp.used")

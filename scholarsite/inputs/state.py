"""The build's state between builds, in one SQLite file (`.scholarsite-cache/state.sqlite`).

A table per kind of derived value, keyed by identity, updated in place in one transaction at
the end of a complete build: a build reads what it needs and writes only the rows its change
touched. A file that cannot be read as the state (damaged, from another version) is set aside
and the build starts from empty state, which gives the same site, only slower.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from scholarsite.inputs.digests import code_version
from scholarsite.inputs.sqlitefile import batched
from scholarsite.inputs.store import CACHE_FOLDER

STATE_FILE = CACHE_FOLDER / "state.sqlite"
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS inputs (
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime INTEGER NOT NULL, inode INTEGER NOT NULL,
    digest BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS page_paths (
    kind TEXT NOT NULL, key TEXT NOT NULL, paths TEXT NOT NULL, PRIMARY KEY (kind, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS page_values (
    kind TEXT NOT NULL, key TEXT NOT NULL, digest TEXT NOT NULL, inputs TEXT NOT NULL,
    PRIMARY KEY (kind, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS page_reads (
    kind TEXT NOT NULL, key TEXT NOT NULL, owner_kind TEXT NOT NULL, owner_key TEXT NOT NULL,
    PRIMARY KEY (kind, key, owner_kind, owner_key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS page_reads_by_owner ON page_reads (owner_kind, owner_key);
CREATE TABLE IF NOT EXISTS part_keys (
    path TEXT PRIMARY KEY, members TEXT NOT NULL, key TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS related (
    key TEXT PRIMARY KEY, digest TEXT NOT NULL, counts TEXT NOT NULL, vector TEXT NOT NULL,
    related TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS related_terms (
    term TEXT PRIMARY KEY, df INTEGER NOT NULL, holders TEXT, postings TEXT NOT NULL
) WITHOUT ROWID;
"""
RelatedColumns = tuple[str, str, str, str, str]  # key, digest, counts, vector, related
SCAN_ABOVE = 2000  # values of a kind asked for at once past which the kind's every row is read
TermColumns = tuple[int, str | None, str]  # df, papers (None: not kept), postings
TermRow = tuple[str, int, str | None, str]  # a term with its columns
Pair = tuple[str, str]  # an entity or a value pages read: its kind and key
Value = tuple[str, str]  # a value's digest and the digest of what it is made from ("": not kept)
Item = TypeVar("Item")
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

    def page_plans(self) -> tuple[tuple[str, str, str], dict[Pair, tuple[str, ...]]]:
        """What the last complete build planned: its tag, basis and network, and each entity's
        page paths (`outputs.families.pages_by_change`; the values' digests are read by
        `page_values_of`, for the values a build asks about)."""
        tags = tuple(self.value(f"pages_{name}") or "" for name in ("tag", "basis", "network"))
        rows = self.db.execute("SELECT kind, key, paths FROM page_paths")
        kinds: dict[str, str] = {}  # each kind's name once, not once a row (3 MB at 37,537 papers)
        paths = {
            (kinds.setdefault(kind, kind), key): tuple(found.split("\n")) if found else ()
            for kind, key, found in rows
        }
        return (tags[0], tags[1], tags[2]), paths

    def page_values_of(self, reads: Iterable[Pair]) -> dict[Pair, Value]:
        """The digest, and the digest of what it is made from ("": not kept), of each of these
        values pages read (of those the last complete build kept). Of a kind asked for more
        than SCAN_ABOVE values, the kind's every row is read (faster than looking each up:
        75,000 lookups took 1 s at 37,537 papers), and those asked for are kept (every row of
        two kinds held 38 MB to the end of a build that added a seed at 37,537 papers)."""
        by_kind: dict[str, list[str]] = {}
        for kind, key in reads:
            by_kind.setdefault(kind, []).append(key)
        found: dict[Pair, Value] = {}
        for kind, keys in by_kind.items():
            if len(keys) > SCAN_ABOVE:
                rows = self.db.execute("SELECT key, digest, inputs FROM page_values WHERE kind = ?", (kind,))
                asked = set(keys)
                found.update(((kind, key), (digest, inputs)) for key, digest, inputs in rows if key in asked)
                continue
            query = "SELECT key, digest, inputs FROM page_values WHERE kind = ? AND key IN ({marks})"
            rows = self.batched(query, keys, kind)
            found.update(((kind, key), (digest, inputs)) for key, digest, inputs in rows)
        return found

    def part_keys(self) -> dict[str, Value]:
        """The key of each file of many items the last complete build made, with the digest of
        whom it lists (`outputs.parts`), by site path."""
        return {path: (members, key) for path, members, key in self.db.execute("SELECT * FROM part_keys")}

    def page_readers(self, values: Iterable[Pair]) -> set[Pair]:
        """The entities whose pages read any of `values`."""
        query = "SELECT owner_kind, owner_key FROM page_reads WHERE kind = ? AND key = ?"
        return {owner for value in values for owner in self.db.execute(query, value)}

    def save_page_plans(
        self,
        tags: tuple[str, str, str],
        paths: tuple[dict[Pair, tuple[str, ...]], dict[Pair, tuple[str, ...]]],
        values: tuple[Mapping[Pair, Value], Collection[Pair]],
        reads: dict[Pair, set[Pair]],
        whole: bool,
        model: str,
        parts: tuple[Mapping[str, Value], Mapping[str, Value]] = ({}, {}),
    ) -> None:
        """Keep a complete build's plan (`tags`: its tag, basis and network), `paths` as (now,
        before: what `page_plans` gave; only the rows that differ are written), `values` as
        (the rows of the values whose digests are new or changed, the values gone), the
        values read by each entity planned (`reads`; `whole`: every entity was, the other
        rows go), the mark of the model kept with it (`model.snapshot`) and, as (now, before:
        what `part_keys` gave), its files of many items' keys: the one transaction keeps
        the keys with the mark of the model their members are compared with."""
        changed, gone = values
        now, before = parts
        with self.kept():
            self.db.executemany(
                "DELETE FROM part_keys WHERE path = ?", ((p,) for p in sorted(before.keys() - now.keys()))
            )
            rows = sorted((path, *value) for path, value in now.items() if before.get(path) != value)
            self.db.executemany("INSERT OR REPLACE INTO part_keys VALUES (?, ?, ?)", rows)
            names = ("pages_tag", "pages_basis", "pages_network", "pages_model")
            self.db.executemany(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)", zip(names, (*tags, model), strict=True)
            )
            self.changed_rows("page_paths", *paths, lambda _, found: ("\n".join(found),))
            self.db.executemany("DELETE FROM page_values WHERE kind = ? AND key = ?", sorted(gone))
            rows = sorted((*read, *value) for read, value in changed.items())
            self.db.executemany("INSERT OR REPLACE INTO page_values VALUES (?, ?, ?, ?)", rows)
            if whole:
                self.db.execute("DELETE FROM page_reads")
            else:
                self.db.executemany("DELETE FROM page_reads WHERE owner_kind = ? AND owner_key = ?", reads)
            rows = ((*value, *owner) for owner, values in reads.items() for value in values)
            self.db.executemany("INSERT OR IGNORE INTO page_reads VALUES (?, ?, ?, ?)", rows)

    def changed_rows(
        self,
        table: str,
        now: Mapping[Pair, Item],
        before: Mapping[Pair, Item],
        columns: Callable[[Pair, Item], tuple[str, ...]],
    ) -> None:
        """Make `table` (kind, key, columns...) hold `now` (each item's `columns`), knowing it
        held `before`: the rows of the items that differ, found by comparing the two as sets
        (in C, not item by item)."""
        gone = sorted(before.keys() - now.keys())
        self.db.executemany(f"DELETE FROM {table} WHERE kind = ? AND key = ?", gone)  # noqa: S608
        differ = {pair for pair, _ in now.items() - before.items()}
        changed = sorted((*pair, *columns(pair, now[pair])) for pair in differ)
        if changed:
            marks = ", ".join("?" * len(changed[0]))
            self.db.executemany(f"INSERT OR REPLACE INTO {table} VALUES ({marks})", changed)  # noqa: S608

    def related_digests(self) -> dict[str, str]:
        """Every paper's text digest in the related-papers index."""
        return dict(self.db.execute("SELECT key, digest FROM related"))

    def related_row(self, key: str) -> RelatedColumns | None:
        """A paper's row of the related-papers index (None: it has none)."""
        query = "SELECT key, digest, counts, vector, related FROM related WHERE key = ?"
        row: RelatedColumns | None = self.db.execute(query, (key,)).fetchone()
        return row

    def related_term(self, term: str) -> TermColumns | None:
        """A term of the related-papers index (None: no paper holds it)."""
        query = "SELECT df, holders, postings FROM related_terms WHERE term = ?"
        row: TermColumns | None = self.db.execute(query, (term,)).fetchone()
        return row

    def related_rows(self) -> Iterator[RelatedColumns]:
        """Every paper's row of the related-papers index."""
        yield from self.db.execute("SELECT key, digest, counts, vector, related FROM related")

    def related_rows_of(self, keys: Sequence[str]) -> Iterator[RelatedColumns]:
        """The rows of these papers in the related-papers index (those that have one)."""
        query = "SELECT key, digest, counts, vector, related FROM related WHERE key IN ({marks})"
        return self.batched(query, keys)

    def related_lists_of(self, keys: Sequence[str]) -> Iterator[tuple[str, str, str]]:
        """The key, vector and related columns of these papers' rows in the related-papers index
        (those that have one): what ranking a paper's list in reads."""
        return self.batched("SELECT key, vector, related FROM related WHERE key IN ({marks})", keys)

    def related_dfs_of(self, terms: Sequence[str]) -> Iterator[tuple[str, int]]:
        """The document frequencies of these terms in the related-papers index (of those that
        have one), without their papers and postings."""
        return self.batched("SELECT term, df FROM related_terms WHERE term IN ({marks})", terms)

    def related_postings_of(self, terms: Sequence[str]) -> Iterator[tuple[str, str]]:
        """The posting lists of these terms in the related-papers index (of those that have one)."""
        return self.batched("SELECT term, postings FROM related_terms WHERE term IN ({marks})", terms)

    def batched(self, query: str, keys: Sequence[str], *first: str) -> Iterator[Any]:
        """The rows `query` finds for `keys` (`sqlitefile.batched`)."""
        return batched(self.db, query, keys, *first)

    def value(self, name: str) -> str | None:
        """A value kept by name (None when there is none)."""
        row = self.db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        return row[0] if row else None

    def save_related(
        self,
        rows: Iterable[RelatedColumns],
        removed: Iterable[str],
        terms: Iterable[tuple[str, TermRow | None]],
        k: int,
    ) -> None:
        """Keep changed rows and terms (a term None: no paper holds it now) and drop removed
        rows, and the lists' length k, in one transaction."""
        with self.kept():
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('related_k', ?)", (str(k),))
            self.db.executemany("DELETE FROM related WHERE key = ?", ((key,) for key in removed))
            self.db.executemany("INSERT OR REPLACE INTO related VALUES (?, ?, ?, ?, ?)", rows)
            terms = list(terms)
            gone = ((term,) for term, columns in terms if columns is None)
            self.db.executemany("DELETE FROM related_terms WHERE term = ?", gone)
            kept = (columns for _, columns in terms if columns is not None)
            self.db.executemany("INSERT OR REPLACE INTO related_terms VALUES (?, ?, ?, ?)", kept)

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

"""Results of pure text functions (TeX to HTML and text, BibTeX) kept between builds.

Rendering the TeX of every title and abstract and writing every BibTeX entry cost seconds at
10,000 papers, though few of them change between two builds. The memo keeps each result by
a digest of its input, in one SQLite file (`.scholarsite-cache/derived.sqlite`, made by one
version of scholarsite's code: another's is made anew; `sqlitefile`), read entry by entry:
an edit at 37,537 papers asks for ten thousand of its 280,000 entries, where loading them all
(JSON shards before) cost 0.7 s and 140 MB. A build that planned every page keeps only the
entries it used or kept (`keep`); any other keeps every entry: it made the cards of the
pages it planned only (an edit that dropped the others' TeX renderings had the next build
that showed them render them again, thousands at 37,537 papers).
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from collections.abc import Callable, Iterable
from functools import lru_cache, partial
from pathlib import Path

from markupsafe import Markup

from scholarsite.inputs.sqlitefile import SqliteFile, batched, keep_only
from scholarsite.inputs.store import CACHE_FOLDER, remove_shards

MEMO_FILE = CACHE_FOLDER / "derived.sqlite"
SHARDS_BEFORE = "derived"  # the folder of JSON shards the memo was kept in before, beside the file
SCHEMA = "CREATE TABLE IF NOT EXISTS entries (key BLOB PRIMARY KEY, text TEXT NOT NULL) WITHOUT ROWID;"


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
        self.kept: list[tuple[str, Callable[[], Iterable[str]]]] = []  # (name, sources) `keep` was told of
        self.added: dict[bytes, str] = {}  # entries computed since `take_added` or `save`
        self.file = SqliteFile(path, SCHEMA)

    def stored(self, key: bytes) -> str | None:
        """The text the file holds by `key` (None: none, or the file cannot be read)."""
        db = self.file.connection()
        if db is None:
            return None
        try:
            rows = db.execute("SELECT text FROM entries WHERE key = ?", (key,)).fetchall()
        except sqlite3.Error:
            return None
        return rows[0][0] if rows and isinstance(rows[0][0], str) else None

    def prefetch(self, name: str, sources: Iterable[str]) -> None:
        """Read the entries of `name` applied to these sources from the file at once, those not
        read yet (a few queries where `text` would ask one a source: a file of two thousand
        entries, such as a part of `data/papers.json`, 0.1 s)."""
        wanted = [key for key in {self.key(name, source) for source in sources} if key not in self.entries]
        db = self.file.connection() if wanted else None
        if db is None:
            return
        with contextlib.suppress(sqlite3.Error):
            query = "SELECT key, text FROM entries WHERE key IN ({marks})"
            self.entries.update(
                (key, text) for key, text in batched(db, query, sorted(wanted)) if isinstance(text, str)
            )

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

    def keep(self, name: str, sources: Callable[[], Iterable[str]]) -> None:
        """Keep the entries of `name` applied to the `sources` that are known, though this
        build does not use them (a later build will); the sources and their keys are worked
        out only by a save that collects."""
        self.kept.append((name, sources))

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
                self.used.update(map(partial(entry_key, name), sources()))
            self.entries = {key: text for key, text in self.entries.items() if key in self.used}
        with contextlib.suppress(sqlite3.Error, OSError):
            if self.path is not None:
                with self.file.writing() as db:
                    new = sorted(self.unsaved.items())
                    db.executemany("INSERT OR IGNORE INTO entries VALUES (?, ?)", new)
                    if collect:
                        keep_only(db, "entries", self.used)
                remove_shards(self.path.parent / SHARDS_BEFORE)
        self.used, self.kept, self.added, self.unsaved = set(), [], {}, {}  # saved: none added since

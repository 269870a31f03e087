"""Parsed seeds kept between builds, keyed by file content, so unchanged seeds are not re-parsed.

The cache is one SQLite file beside the project (`.scholarsite-cache/parses.sqlite`, git-ignored;
`sqlitefile`: one version of the code's, each process reading on its own connection) of two
tables: each seed's head (its author's name, line and claimed count, the lines its records
start at, its diagnostics) and its records, a row each. A key is (seed path, sha256 of its bytes, latest
allowed year), so an edited seed never reuses a stale result. A build reads every head and a
seed's records only when they are first asked for (`KeptRecords`): an edit at 37,537 papers
reads the records of the few seeds whose papers it shows again, where the JSON shards before
were read whole (0.56 s and 170 MB). Only entries used by the last build are kept.

It is plain JSON in rows, never pickle: a cache committed to a repository or planted by
someone else is data, not code. Every head is checked field by field as it is read, and a
cache whose heads do not validate is thrown away whole, with a note, and rebuilt; records
that do not validate (or are missing) are parsed again from their seed.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict
from functools import cached_property, partial
from pathlib import Path
from typing import Any, TypeVar

from scholarsite.errors import BuildError, Diagnostic, Severity, error, note
from scholarsite.inputs.jsondata import dumps, loads_checked
from scholarsite.inputs.records import NO_DETAILS, Details, RecordIdentity
from scholarsite.inputs.seeds import AuthorRecord, SeedParse, SeedRecord, parse_seed
from scholarsite.inputs.sqlitefile import SqliteFile, keep_only
from scholarsite.inputs.store import CACHE_FOLDER, remove_shards
from scholarsite.tex import render as tex

Key = tuple[str, str, int]  # seed path, sha256 of its bytes (hex), latest allowed year
CACHE_FILE = CACHE_FOLDER / "parses.sqlite"
SHARDS_BEFORE = CACHE_FOLDER / "seeds"  # the folder of JSON shards the cache was kept in before
SCHEMA = """
CREATE TABLE IF NOT EXISTS heads (key TEXT PRIMARY KEY, head BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS records (
    key TEXT NOT NULL, at INTEGER NOT NULL, record BLOB NOT NULL, PRIMARY KEY (key, at)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS checked (key TEXT PRIMARY KEY) WITHOUT ROWID;
"""


class Invalid(ValueError):
    """A cache entry that is not what this code writes."""


def expect(value: Any, kind: type | tuple[type, ...]) -> Any:
    """`value` when it has the type `kind` (a bool is not an int), else Invalid."""
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise Invalid(f"expected {kind}, found {type(value).__name__}")
    return value


def fields(value: Any, names: tuple[str, ...]) -> list[Any]:
    """The values of an object with exactly the keys `names`, in that order."""
    if not isinstance(value, dict) or set(value) != set(names):
        raise Invalid(f"expected an object with {', '.join(names)}")
    return [value[name] for name in names]


def texts(value: Any) -> tuple[str, ...]:
    """A list of strings (its items' types checked at once: a cache holds a list of subjects
    for each of a hundred thousand records and more)."""
    if type(value) is not list or not set(map(type, value)) <= {str}:
        raise Invalid("expected a list of strings")
    return tuple(value)


def diagnostic_of(value: Any) -> Diagnostic:
    """A diagnostic from JSON data."""
    path, line, severity, message, hint = fields(value, ("path", "line", "severity", "message", "hint"))
    return Diagnostic(
        expect(path, str),
        expect(line, int),
        Severity(expect(severity, str)),
        expect(message, str),
        expect(hint, str),
    )


RECORD_FIELDS = ("source", "year", "title", "abstract", "subjects", "path", "line", "details", "identity")
RECORD_TYPES = (str, int, str, str, list, str, int)  # of the fields before the details, in JSON
IDENTITY_TYPES = {(str, str, str), (str, type(None), str)}  # of an identity's parts, in JSON
DETAILS_TEXTS = ("venue", "kind", "doi", "url", "date")


def head_data(parse: SeedParse) -> list[Any]:
    """A seed's head as JSON data: [author or None, diagnostics], its author as
    [name, line, claimed count, at least, the lines its records start at]."""
    author = parse.author
    about = None
    if author is not None:
        about = [author.name, author.line, author.claimed_count, author.at_least, list(author.lines)]
    return [about, [d.as_dict() for d in parse.diagnostics]]


def record_data(record: SeedRecord) -> list[Any]:
    """A seed record as JSON data (a list in RECORD_FIELDS order; details None when empty;
    its identity's compared abstract None when it is the abstract)."""
    details = (
        None
        if record.details == NO_DETAILS
        else {**asdict(record.details), "authors": [*record.details.authors]}
    )
    identity = record.identity
    compared = None if identity.abstract == record.abstract else identity.abstract
    return [
        *(getattr(record, name) for name in RECORD_FIELDS[:-2]),
        details,
        [identity.title, compared, identity.abstract_key],
    ]


def details_of(value: Any) -> Details:
    """A record's details from JSON data (None: none)."""
    if value is None:
        return NO_DETAILS
    authors, more, *rest = fields(value, ("authors", "more_authors", *DETAILS_TEXTS))
    return Details(texts(authors), expect(more, bool), *(expect(text, str) for text in rest))


Frozen = TypeVar("Frozen")


def restored(kind: type[Frozen], **values: Any) -> Frozen:
    """An instance of a frozen dataclass with these field values (checked already), made as
    pickle restores one: its fields set in its `__dict__`, its `__init__` not run (a third
    of the time of reading a large cache went to the frozen `__init__`s of its records)."""
    made = object.__new__(kind)
    made.__dict__.update(values)
    return made


def record_of(value: Any) -> SeedRecord:
    """A seed record from JSON data (a list in RECORD_FIELDS order), its identity the one kept
    with it. Its first fields' types are checked at once (a cache holds a hundred thousand
    records and more)."""
    items = expect(value, list)
    if len(items) != len(RECORD_FIELDS) or tuple(map(type, items[:7])) != RECORD_TYPES:
        raise Invalid("a record's fields are not the ones this code writes")
    source, year, title, abstract, subjects, path, line, details, identity = items
    return restored(
        SeedRecord,
        source=source,
        year=year,
        title=title,
        abstract=abstract,
        subjects=texts(subjects),
        path=path,
        line=line,
        details=details_of(details),
        identity=identity_of_data(identity, abstract),  # where `cached_property` keeps it
    )


def identity_of_data(value: Any, abstract: str) -> RecordIdentity:
    """A record's identity from JSON data (`record_data`)."""
    items = expect(value, list)
    if len(items) != 3 or tuple(map(type, items)) not in IDENTITY_TYPES:
        raise Invalid("a record's identity is not what this code writes")
    title, compared, key = items
    return restored(
        RecordIdentity, title=title, abstract=abstract if compared is None else compared, abstract_key=key
    )


def head_of(value: Any, path: str, records: Callable[[tuple[int, ...]], Sequence[SeedRecord]]) -> SeedParse:
    """A seed's parse from its head's JSON data (`head_data`), its author's records
    `records(lines)` (Invalid when anything is off)."""
    author_data, diagnostics = expect(value, list)
    author = None
    if author_data is not None:
        name, line, claimed, at_least, lines = expect(author_data, list)
        if type(lines) is not list or not set(map(type, lines)) <= {int}:
            raise Invalid("expected a list of lines")
        author = restored(
            AuthorRecord,
            name=expect(name, str),
            path=path,
            line=expect(line, int),
            claimed_count=None if claimed is None else expect(claimed, int),
            at_least=expect(at_least, bool),
            records=records(tuple(lines)),
            lines=tuple(lines),  # where `cached_property` keeps them
        )
    return SeedParse(author, tuple(diagnostic_of(d) for d in expect(diagnostics, list)))


def record_at(value: Any, line: int) -> SeedRecord:
    """A seed's record from JSON data, starting at `line` (Invalid otherwise)."""
    record = record_of(value)
    if record.line != line:
        raise Invalid("the record is not the one of the seed's head")
    return record


def key_text(key: Key) -> str:
    """A key as the file keeps it."""
    path, digest, year = key
    return f"{path}\0{digest}\0{year}"


def key_of(text: Any) -> Key:
    """A key from the file (Invalid when it is not one `key_text` writes)."""
    path, digest, year = expect(text, str).split("\0")
    if not year.isdigit():
        raise Invalid("a key's year is not a number")
    return path, digest, int(year)


def check_key(name: str, digest: str) -> str:
    """The key of an input's bytes (their sha256) among those read without a problem
    (`ParseCache.checked`)."""
    return f"{name}\0{digest}"


class KeptRecords(Sequence[SeedRecord]):
    """A seed's records as the parse cache keeps them, read when first asked for: the first
    asked by place alone (a kept paper's texts: an edit asks for one record of each of a few
    thousand seeds), all at once when another is asked for or they are walked (a build that
    takes every paper's texts reads each seed at most twice); its number and lines are known
    from its head."""

    def __init__(self, cache: ParseCache, key: Key, lines: tuple[int, ...]):
        self.cache, self.key, self.lines = cache, key, lines
        self.some: dict[int, SeedRecord] = {}  # read by place

    @cached_property
    def read(self) -> tuple[SeedRecord, ...]:
        """The records."""
        return self.cache.records_of(self.key, self.lines)

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, at: Any) -> Any:
        if "read" in self.__dict__ or not isinstance(at, int) or (self.some and at not in self.some):
            return self.read[at]  # a second place asked for: a walk of the papers, likely
        at = range(len(self.lines))[at]  # IndexError past the end, as a tuple's
        if at not in self.some:
            self.some[at] = self.cache.record_at(self.key, self.lines, at)
        return self.some[at]

    def __iter__(self) -> Iterator[SeedRecord]:
        return iter(self.read)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and self.read == tuple(other)

    def __hash__(self) -> int:
        return hash(self.read)


class ParseCache:
    """SeedParse results by content, for the project at `root` (None: kept in memory only);
    `save` writes the new ones and drops those the build did not use."""

    def __init__(self, root: Path | None):
        self.root = root
        self.file = SqliteFile(root / CACHE_FILE if root is not None else None, SCHEMA)
        self.problem: Diagnostic | None = None
        self.thrown = False  # the file's heads did not validate: made anew at the save
        self.heads_read = False
        self.entries: dict[Key, SeedParse] = {}  # read or parsed by this process
        self.stored: set[Key] = set()  # the keys the file holds
        self.unsaved: dict[Key, SeedParse] = {}  # parsed here, not in the file
        self.used: set[Key] = set()
        self.recent: dict[str, tuple[bytes, int, Key]] = {}  # path -> digest, year and key last asked
        self.checks: dict[str, bool] = {}  # whether other inputs' bytes were read without a problem
        self.passes: set[str] = set()  # ... newly found so (`passed`), not in the file

    @property
    def on_disk(self) -> bool:
        """Whether the cache is kept in a file (not for a clean build)."""
        return self.root is not None

    def heads(self) -> dict[Key, SeedParse]:
        """Every parse the file holds (their records read when asked for), read once a
        process; none when there is no file of this code, or (with a note) when it is damaged."""
        if self.heads_read:
            return self.entries
        self.heads_read = True
        db = self.file.connection()
        try:
            rows = db.execute("SELECT key, head FROM heads").fetchall() if db is not None else []
            for text, head in rows:
                key = key_of(text)
                self.entries[key] = head_of(loads_checked(head), key[0], partial(KeptRecords, self, key))
                self.stored.add(key)
        except (sqlite3.Error, ValueError, TypeError, KeyError):
            self.entries, self.stored, self.thrown = {}, set(), True
        if self.thrown or self.file.damaged:
            self.problem = note(
                CACHE_FILE.as_posix(), 0, "the parse cache is damaged or not ours: thrown away and rebuilt"
            )
        return self.entries

    def records_of(self, key: Key, lines: tuple[int, ...]) -> tuple[SeedRecord, ...]:
        """The records the file keeps of the seed `key` (starting at `lines`, as its head
        says); parsed again from the seed when they are missing or not valid."""
        if (db := self.file.connection()) is not None:
            with contextlib.suppress(sqlite3.Error, ValueError, TypeError, KeyError):
                query = "SELECT record FROM records WHERE key = ? ORDER BY at"
                rows = db.execute(query, (key_text(key),)).fetchall()
                if len(rows) == len(lines):
                    return tuple(
                        record_at(loads_checked(data), line)
                        for (data,), line in zip(rows, lines, strict=True)
                    )
        return self.parsed_again(key, lines)

    def record_at(self, key: Key, lines: tuple[int, ...], at: int) -> SeedRecord:
        """The record the file keeps at place `at` of the seed `key` (as `records_of`)."""
        if (db := self.file.connection()) is not None:
            with contextlib.suppress(sqlite3.Error, ValueError, TypeError, KeyError, IndexError):
                query = "SELECT record FROM records WHERE key = ? AND at = ?"
                rows = db.execute(query, (key_text(key), at)).fetchall()
                return record_at(loads_checked(rows[0][0]), lines[at])
        return self.parsed_again(key, lines)[at]

    def parsed_again(self, key: Key, lines: tuple[int, ...]) -> tuple[SeedRecord, ...]:
        """The records of the seed `key`, parsed from its file, which must still be the one
        its head was made of (a BuildError otherwise: it changed while the site was built)."""
        path, digest, year = key
        assert self.root is not None
        data = (self.root / path).read_bytes()
        parse = parse_seed(data, path, latest_year=year)
        if hashlib.sha256(data).hexdigest() != digest or parse.author is None or parse.author.lines != lines:
            raise BuildError([error(path, 0, "the file changed while the site was built", "build again")])
        self.unsaved[key] = parse
        return tuple(parse.author.records)

    def reused(
        self, paths: list[str], digests: Mapping[str, bytes], latest_year: int
    ) -> dict[str, SeedParse]:
        """The parses the cache has of the seeds at `paths` whose bytes have the sha256
        `digests` knows (the files need not be read), by path. A process that builds again
        asks for the same again: each path's key is remembered."""
        found: dict[str, SeedParse] = {}
        recent, entries = self.recent, self.heads()
        for path in paths:
            digest = digests.get(path)
            if digest is None:
                continue
            last = recent.get(path)
            if last is not None and last[0] == digest and last[1] == latest_year:
                key = last[2]
            else:
                key = (path, digest.hex(), latest_year)
                recent[path] = (digest, latest_year, key)
            if (parse := entries.get(key)) is not None:
                self.used.add(key)
                found[path] = parse
        return found

    def parse(
        self, data: bytes, path: str, latest_year: int, math: tex.MathCheck = tex.math_check
    ) -> SeedParse:
        """The parse of a seed's bytes, from the cache when the same bytes were parsed before
        (else parsed, its math checked by `math`)."""
        key = (path, hashlib.sha256(data).hexdigest(), latest_year)
        self.used.add(key)
        entries = self.heads()
        if key not in entries:
            entries[key] = self.unsaved[key] = parse_seed(data, path, latest_year=latest_year, math=math)
        return entries[key]

    def checked(self, name: str, digest: str) -> bool:
        """Whether the input `name` with the bytes of this sha256 was read without a problem
        before (its reader may then take it as it is; it says so with `passed`)."""
        key = check_key(name, digest)
        if key not in self.checks and (db := self.file.connection()) is not None:
            with contextlib.suppress(sqlite3.Error):
                self.checks[key] = bool(db.execute("SELECT 1 FROM checked WHERE key = ?", (key,)).fetchall())
        return self.checks.get(key, False)

    def passed(self, name: str, digest: str) -> None:
        """Note that the input `name` with the bytes of this sha256 was read without a problem."""
        key = check_key(name, digest)
        if not self.checks.get(key):
            self.checks[key] = True
            self.passes.add(key)

    def save(self) -> None:
        """Keep the parses this build used: the new ones written, the others dropped, in one
        transaction (when it cannot be written, the next build parses again)."""
        dropped = self.entries.keys() - self.used
        for key in dropped & self.stored:  # read before they are dropped: an object of this
            if (author := self.entries[key].author) is not None:  # process may still ask
                tuple(author.records)
        self.entries = {key: self.entries[key] for key in self.used if key in self.entries}
        if self.root is not None and (self.unsaved or self.stored - self.used or self.thrown or self.passes):
            with contextlib.suppress(sqlite3.Error, OSError):
                self.write()
        self.used, self.unsaved, self.thrown, self.passes = set(), {}, False, set()

    def write(self) -> None:
        """Write the new parses and drop the unused ones (`save`)."""
        if self.thrown:
            self.file.discard()
        new = sorted((key_text(key), parse) for key, parse in self.unsaved.items() if key in self.used)
        heads = [(key, dumps(head_data(parse))) for key, parse in new]
        records = [
            (key, at, dumps(record_data(record)))
            for key, parse in new
            if parse.author is not None
            for at, record in enumerate(parse.author.records)
        ]
        with self.file.writing() as db:
            db.executemany("INSERT OR REPLACE INTO heads VALUES (?, ?)", heads)
            db.executemany("DELETE FROM records WHERE key = ?", [(key,) for key, _ in new])
            db.executemany("INSERT INTO records VALUES (?, ?, ?)", records)
            gone = [(key_text(key),) for key in sorted(self.stored - self.used)]  # the file's, unused
            for table in ("heads", "records"):
                db.executemany(f"DELETE FROM {table} WHERE key = ?", gone)  # noqa: S608
            if self.passes:  # the inputs' bytes as this process read them
                db.executemany(
                    "INSERT OR IGNORE INTO checked VALUES (?)", ((key,) for key in sorted(self.passes))
                )
                keep_only(db, "checked", [key for key, known in self.checks.items() if known])
        self.stored = set(self.used)
        remove_shards(self.root / SHARDS_BEFORE)

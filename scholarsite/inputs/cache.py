"""Parsed seeds kept between builds, keyed by file content, so unchanged seeds are not re-parsed.

The cache lives in `.scholarsite-cache/seeds/` beside the project (git-ignored), in shards
(see `store`): a build rewrites only the shards of the seeds it parsed anew. A key is
(seed path, sha256 of its bytes, latest allowed year, version of the parser's code), so an
edited seed or an upgraded scholarsite never reuses a stale result. Only entries used by the
last build are kept.

It is plain JSON, never pickle: a cache committed to a repository or planted by someone else
is data, not code. Every entry is checked field by field as it is loaded; a cache that does
not validate is thrown away whole, with a note, and rebuilt.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar

from scholarsite.errors import Diagnostic, Severity, note
from scholarsite.inputs.digests import code_version
from scholarsite.inputs.records import NO_DETAILS, Details, RecordIdentity
from scholarsite.inputs.seeds import AuthorRecord, SeedParse, SeedRecord, parse_seed
from scholarsite.inputs.store import CACHE_FOLDER, SHARDS, Shards, shard_of

Key = tuple[str, str, int, str]
CACHE_FILE = CACHE_FOLDER / "seeds"  # a folder of shards
FORMAT = 3  # a record's identity kept with it since 3


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
AUTHOR_FIELDS = ("name", "path", "line", "claimed_count", "at_least", "records")


def parse_data(parse: SeedParse) -> dict[str, Any]:
    """A seed's parse as JSON data."""
    author = parse.author
    return {
        "author": None
        if author is None
        else {
            "name": author.name,
            "path": author.path,
            "line": author.line,
            "claimed_count": author.claimed_count,
            "at_least": author.at_least,
            "records": [record_data(r) for r in author.records],
        },
        "diagnostics": [d.as_dict() for d in parse.diagnostics],
    }


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


def parse_of(value: Any) -> SeedParse:
    """A seed's parse from JSON data; Invalid when anything is off."""
    author_data, diagnostics = fields(value, ("author", "diagnostics"))
    author = None
    if author_data is not None:
        name, path, line, claimed, at_least, records = fields(author_data, AUTHOR_FIELDS)
        author = AuthorRecord(
            expect(name, str),
            expect(path, str),
            expect(line, int),
            None if claimed is None else expect(claimed, int),
            expect(at_least, bool),
            tuple(record_of(r) for r in expect(records, list)),
        )
    return SeedParse(author, tuple(diagnostic_of(d) for d in expect(diagnostics, list)))


def key_of(value: Any) -> Key:
    """A cache key from JSON data."""
    items = expect(value, list)
    if len(items) != 4:
        raise Invalid("a key has the wrong number of parts")
    return expect(items[0], str), expect(items[1], str), expect(items[2], int), expect(items[3], str)


class ParseCache:
    """SeedParse results by content; `save` writes back the shards whose entries changed."""

    def __init__(self, folder: Path | None):
        self.shards = Shards(folder.parent, folder.name) if folder is not None else Shards(None, "")
        self.shown = f"{folder.parent.name}/{folder.name}/" if folder is not None else ""
        self.problem: Diagnostic | None = None
        self.dirty: set[int] = set()  # shards whose entries changed
        self.entries: dict[Key, SeedParse] = self.load()
        self.used: set[Key] = set()
        self.recent: dict[str, tuple[bytes, int, Key]] = {}  # path -> digest, year and key last asked

    @property
    def on_disk(self) -> bool:
        """Whether the cache is kept in a folder (not for a clean build)."""
        return self.shards.folder is not None

    def load(self) -> dict[Key, SeedParse]:
        """The entries on disk; none if there are none, or (with a note) when one is damaged."""
        entries: dict[Key, SeedParse] = {}
        try:
            for shard, body in self.shards.read():
                items, version = fields(body, ("entries", "format"))
                if version == FORMAT:
                    entries.update({key_of(key): parse_of(parse) for key, parse in expect(items, list)})
                else:  # another scholarsite's: rewritten at the next save
                    self.dirty.add(shard)
        except (OSError, ValueError, TypeError, KeyError):
            self.problem = note(
                self.shown, 0, "the parse cache is damaged or not ours: thrown away and rebuilt"
            )
            self.dirty = set(range(SHARDS))
            return {}
        return entries

    def reused(
        self, paths: list[str], digests: Mapping[str, bytes], latest_year: int
    ) -> dict[str, SeedParse]:
        """The parses the cache has of the seeds at `paths` whose bytes have the sha256
        `digests` knows (the files need not be read), by path. A process that builds again
        asks for the same again: each path's key is remembered."""
        found: dict[str, SeedParse] = {}
        recent, entries, version = self.recent, self.entries, code_version()
        for path in paths:
            digest = digests.get(path)
            if digest is None:
                continue
            last = recent.get(path)
            if last is not None and last[0] == digest and last[1] == latest_year:
                key = last[2]
            else:
                key = (path, digest.hex(), latest_year, version)
                recent[path] = (digest, latest_year, key)
            if (parse := entries.get(key)) is not None:
                self.used.add(key)
                found[path] = parse
        return found

    def parse(self, data: bytes, path: str, latest_year: int) -> SeedParse:
        """The parse of a seed's bytes, from the cache when the same bytes were parsed before."""
        key = (path, hashlib.sha256(data).hexdigest(), latest_year, code_version())
        self.used.add(key)
        if key not in self.entries:
            self.entries[key] = parse_seed(data, path, latest_year=latest_year)
            self.dirty.add(shard_of(key[1]))
        return self.entries[key]

    def save(self) -> None:
        """Keep the entries this build used; write the shards whose entries changed."""
        stale = self.entries.keys() - self.used
        self.dirty |= {shard_of(key[1]) for key in stale}
        self.entries = {key: self.entries[key] for key in self.used}
        bodies: dict[int, list] = {shard: [] for shard in self.dirty}
        for key, parse in sorted(self.entries.items()):
            if (shard := shard_of(key[1])) in bodies:
                bodies[shard].append([list(key), parse_data(parse)])
        self.shards.write((shard, {"format": FORMAT, "entries": items}) for shard, items in bodies.items())
        self.used, self.dirty = set(), set()

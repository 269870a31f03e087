"""Parsed seeds kept between builds, keyed by file content, so unchanged seeds are not re-parsed.

The cache lives in `.scholarsite-cache/seeds.json` beside the project (git-ignored). A key is
(seed path, sha256 of its bytes, latest allowed year, version of the parser's code), so an
edited seed or an upgraded scholarsite never reuses a stale result. Only entries used by the
last build are kept.

It is plain JSON, never pickle: a cache committed to a repository or planted by someone else
is data, not code. Every entry is checked field by field as it is loaded; a cache that does
not validate is thrown away whole, with a note, and rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from scholarsite.errors import Diagnostic, Severity, note
from scholarsite.inputs.seeds import AuthorRecord, SeedParse, SeedRecord, parse_seed
from scholarsite.outputs.registry import code_version

Key = tuple[str, str, int, str]
CACHE_FILE = Path(".scholarsite-cache") / "seeds.json"
FORMAT = 1


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
    """A list of strings."""
    return tuple(expect(item, str) for item in expect(value, list))


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


RECORD_FIELDS = ("source", "year", "title", "abstract", "subjects", "path", "line")
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
            "records": [[getattr(r, name) for name in RECORD_FIELDS] for r in author.records],
        },
        "diagnostics": [d.as_dict() for d in parse.diagnostics],
    }


def record_of(value: Any) -> SeedRecord:
    """A seed record from JSON data (a list in RECORD_FIELDS order)."""
    items = expect(value, list)
    if len(items) != len(RECORD_FIELDS):
        raise Invalid("a record has the wrong number of fields")
    source, year, title, abstract, subjects, path, line = items
    return SeedRecord(
        expect(source, str),
        expect(year, int),
        expect(title, str),
        expect(abstract, str),
        texts(subjects),
        expect(path, str),
        expect(line, int),
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
    """SeedParse results by content; `save` writes them back atomically when they changed."""

    def __init__(self, file: Path | None):
        self.file = file
        self.problem: Diagnostic | None = None
        self.entries: dict[Key, SeedParse] = self.load()
        self.used: set[Key] = set()
        self.changed = False

    def load(self) -> dict[Key, SeedParse]:
        """The entries on disk; none if the file is missing, or (with a note) damaged."""
        if self.file is None or not self.file.is_file():
            return {}
        try:
            body = json.loads(self.file.read_bytes())
            entries, version = fields(body, ("entries", "format"))
            if version != FORMAT:
                return {}
            return {key_of(key): parse_of(parse) for key, parse in expect(entries, list)}
        except (OSError, ValueError, TypeError, KeyError, RecursionError):
            shown = self.file.parent.name + "/" + self.file.name
            self.problem = note(shown, 0, "the parse cache is damaged or not ours: thrown away and rebuilt")
            self.changed = True
            return {}

    def parse(self, data: bytes, path: str, latest_year: int) -> SeedParse:
        """The parse of a seed's bytes, from the cache when the same bytes were parsed before."""
        key = (path, hashlib.sha256(data).hexdigest(), latest_year, code_version())
        self.used.add(key)
        if key not in self.entries:
            self.entries[key] = parse_seed(data, path, latest_year=latest_year)
            self.changed = True
        return self.entries[key]

    def save(self) -> None:
        """Keep the entries this build used; write them if anything changed."""
        stale = self.entries.keys() - self.used
        if self.file is None or not (self.changed or stale):
            return
        self.entries = {key: self.entries[key] for key in self.used}
        body = {
            "format": FORMAT,
            "entries": [[list(k), parse_data(p)] for k, p in sorted(self.entries.items())],
        }
        self.file.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=self.file.parent, delete=False, prefix=".tmp-") as tmp:
            tmp.write(json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        os.replace(tmp.name, self.file)
        self.used, self.changed = set(), False

"""A changed sources.yaml read again reusing the entries whose text did not change.

When sources.yaml changed since the last build (link-sources added a few papers, a person fixed
an arXiv id), most of its entries have the same text as in the signed cache of the last read
(`inputs.sources_signed`). The quick reader (`inputs.blockyaml`) reads each entry of
link-sources' layout (a key at column 2 and its lines at column 4 or more, ENTRY_RE) from its
text alone: the same text read by the same code is the same entry, whatever is around it; only
its line changes. So the cache keeps, with each entry, a digest of its text (when the quick
reader took it alone: ENTRY_RE matched, one entry on the key's line), and this read takes the
entry of a known text from the cache at its new line, reads the others as the quick reader
does, and checks them (`sources.entry_of`). The cache's header must name this code and this
Python (its signature is checked first, as for an unchanged file). Anything unusual (a text
the quick reader does not take, a key given twice, an entry with a problem, control
characters removed) gives None: the caller reads the whole file as before, which reports each
problem at its line. The result is that of `sources.sources_of` (tests compare them after
random edits).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from scholarsite.inputs.blockyaml import ENTRY_RE, Unsupported, body_start, entries_at, matched_entries
from scholarsite.inputs.sources import SOURCES_FILE, SourceEntry, Sources, entry_of
from scholarsite.inputs.sources_signed import Fields, entry_from
from scholarsite.inputs.text import decode

Kept = dict[bytes, tuple[str, Fields]]  # by the digest of an entry's text: its key and row
Found = tuple[str, SourceEntry, int, bytes | None, Fields | None]  # key, entry, line, digest, kept row


@dataclass
class Reread:
    """The entries of a changed file, with the digest of each one's text (None: not kept) and
    the cache's row of each one taken from it (None: read), in the entries' order."""

    sources: Sources = field(default_factory=Sources)
    digests: list[bytes | None] = field(default_factory=list)
    rows: list[Fields | None] = field(default_factory=list)


class NotReused(ValueError):
    """A file this read leaves to the full one."""


def text_digest(text: str) -> bytes:
    """The digest of an entry's text."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def reused_sources(data: bytes, kept: Kept) -> Reread | None:
    """The entries of sources.yaml's bytes, those of a text in `kept` taken from it (which is
    emptied of them); None when the file needs the full read."""
    text, problems = decode(data, SOURCES_FILE)
    body = body_start(text, "papers") if text is not None and not problems else None
    if text is None or body is None:
        return None
    try:
        return entries_from(text, body, kept)
    except (NotReused, Unsupported):
        return None


def entries_from(text: str, body: tuple[int, int], kept: Kept) -> Reread:
    """The entries of the text from `body` (offset, line) on; NotReused or Unsupported when it
    needs the full read."""
    read = Reread()
    entries, lines = read.sources.entries, read.sources.lines
    start, line = body
    while start < len(text):
        end, found = entries_here(text, start, line, kept)
        for key, entry, at, digest, row in found:
            if key in entries:
                raise NotReused("a key given twice")
            entries[key], lines[key] = entry, at
            read.digests.append(digest)
            read.rows.append(row)
        start, line = end, line + text.count("\n", start, end)
    return read


def entries_here(text: str, start: int, line: int, kept: Kept) -> tuple[int, list[Found]]:
    """Where the entry at offset `start` (on `line`) ends, and its entries: from `kept` when
    its text is there, else read as the quick reader reads them."""
    entry = ENTRY_RE.match(text, start)
    if entry is None:  # a comment, an entry of another layout: never kept
        end, found = entries_at(text, start, line, SOURCES_FILE)
        return end, [(key, checked(value), at, None, None) for key, value, at in found]
    digest = text_digest(entry[0])
    known = kept.pop(digest, None)
    if known is not None:
        key, row = known
        return entry.end(), [(key, entry_from(dict(row)), line, digest, row)]
    found = matched_entries(entry, line, SOURCES_FILE)
    kept_as = digest if len(found) == 1 and found[0][2] == line else None  # read alone: kept
    return entry.end(), [(key, checked(value), at, kept_as, None) for key, value, at in found]


def checked(value: Any) -> SourceEntry:
    """The entry of an entry's data; NotReused when it has a problem (the full read reports it)."""
    entry, problem = entry_of(value)
    if entry is None or problem:
        raise NotReused(problem or "no entry")
    return entry

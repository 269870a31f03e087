"""A changed sources.yaml read again reusing the entries whose text did not change.

When sources.yaml changed since the last build (link-sources added a few papers, a person fixed
an arXiv id), most of its entries have the same text as in the signed cache of the last read
(`inputs.sources_signed`). The quick reader (`inputs.blockyaml`) reads each entry of
link-sources' layout (a key at column 2 and its lines at column 4 or more, ENTRY_RE) from its
text alone: the same text read by the same code is the same entry, whatever is around it; only
its line changes. So the cache keeps, with each entry, the span of its text (the sha256 of its
bytes, their length and its lines; when the quick reader took it alone: ENTRY_RE matched, one
entry on the key's line), and this read walks the file's bytes: where the entry that followed
the last one in the cached file has the same bytes (its length, its digest, and an entry or the
end after them), it is taken from the cache at its new line without a regular expression;
else ENTRY_RE (on bytes: it matches where it matches the text) finds the entry, taken from the
cache when its digest is known; only the bytes of the other entries are decoded, read as the
quick reader reads them and checked (`sources.entry_of`). Bytes never decoded were decoded and
read before (the same digest). The cache's header must name this code and this Python (its
signature is checked first, as for an unchanged file). Anything unusual (a byte-order mark, a
text the quick reader does not take, a key given twice, an entry with a problem, control
characters) gives None: the caller reads the whole file as before, which reports each problem
at its line. The result is that of `sources.sources_of` (tests compare them after random edits).
"""

from __future__ import annotations

import codecs
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from scholarsite.inputs.blockyaml import (
    ENTRY_RE,
    ENTRY_START_RE,
    HARMLESS,
    Unsupported,
    clean,
    entries_at,
    head_pattern,
)
from scholarsite.inputs.blockyaml import matched_entries as matched
from scholarsite.inputs.sources import SOURCES_FILE, SourceEntry, Sources, entry_of
from scholarsite.inputs.sources_signed import Kept, Span, entry_from
from scholarsite.inputs.text import CONTROL_RE

HEAD_RE = re.compile(head_pattern("papers").encode())
ENTRY_BYTES_RE = re.compile(ENTRY_RE.pattern.encode())
ENTRY_START_BYTES_RE = re.compile(ENTRY_START_RE.pattern.encode())
NOT_A_KEY = b" #:\n"  # what cannot follow the two spaces of an entry's key line (nor nothing)


@dataclass
class Reread:
    """The entries of a changed file, with the cache's slot of each (None: read here) and the
    span of each one's text (None: not kept), in the entries' order."""

    sources: Sources = field(default_factory=Sources)
    slots: list[int | None] = field(default_factory=list)
    spans: list[Span | None] = field(default_factory=list)
    pieces: list[bytes] = field(default_factory=list)  # the bytes decoded, to be checked


class NotReused(ValueError):
    """A file this read leaves to the full one."""


def reused_sources(data: bytes, kept: Kept | None) -> Reread | None:
    """The entries of sources.yaml's bytes, those of a text `kept` holds taken from it (its
    rows are taken, not copied); None when the file needs the full read."""
    head = HEAD_RE.match(data)
    if head is None or data.startswith(codecs.BOM_UTF8):
        return None
    try:
        read = Walk(data, kept).read(head.end(), data.count(b"\n", 0, head.end()) + 1)
        read.pieces.append(data[: head.end()])
        checked_bytes(b"".join(read.pieces))
    except (NotReused, Unsupported, UnicodeDecodeError):
        return None
    return read


def checked_bytes(data: bytes) -> None:
    """NotReused unless the bytes decoded are `clean` text without control characters (a
    look at the bytes first: a search of the text only when one could start one)."""
    if data.translate(None, HARMLESS):
        text = data.decode("utf-8")
        if not clean(text) or CONTROL_RE.search(text):
            raise NotReused("characters the quick reader does not take")


class Walk:
    """A walk over a file's bytes through a cache's entries."""

    def __init__(self, data: bytes, kept: Kept | None):
        self.data, self.view = data, memoryview(data)
        self.kept = kept if kept is not None and kept.reusable() else Kept((), [], [], [], [], [], b"", 0)
        self.by_digest: dict[bytes, int] | None = None
        self.done = Reread()

    def read(self, start: int, line: int) -> Reread:
        """The entries from offset `start` (on `line`) to the end."""
        after, end = self.kept.following(), len(self.data)
        slot = self.kept.order[0] if self.kept.order else -1
        while start < end:
            start, line, slot = self.run(start, line, slot, after)
            if start < end:
                start, lines, taken = self.other(start, line)
                line += lines
                slot = slot if taken is None else after[taken]
        return self.done

    def run(self, start: int, line: int, slot: int, after: list[int]) -> tuple[int, int, int]:
        """Take the entries from offset `start` (on `line`) that are those of the cache from
        `slot` on, one after the other as in the file it was kept for: where they end, the
        line there, and the slot that would come next."""
        data, view, spans, sha256, end = self.data, self.view, self.kept.spans, hashlib.sha256, len(self.data)
        slots: list[int] = []
        lines: list[int] = []
        while slot >= 0 and (span := spans[slot]) is not None:
            stop = start + span[1]
            if stop != end and (data[stop : stop + 2] != b"  " or data[stop + 2 : stop + 3] in NOT_A_KEY):
                break  # ENTRY_RE would not end there: no entry or the end after it
            if sha256(view[start:stop]).digest() != span[0]:
                break
            slots.append(slot)
            lines.append(line)
            start, line, slot = stop, line + span[2], after[slot]
        if slots:
            self.take(slots, lines)
        return start, line, slot

    def take(self, slots: list[int], lines: list[int]) -> None:
        """The entries of the cache's `slots`, on `lines` (their rows taken once their keys
        are known to be new)."""
        kept, done = self.kept, self.done
        keys = [kept.keys[slot] for slot in slots]
        if not done.sources.entries.keys().isdisjoint(keys):
            raise NotReused("a key given twice")
        rows = [kept.rows[slot] for slot in slots]
        done.sources.entries.update(zip(keys, map(entry_from, rows), strict=True))
        done.sources.lines.update(zip(keys, lines, strict=True))
        done.slots.extend(slots)
        done.spans.extend([kept.spans[slot] for slot in slots])

    def fresh(self, key: str) -> str:
        """`key`; NotReused when it was given before."""
        if key in self.done.sources.entries:
            raise NotReused("a key given twice")
        return key

    def add(self, key: str, entry: SourceEntry, line: int, slot: int | None, span: Span | None) -> None:
        """An entry of the file, under a new key."""
        done = self.done
        done.sources.entries[key], done.sources.lines[key] = entry, line
        done.slots.append(slot)
        done.spans.append(span)

    def other(self, start: int, line: int) -> tuple[int, int, int | None]:
        """Read what starts at offset `start` (on `line`) otherwise than as the entry that
        followed the last: where it ends, its lines, and the slot it was taken from (None:
        read)."""
        entry = ENTRY_BYTES_RE.match(self.data, start)
        if entry is None:  # a comment, an entry of another layout: never kept
            return self.segment(start, line)
        digest = hashlib.sha256(self.view[start : entry.end()]).digest()
        slot = self.known().get(digest)
        if slot is not None:
            self.take([slot], [line])
            return entry.end(), self.kept.spans[slot][2], slot  # type: ignore[index]
        text = self.decoded(start, entry.end())
        found = matched(ENTRY_RE.fullmatch(text) or unmatched(), line, SOURCES_FILE)
        lines = text.count("\n")
        span = (digest, entry.end() - start, lines) if len(found) == 1 and found[0][2] == line else None
        for key, value, at in found:
            self.add(self.fresh(key), checked(value), at, None, span)
        return entry.end(), lines, None

    def segment(self, start: int, line: int) -> tuple[int, int, None]:
        """Read the lines from `start` (on `line`) up to the next entry's key line as the
        quick reader reads them (`entries_at`): none of them kept."""
        after = ENTRY_START_BYTES_RE.search(self.data, max(self.data.find(b"\n", start), start))
        stop = after.start() + 1 if after else len(self.data)
        text = self.decoded(start, stop)
        at, lines = 0, line
        while at < len(text):
            end, found = entries_at(text, at, lines, SOURCES_FILE)
            for key, value, where in found:
                self.add(self.fresh(key), checked(value), where, None, None)
            at, lines = end, lines + text.count("\n", at, end)
        return stop, lines - line, None

    def decoded(self, start: int, stop: int) -> str:
        """The text of the bytes from `start` to `stop` (to be checked at the end)."""
        piece = self.data[start:stop]
        self.done.pieces.append(piece)
        return piece.decode("utf-8")

    def known(self) -> dict[bytes, int]:
        """The cache's slots by the digest of their text (made when first needed)."""
        if self.by_digest is None:
            self.by_digest = {span[0]: slot for slot, span in enumerate(self.kept.spans) if span}
        return self.by_digest


def unmatched() -> re.Match[str]:
    """NotReused: the text of bytes ENTRY_RE matched is not matched by it (never expected)."""
    raise NotReused("the entry's text does not match")


def checked(value: Any) -> SourceEntry:
    """The entry of an entry's data; NotReused when it has a problem (the full read reports it)."""
    entry, problem = entry_of(value)
    if entry is None or problem:
        raise NotReused(problem or "no entry")
    return entry

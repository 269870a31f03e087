"""sources.yaml's entries kept between builds, signed: `.scholarsite-cache/sources.signed`.

When this user has a key (`inputs.userkey`), a build keeps the entries it read from
sources.yaml as plain tuples (`marshal`: text, numbers, None, booleans and tuples only) after
an HMAC-SHA256 of them with the key, and next time loads them without checking them again,
if the signature is the key's and they were kept for the same bytes of sources.yaml (sha256),
the same code and the same Python. A file it did not write itself (planted, damaged, of
another user, another version) fails the signature or the header and is not used: the
file is read and the cache written again. The signature is checked before `marshal` reads a
byte of the body, so `marshal` only ever reads what this user's builds wrote. With each entry
the cache keeps the span of its text (the sha256 of its bytes, their length, its lines), so
that a changed file is read taking the entries of unchanged bytes from it
(`inputs.sources_reuse`). Equal text and counts are one object in the rows (`pooled`), which
`marshal` writes once and then refers to.

The entries of a changed file are kept as a delta beside this cache (the base): the entries
read, and the slot in the base of each of the others, with the base's signature, signed
too. A delta is used only with the base whose signature it names; each file is replaced
whole (`write_atomically`), and a torn or planted one fails its signature. When the delta
would hold over 1/DELTA_SHARE of the base's entries (new, or gone from the file), the base is
written again whole and the delta removed.

100,000 full entries (101 MB of sources.yaml, a 61 MB cache): the signature 0.06 s, `marshal`
0.27 s, the objects 0.11 s, where the checked JSON cache (`inputs.sources_cache`) took 1.6 to
1.8 s of CPU in all.
"""

from __future__ import annotations

import marshal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from operator import attrgetter
from pathlib import Path
from typing import Any, TypeVar

from scholarsite.inputs.digests import code_version
from scholarsite.inputs.openalex_part import IMPACT_DEFAULTS, Impact
from scholarsite.inputs.paperlinks import Link
from scholarsite.inputs.sources import ENTRY_DEFAULTS, Candidate, SourceEntry, Sources
from scholarsite.inputs.store import write_atomically
from scholarsite.inputs.userkey import MAC_BYTES, signed, signed_body

MAGIC = b"scholarsite sources.signed 3\n"
ENTRY_NAMES = tuple(ENTRY_DEFAULTS)
IMPACT_NAMES = tuple(IMPACT_DEFAULTS)
CANDIDATE_NAMES = tuple(Candidate.__dataclass_fields__)
LINK_NAMES = tuple(Link.__dataclass_fields__)
# The fields `row_of` pools whole (text, version numbers, counts), before the others.
ENTRY_POOLED, IMPACT_POOLED = ENTRY_NAMES[:11], IMPACT_NAMES[:9]
assert ENTRY_NAMES[11:] == ("authors", "candidates", "openalex", "links", "locked")
assert IMPACT_NAMES[9:] == ("references",)
ENTRY_GETTER, IMPACT_GETTER = attrgetter(*ENTRY_POOLED), attrgetter(*IMPACT_POOLED)
DELTA_SHARE = 8  # a delta of over 1/8 of the base's entries (changed or gone) is compacted
Fields = dict[str, Any]
Span = tuple[bytes, int, int]  # an entry's text: the sha256 of its bytes, their length, its lines
Frozen = TypeVar("Frozen")


def header(digest: str) -> tuple[str, ...]:
    """What a cache for the sources.yaml of sha256 `digest` starts with: its format, the
    code's version, Python's (marshal's format may change with it) and the digest."""
    return ("3", code_version(), sys.version, digest)


def delta_file(file: Path) -> Path:
    """The delta beside the signed cache `file`."""
    return file.with_suffix(".delta")


@dataclass
class Kept:
    """A signed cache as loaded: the entries it holds by slot (the base's, then the delta's:
    key, row, and the span of its text when it was read alone), and the file it was kept for
    (its header; the slot and line of each of its entries, in order)."""

    head: tuple[str, ...]
    keys: list[str]
    rows: list[Fields]
    spans: list[Span | None]
    order: Sequence[int]
    lines: list[int]
    base: bytes  # the base's signature
    based: int  # how many slots are the base's

    def following(self) -> list[int]:
        """The slot after each slot in the file it was kept for (-1: none)."""
        after = [-1] * len(self.keys)
        for slot, then in pairwise(self.order):
            after[slot] = then
        return after

    def reusable(self) -> bool:
        """Whether its entries were kept by this code and this Python."""
        return self.head[:3] == header("")[:3]


def signed_sources(file: Path, digest: str, key: bytes) -> Sources | None:
    """The entries kept in `file` (and its delta) for the sources.yaml of sha256 `digest`;
    None when they are missing, not signed by `key`, or kept for other bytes, code or Python."""
    return sources_in(signed_cache(file, key), digest)


def signed_cache(file: Path, key: bytes) -> Kept | None:
    """The signed cache in `file`, with its delta when the delta is signed by `key` and made
    on this base; None when the base is missing, not signed by `key` or of another layout."""
    try:
        base = file.read_bytes()
        body = signed_body(base, key, MAGIC)
        if body is None:
            return None
        head, keys, lines, rows, spans = marshal.loads(body)
        signature = base[len(MAGIC) : len(MAGIC) + MAC_BYTES]
        kept = Kept(head, keys, rows, spans, range(len(keys)), lines, signature, len(keys))
        with_delta(kept, delta_file(file), key)
        return kept
    except (OSError, ValueError, TypeError, EOFError):
        return None


def with_delta(kept: Kept, file: Path, key: bytes) -> None:
    """Add the delta in `file` to `kept`, when it is signed by `key`, made on `kept`'s base
    and of the same code."""
    try:
        body = signed_body(file.read_bytes(), key, MAGIC)
        if body is None:
            return
        head, base, keys, rows, spans, order, lines = marshal.loads(body)
    except (OSError, ValueError, TypeError, EOFError):
        return
    if base == kept.base and head[:3] == kept.head[:3]:
        kept.head, kept.order, kept.lines = head, order, lines
        kept.keys, kept.rows, kept.spans = kept.keys + keys, kept.rows + rows, kept.spans + spans


def sources_in(kept: Kept | None, digest: str) -> Sources | None:
    """The entries of a signed cache, if they were kept for the sources.yaml of sha256
    `digest` by this code and this Python; else None."""
    if kept is None or kept.head != header(digest):
        return None
    keys, rows = kept.keys, kept.rows
    try:
        ordered = [keys[slot] for slot in kept.order]
        return Sources(
            dict(zip(ordered, [entry_from(rows[slot]) for slot in kept.order], strict=True)),
            dict(zip(ordered, kept.lines, strict=True)),
        )
    except (ValueError, TypeError, KeyError, IndexError):  # a cache of another layout, say
        return None


def keep_signed(
    file: Path, digest: str, sources: Sources, key: bytes, spans: Sequence[Span | None] = ()
) -> None:
    """Keep the entries read from the sources.yaml of sha256 `digest` in `file` (the base),
    signed, with the span of each entry's text (`spans`, in the entries' order; None: not
    kept); its delta, made on the last base, is removed after."""
    keys = list(sources.entries)
    pool: dict[Any, Any] = {}
    rows = [row_of(entry, pool) for entry in sources.entries.values()]
    kept = list(spans) or [None] * len(keys)
    body = marshal.dumps((header(digest), keys, [sources.line(key) for key in keys], rows, kept))
    write_atomically(file, signed(key, MAGIC, body))
    delta_file(file).unlink(missing_ok=True)


def keep_changed(
    file: Path,
    kept: Kept | None,
    digest: str,
    sources: Sources,
    key: bytes,
    slots: Sequence[int | None],
    spans: Sequence[Span | None],
) -> None:
    """Keep the entries of a changed sources.yaml of sha256 `digest`, each taken from slot
    `slots` of `kept` (None: read), as a delta on `kept`'s base: the base's slots by number,
    the others' rows; the whole as a new base when there is no base to build on, or when
    the delta would hold over 1/DELTA_SHARE of the base's entries (new, or gone from it)."""
    if kept is None or not kept.reusable():
        return keep_signed(file, digest, sources, key, spans)
    based = kept.based
    order: list[int] = []
    keys: list[str] = []
    rows: list[Fields] = []
    added: list[Span | None] = []
    pool: dict[Any, Any] = {}
    for (name, entry), slot, span in zip(sources.entries.items(), slots, spans, strict=True):
        if slot is not None and slot < based:
            order.append(slot)
            continue
        order.append(based + len(keys))
        keys.append(name)
        rows.append(row_of(entry, pool))
        added.append(span)
    if (len(keys) + based - (len(order) - len(keys))) * DELTA_SHARE > based:
        return keep_signed(file, digest, sources, key, spans)
    lines = [sources.line(name) for name in sources.entries]
    body = marshal.dumps((header(digest), kept.base, keys, rows, added, order, lines))
    write_atomically(delta_file(file), signed(key, MAGIC, body))


def row_of(entry: SourceEntry, pool: dict[Any, Any]) -> Fields:
    """An entry as the dict of its fields in the class's order, its parts as dicts too, its
    text, numbers and counts taken from `pool` (put there when none is equal): `marshal`
    writes an object it has written before as a reference, which it loads without making the
    object again (dates, statuses, venues, names and references recur in a large file). No
    field pooled holds booleans, which would be taken for equal numbers."""
    get = pool.setdefault
    fields = dict(zip(ENTRY_POOLED, map(get, *[ENTRY_GETTER(entry)] * 2), strict=True))
    fields["authors"] = tuple(map(get, entry.authors, entry.authors))
    fields["candidates"] = tuple(fields_of(candidate, CANDIDATE_NAMES) for candidate in entry.candidates)
    fields["openalex"] = None if entry.openalex is None else impact_row(entry.openalex, pool)
    fields["links"] = tuple(fields_of(link, LINK_NAMES) for link in entry.links)
    fields["locked"] = entry.locked
    return fields


def impact_row(impact: Impact, pool: dict[Any, Any]) -> Fields:
    """An OpenAlex part as the dict of its fields, pooled as `row_of` pools an entry's."""
    get = pool.setdefault
    fields = dict(zip(IMPACT_POOLED, map(get, *[IMPACT_GETTER(impact)] * 2), strict=True))
    fields["references"] = tuple(map(get, impact.references, impact.references))
    return fields


def fields_of(instance: object, names: tuple[str, ...]) -> Fields:
    """An instance's fields `names` by name, in that order."""
    return {name: getattr(instance, name) for name in names}


def entry_from(fields: Fields) -> SourceEntry:
    """The entry of a `row_of` dict (taken as its fields): the same object as `sources.entry_of`
    makes, made without `__init__` as it makes them."""
    if fields["openalex"] is not None:
        fields["openalex"] = instance(Impact, fields["openalex"])
    if fields["candidates"]:
        fields["candidates"] = tuple(instance(Candidate, each) for each in fields["candidates"])
    if fields["links"]:
        fields["links"] = tuple(instance(Link, each) for each in fields["links"])
    return instance(SourceEntry, fields)


def instance(cls: type[Frozen], fields: Fields) -> Frozen:
    """An instance of the frozen dataclass `cls` whose fields are `fields` (every one, in the
    class's order; the dict is taken, not copied)."""
    made = object.__new__(cls)
    object.__setattr__(made, "__dict__", fields)
    return made

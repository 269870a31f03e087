"""sources.yaml's entries kept between builds, signed: `.scholarsite-cache/sources.signed`.

When this user has a key (`inputs.userkey`), a build keeps the entries it read from
sources.yaml as plain tuples (`marshal`: text, numbers, None, booleans and tuples only) after
an HMAC-SHA256 of them with the key, and next time loads them without checking them again,
if the signature is the key's and they were kept for the same bytes of sources.yaml (sha256),
the same code and the same Python. A file it did not write itself (planted, damaged, of
another user, another version) fails the signature or the header and is not used: the
file is read and the cache written again. The signature is checked before `marshal` reads a
byte of the body, so `marshal` only ever reads what this user's builds wrote. With each entry
the cache keeps the digest of its text, so that a changed file is read taking the entries of
unchanged text from it (`inputs.sources_reuse`).

100,000 full entries (101 MB of sources.yaml, a 75 MB cache): the signature 0.04 s, `marshal`
0.27 s, the objects 0.3 s, where the checked JSON cache (`inputs.sources_cache`) took 1.6 to
1.8 s of CPU in all.
"""

from __future__ import annotations

import hashlib
import hmac
import marshal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from scholarsite.inputs.digests import code_version
from scholarsite.inputs.openalex_part import IMPACT_DEFAULTS, Impact
from scholarsite.inputs.paperlinks import Link
from scholarsite.inputs.sources import ENTRY_DEFAULTS, Candidate, SourceEntry, Sources
from scholarsite.inputs.store import write_atomically

MAGIC = b"scholarsite sources.signed 2\n"
MAC_BYTES = hashlib.sha256().digest_size
ENTRY_NAMES = tuple(ENTRY_DEFAULTS)
IMPACT_NAMES = tuple(IMPACT_DEFAULTS)
CANDIDATE_NAMES = tuple(Candidate.__dataclass_fields__)
LINK_NAMES = tuple(Link.__dataclass_fields__)
Fields = dict[str, Any]
Contents = tuple[tuple[str, ...], list[str], list[int], list[Fields], list[bytes | None]]
Frozen = TypeVar("Frozen")


def header(digest: str) -> tuple[str, ...]:
    """What a cache for the sources.yaml of sha256 `digest` starts with: its format, the
    code's version, Python's (marshal's format may change with it) and the digest."""
    return ("2", code_version(), sys.version, digest)


def signed_sources(file: Path, digest: str, key: bytes) -> Sources | None:
    """The entries kept in `file` for the sources.yaml of sha256 `digest`; None when the file
    is missing, not signed by `key`, or kept for other bytes, code or Python."""
    return sources_in(signed_contents(file, key), digest)


def signed_contents(file: Path, key: bytes) -> Contents | None:
    """What `file` holds (header, keys, lines, rows, the digest of each entry's text), if it
    is signed by `key` and of this layout; else None."""
    try:
        body = signed_body(file.read_bytes(), key)
        if body is None:
            return None
        head, keys, lines, rows, texts = marshal.loads(body)
        return head, keys, lines, rows, texts
    except (OSError, ValueError, TypeError, EOFError):
        return None


def sources_in(contents: Contents | None, digest: str) -> Sources | None:
    """The entries of a signed cache's contents, if they were kept for the sources.yaml of
    sha256 `digest` by this code and this Python; else None."""
    if contents is None or contents[0] != header(digest):
        return None
    _, keys, lines, rows, _ = contents
    try:
        return Sources(
            dict(zip(keys, map(entry_from, rows), strict=True)),
            dict(zip(keys, lines, strict=True)),
        )
    except (ValueError, TypeError, KeyError):  # a cache of another layout, say
        return None


def reusable(contents: Contents | None) -> dict[bytes, tuple[str, Fields]]:
    """The entries of a signed cache of any sources.yaml kept by this code and this Python, by
    the digest of their text (`sources_reuse`): each paper key with its row (to be copied
    before `entry_from` takes it). None of an entry read otherwise than alone (no digest kept)."""
    if contents is None or contents[0][:3] != header("")[:3]:
        return {}
    _, keys, _, rows, texts = contents
    return {text: (key, row) for text, key, row in zip(texts, keys, rows, strict=True) if text}


def signed_body(data: bytes, key: bytes) -> bytes | None:
    """The body of a signed cache's bytes, if they are signed by `key`; else None."""
    if not data.startswith(MAGIC):
        return None
    signature, body = data[len(MAGIC) : len(MAGIC) + MAC_BYTES], data[len(MAGIC) + MAC_BYTES :]
    return body if hmac.compare_digest(signature, mac(key, body)) else None


def mac(key: bytes, body: bytes) -> bytes:
    """The signature of a cache's body."""
    return hmac.new(key, body, hashlib.sha256).digest()


def keep_signed(
    file: Path,
    digest: str,
    sources: Sources,
    key: bytes,
    texts: Sequence[bytes | None] = (),
    rows: Sequence[Fields | None] = (),
) -> None:
    """Keep the entries read from the sources.yaml of sha256 `digest` in `file`, signed, with
    the digest of each entry's text (`texts`, in the entries' order; None: not kept) and the
    row of each that a cache gave (`rows`; None: made here)."""
    keys = list(sources.entries)
    given = rows or [None] * len(keys)
    made = [row or row_of(entry) for row, entry in zip(given, sources.entries.values(), strict=True)]
    kept = list(texts) or [None] * len(keys)
    body = marshal.dumps((header(digest), keys, [sources.line(key) for key in keys], made, kept))
    write_atomically(file, MAGIC + mac(key, body) + body)


def row_of(entry: SourceEntry) -> Fields:
    """An entry as the dict of its fields in the class's order, its parts as dicts too."""
    fields = fields_of(entry, ENTRY_NAMES)
    impact = entry.openalex
    fields["openalex"] = None if impact is None else fields_of(impact, IMPACT_NAMES)
    fields["candidates"] = tuple(fields_of(candidate, CANDIDATE_NAMES) for candidate in entry.candidates)
    fields["links"] = tuple(fields_of(link, LINK_NAMES) for link in entry.links)
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

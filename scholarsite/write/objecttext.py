"""The JSON text of the site's manifest.

It is an object of short arrays of strings, one member a file of the site (a hundred thousand
at a large collection's site), written by every sync that changes the site: `object_pieces`
writes it with orjson (three times faster than `json`), and with `json` where orjson's text
would differ from `json.dumps`'s (a character outside printable ASCII, which `json` escapes), so
the bytes depend on the object alone, whichever way they were written. It is written in pieces
of a few thousand members: the manifest of 92,000 files (18 MB) made whole was the largest
memory of an edit at 37,537 papers (orjson's buffer grows by doubling; the text was then
copied once more between its head and its tail).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

import orjson

Value = Sequence[str | int]  # strings and integers (never booleans)
PIECE = 4096  # members per piece


def object_pieces(members: dict[str, Value], size: int = PIECE) -> Iterator[bytes]:
    """`object_bytes(members)` in pieces, of `size` members each (and the braces)."""
    names = sorted(members)
    yield b"{"
    for start in range(0, len(names), size):
        text = object_bytes({name: members[name] for name in names[start : start + size]})
        yield (b"," if start else b"") + text[1:-1]
    yield b"}"


def object_bytes(members: dict[str, Value]) -> bytes:
    """`json.dumps(members, separators=(",", ":"), sort_keys=True)`, in ASCII (orjson's bytes
    taken as they are: a site's manifest is not copied into a string and back)."""
    try:
        text = orjson.dumps(members, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:  # an integer past 64 bits
        text = b"\\"
    if text.isascii() and b"\\" not in text and b"\x7f" not in text:  # nothing `json` escapes
        return text
    return json.dumps(members, separators=(",", ":"), sort_keys=True).encode("ascii")

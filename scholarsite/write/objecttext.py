"""The JSON text of the site's manifest.

It is an object of short arrays of strings, one member a file of the site (a hundred thousand
at a large collection's site), written by every sync that changes the site: `object_bytes`
writes it with orjson (three times faster than `json`), and with `json` when
orjson's text would differ from `json.dumps`'s (a character outside printable ASCII, which
`json` escapes), so the bytes depend on the object alone, whichever way they were written.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import orjson

Value = Sequence[str | int]  # strings and integers (never booleans)


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

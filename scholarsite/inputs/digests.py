"""Digests: of bytes, of plain data (the keys of outputs and caches), of scholarsite's own code.

A key is a sha256 of the data's pickle in "fast" mode (no memo), so it depends on values alone;
objects whose digest is known already (the cards many pages show) are written as that digest.
`code_version` is in every key and every cache entry: a new scholarsite invalidates them all.
"""

from __future__ import annotations

import hashlib
import io
import pickle
from functools import cache
from pathlib import Path
from typing import Any


@cache
def code_version() -> str:
    """A digest of the package's code and data: a new scholarsite invalidates every key."""
    package = Path(__file__).parent.parent
    summary = hashlib.sha256()
    for file in sorted([*package.rglob("*.py"), *package.rglob("data/*.json")]):
        summary.update(file.relative_to(package).as_posix().encode() + b"\0" + file.read_bytes())
    return summary.hexdigest()[:16]


def digest(data: bytes) -> str:
    """sha256 hex digest of bytes."""
    return hashlib.sha256(data).hexdigest()


class _PlainPickler(pickle.Pickler):
    """Pickles values in full, in "fast" mode: no memo, so the bytes depend on values alone,
    not on which equal strings happen to be one object."""

    def __init__(self, buffer: io.BytesIO):
        super().__init__(buffer, protocol=5)
        self.fast = True


class _KeyPickler(_PlainPickler):
    """A _PlainPickler that writes objects with a known digest as that digest (pickle then asks
    `persistent_id` of every object it meets, which costs as much as pickling it)."""

    def __init__(self, buffer: io.BytesIO, known: dict[int, str]):
        super().__init__(buffer)
        self.known = known

    def persistent_id(self, obj: Any) -> str | None:
        return self.known.get(id(obj))


def key_of(*parts: Any, known: dict[int, str] | None = None) -> str:
    """The key of plain data (dicts, lists, strings, numbers, Markup, dates).

    `known` maps shared objects (the cards that many pages show) by identity to a digest of
    their content, so each is encoded once per build rather than once per page showing it.
    Pickle is four times faster than JSON here.
    """
    buffer = io.BytesIO()
    (_KeyPickler(buffer, known) if known else _PlainPickler(buffer)).dump(parts)
    return hashlib.sha256(buffer.getvalue()).hexdigest()

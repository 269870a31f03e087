"""What every output family yields: files (and folders of files) with a key of their inputs.

A key is a digest of everything an output is made from: the code version, the template
sources it uses and its context data. The writer compares keys with the manifest of the
last build, so an output whose key is unchanged is neither produced nor read back.
"""

from __future__ import annotations

import hashlib
import io
import pickle
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Output:
    """One file of the site: where it goes, what it is made from, and how to make it."""

    path: str
    key: str
    produce: Callable[[], bytes]


@dataclass(frozen=True)
class Bundle:
    """A folder of files made together by one producer (the search index)."""

    folder: str
    key: str
    produce: Callable[[], dict[str, bytes]]  # the files, by path inside the folder


Produced = Output | Bundle


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


def fixed(path: str, data: bytes) -> Output:
    """An output whose bytes are already known: its key is their digest."""
    if not isinstance(data, bytes):
        raise TypeError(f"output {path!r} must be bytes, not {type(data).__name__}")
    return Output(path, digest(data), lambda: data)


def as_bytes(text: str) -> bytes:
    """UTF-8 with a final newline."""
    return (text if text.endswith("\n") else text + "\n").encode("utf-8")


Family = Callable[[Any], Iterable[Produced]]

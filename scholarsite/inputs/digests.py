"""Digests: of bytes, of plain data (the keys of outputs and caches), of scholarsite's own code.

A key is a sha256 of the data's pickle in "fast" mode (no memo), so it depends on values alone;
`Digested` values (the cards and citation records many pages show) are written as their own
digest, computed once.
`code_version` is in every key and every cache entry: a new scholarsite invalidates them all.
"""

from __future__ import annotations

import hashlib
import io
import pickle
import threading
from functools import cache, cached_property
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


def short_hash(identity: str, length: int = 8) -> str:
    """A stable hexadecimal digest of an identity."""
    return hashlib.sha256(identity.encode("utf-8")).hexdigest()[:length]


class _PlainPickler(pickle.Pickler):
    """Pickles values in full, in "fast" mode: no memo, so the bytes depend on values alone,
    not on which equal strings happen to be one object."""

    def __init__(self, buffer: io.BytesIO):
        super().__init__(buffer, protocol=5)
        self.fast = True


class Digested:
    """A value never changed once made (a frozen dataclass, a `DigestedDict`): its digest,
    computed on first use, stands for it in every key that holds it, so a card shown on a
    thousand pages is encoded once per build, not once per page."""

    @cached_property
    def digest(self) -> str:
        """The digest of the value itself."""
        buffer = io.BytesIO()
        _PlainPickler(buffer).dump(self)
        return hashlib.sha256(buffer.getvalue()).hexdigest()

    def __getstate__(self) -> dict[str, Any] | None:
        """The value's state without its cached digest, so its pickle (and any key made from
        it) is the same whether the digest was asked for yet or not."""
        state = {k: v for k, v in getattr(self, "__dict__", {}).items() if k != "digest"}
        return state or None


class DigestedDict(Digested, dict):  # type: ignore[type-arg]
    """A dict that is `Digested`: never change it once made."""


class DigestedList(Digested, list):  # type: ignore[type-arg]
    """A list that is `Digested`, its digest made of its items' with their `Digested` values as
    theirs: data many pages read (the A-Z authors every index page lists) is encoded once per
    build, not once per page. Never change it once made."""

    @cached_property
    def digest(self) -> str:
        """The key of the items, `Digested` ones by their digest."""
        return key_of(list(self), digested=True)


class _KeyPickler(_PlainPickler):
    """A _PlainPickler that writes `Digested` values as their digest. It overrides
    `reducer_override`, which pickle asks only of objects that are not of a built-in type
    (`persistent_id` would be asked of every string and number, costing as much as pickling)."""

    def reducer_override(self, obj: Any) -> Any:
        return (str, (obj.digest,)) if isinstance(obj, Digested) else NotImplemented


class _Picklers(threading.local):
    """Each thread's two picklers and their buffer, made once: a build asks for hundreds of
    thousands of keys, and making a pickler cost as much as pickling a small key's data."""

    def __init__(self) -> None:
        self.buffer = io.BytesIO()
        self.plain = _PlainPickler(self.buffer)
        self.keyed = _KeyPickler(self.buffer)
        self.busy = False  # a key is being pickled


_PICKLERS = _Picklers()


def key_of(*parts: Any, digested: bool = False) -> str:
    """The key of plain data (dicts, lists, strings, numbers, Markup, dates).

    With `digested`, `Digested` values in the data are written as their digest (for data that
    holds the shared cards and records). Pickle is four times faster than JSON here.
    """
    picklers = _PICKLERS
    if picklers.busy:  # asked while pickling (a value's digest made mid-key): picklers of its own
        picklers = _Picklers()
    buffer = picklers.buffer
    buffer.seek(0)
    buffer.truncate()
    picklers.busy = True
    try:
        (picklers.keyed if digested else picklers.plain).dump(parts)
    except BaseException:
        picklers.__init__()  # a pickler stopped mid-way: fresh ones for the next key
        raise
    finally:
        picklers.busy = False
    return hashlib.sha256(buffer.getvalue()).hexdigest()

"""A dict whose entries are looked up in a store when first needed (`OnDemand`): how a build
reads only the part of a value kept between builds that its change needs (the related
papers' index at 37,537 papers: a few rows of 37,537, a few terms of 150,000)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

Key = TypeVar("Key")
Value = TypeVar("Value")


class OnDemand(dict[Key, Value]):
    """A dict that asks `find` for each key the first time it is used (None: the store has no
    entry); an entry set, deleted or popped here is never looked up again, so the dict holds
    the store's entries with every change made to it since.

    Only what the store has been asked for is in the dict: iterating it, its length and its
    equality see those entries alone (`keys` of a whole index are kept in a plain dict)."""

    def __init__(self, find: Callable[[Key], Value | None]):
        super().__init__()
        self.find = find
        self.looked: set[Key] = set()

    def look(self, key: Key) -> None:
        """Bring the store's entry for `key` in, once."""
        if key in self.looked:
            return
        self.looked.add(key)
        if not dict.__contains__(self, key):
            found = self.find(key)
            if found is not None:
                dict.__setitem__(self, key, found)

    def look_all(self, keys: Iterable[Key]) -> None:
        """`look` each of `keys`."""
        for key in keys:
            self.look(key)

    def __missing__(self, key: Key) -> Value:
        if key in self.looked:
            raise KeyError(key)
        self.look(key)
        return dict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        self.look(key)  # type: ignore[arg-type]
        return dict.__contains__(self, key)

    def __setitem__(self, key: Key, value: Value) -> None:
        self.looked.add(key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: Key) -> None:
        self.look(key)
        dict.__delitem__(self, key)

    def get(self, key: Key, default: Any = None) -> Any:
        self.look(key)
        return dict.get(self, key, default)

    def pop(self, key: Key, *default: Any) -> Any:
        self.look(key)
        return dict.pop(self, key, *default)

"""Sets and mappings answered by lookup, not made whole: what of a model is as the kept one had
it (`snapshot.unchanged`) is asked about one paper or author at a time, and making it whole took
a third of a second at 37,537 papers before the preview could show the page it has open."""

from __future__ import annotations

from collections.abc import Callable, Container, Iterator, Mapping
from typing import Any


class Checked(Container[Any]):
    """The items `check` holds for, each checked when first asked about."""

    def __init__(self, check: Callable[[Any], bool]):
        self.check = check
        self.found: dict[Any, bool] = {}

    def __contains__(self, item: object) -> bool:
        if (found := self.found.get(item)) is None:
            found = self.found[item] = self.check(item)
        return found


class FieldOf(Mapping[str, str]):
    """One field of some rows (by key, from `rows` when first asked): of the rows `keep` holds
    for, where the field is not empty."""

    def __init__(self, rows: Callable[[], Mapping[str, Any]], field: str, keep: Callable[[str], bool]):
        self.rows = rows  # asked for when first needed
        self.field = field
        self.keep = keep

    def __getitem__(self, key: str) -> str:
        row = self.rows().get(key)
        value = getattr(row, self.field, "") if row is not None and self.keep(key) else ""
        if not value:
            raise KeyError(key)
        return value

    def __iter__(self) -> Iterator[str]:
        return (key for key, row in self.rows().items() if getattr(row, self.field) and self.keep(key))

    def __len__(self) -> int:
        return sum(1 for _ in self)

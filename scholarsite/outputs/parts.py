"""The keys of the site's files of many items, taken from the last complete build.

A file listing thousands of items (a part of `data/papers.json` or `data/authors.json`, a part
of the authors' BibTeX, a subject's `papers.bib`, a search shard) is keyed by what each of its
items is made from: working that out for every such file read every paper's and author's data,
0.8 s of an edit at 37,537 papers that changes one or two of them. The build state keeps each
file's key with a digest of whom it lists (its *members*, in order, with the code's version and
the settings its items read). A file that lists the same members, none changed since the last
build, takes the key kept, its items not read. What "changed" is, is the family's to say: an
author whose fields and lists are not the kept model's (`Kept.lists_as_read`: the item the last
build made is then the same), or a value (a card, a citation record, what a paper's line of
`data/papers.json` is made from) whose digest is not the last build's (`values_kept`). The keys
are kept in the transaction that keeps the mark of the model they were made with
(`BuildState.save_page_plans`), and taken only while that mark is the kept model's (without it
there is no `Unchanged`, and every key is worked out).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from scholarsite.model.cards import MadeOnDemand

Kept = tuple[str, str]  # a file's members' digest and its key


def values_kept(values: MadeOnDemand[Any, Any], keys: Iterable[str]) -> bool:
    """Whether the values of these keys have the digests the last build's had
    (`MadeOnDemand.changed`; False when that is not known)."""
    changed = values.changed
    return changed is not None and changed.isdisjoint(keys)


class PartKeys:
    """The keys of the files of many items: the last complete build's (`last`, by site path),
    taken when `usable`, and this build's (`now`), kept for the next."""

    def __init__(self, last: Mapping[str, Kept] | None = None, usable: bool = False):
        self.last = dict(last or {})
        self.usable = usable  # the members' items are known to be the last build's when `unchanged` says so
        self.now: dict[str, Kept] = {}

    def key(self, path: str, members: str, unchanged: Callable[[], bool], work_out: Callable[[], str]) -> str:
        """The key of the file at `path` listing `members` (their digest): the last build's when
        it listed the same and they are all `unchanged` since, else worked out."""
        last = self.last.get(path) if self.usable else None
        key = last[1] if last is not None and last[0] == members and unchanged() else work_out()
        self.now[path] = (members, key)
        return key

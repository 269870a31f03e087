"""Results of pure text functions (TeX to HTML and text, BibTeX) kept between builds.

Rendering the TeX of every title and abstract and writing every BibTeX entry cost seconds at
10,000 papers, though few of them change between two builds. The memo keeps each result by
a digest of its input and of scholarsite's code, in `.scholarsite-cache/derived/` (plain JSON
in shards, so loading runs no code and a build rewrites only the shards it changed). A build
that planned every page keeps only the entries it used or kept (`keep`); any other keeps every
entry: it made the cards of the pages it planned only (an edit that dropped the others' TeX
renderings had the next build that showed them render them again, thousands at 37,537 papers).
A model merged by the change (the preview's, a one-shot build's from the kept model) names only
the papers it merged again: a build that plans every page then drops the other papers' names,
which only a whole merge asks for again. A missing or unreadable shard is simply rebuilt.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from functools import lru_cache, partial
from pathlib import Path

from markupsafe import Markup

from scholarsite.inputs.digests import code_version
from scholarsite.inputs.store import CACHE_FOLDER, SHARDS, Shards, shard_of

MEMO_FILE = CACHE_FOLDER / "derived"  # a folder of shards


@lru_cache(maxsize=2**19)  # a collection's titles and abstracts, in a process that builds again
def entry_key(name: str, source: str) -> str:
    """The memo's key of `name` applied to `source`."""
    return hashlib.sha256(f"{name}\0{source}".encode("utf-8", "surrogatepass")).hexdigest()


class Memo:
    """A dictionary of computed strings by (function name, input), saved as JSON shards."""

    def __init__(self, folder: Path | None = None):
        self.shards = Shards(folder.parent, folder.name) if folder is not None else Shards(None, "")
        self.dirty: set[int] = set()  # shards whose entries changed
        self.entries: dict[str, str] = self.load()
        self.used: set[str] = set()
        self.kept: list[tuple[str, list[str]]] = []  # (name, sources) `keep` was told of
        self.added: dict[str, str] = {}  # entries computed since `take_added` or `save`

    def load(self) -> dict[str, str]:
        """The saved entries; a shard of other code, or damaged, counts as empty and is rewritten
        at the next save (every shard, when one cannot be read)."""
        entries: dict[str, str] = {}
        try:
            for shard, saved in self.shards.read():
                found = saved["entries"]
                if saved["code"] == code_version() and isinstance(found, dict):
                    texts = set(map(type, found.values())) <= {str}  # checked at once: the usual case
                    entries.update(found if texts else {k: v for k, v in found.items() if isinstance(v, str)})
                else:
                    self.dirty.add(shard)
        except (OSError, ValueError, KeyError, TypeError):
            self.dirty = set(range(SHARDS))
            return {}
        return entries

    @staticmethod
    def key(name: str, source: str) -> str:
        """The entry of `name` applied to `source`."""
        return entry_key(name, source)

    def has(self, name: str, source: str) -> bool:
        """Whether `name` applied to `source` is known."""
        return self.key(name, source) in self.entries

    def text(self, name: str, compute: Callable[[str], str], source: str) -> str:
        """`compute(source)`, from the memo when it was computed before."""
        key = self.key(name, source)
        self.used.add(key)
        found = self.entries.get(key)
        if found is None:
            found = self.entries[key] = self.added[key] = compute(source)
            self.dirty.add(shard_of(key))
        return found

    def take_added(self) -> dict[str, str]:
        """The entries computed since this was last asked (by a forked render worker, whose
        memo is its own copy: `add` gives them to the building process's)."""
        added, self.added = self.added, {}
        return added

    def add(self, entries: object) -> None:
        """Entries a worker computed (`take_added`), kept as this process's own, and used."""
        assert isinstance(entries, dict)
        for key, text in entries.items():
            if key not in self.entries:
                self.entries[key] = text
                self.dirty.add(shard_of(key))
        self.used.update(entries)

    def keep(self, name: str, sources: Iterable[str]) -> None:
        """Keep the entries of `name` applied to `sources` that are known, though this build
        does not use them (a later build will); their keys are worked out only by a save that
        collects."""
        self.kept.append((name, list(sources)))

    def markup(self, name: str, compute: Callable[[str], Markup], source: str) -> Markup:
        """Like `text`, for functions that return safe HTML."""
        return Markup(self.text(name, compute, source))

    def save(self, collect: bool = True) -> None:
        """Keep the entries this build used (every entry, without `collect`: a build that
        planned only some pages used only their cards' entries, and the rest are still the
        site's); write the shards whose entries changed."""
        if collect:
            for name, sources in self.kept:
                self.used.update(key for key in map(partial(entry_key, name), sources) if key in self.entries)
            self.dirty |= {shard_of(key) for key in self.entries.keys() - self.used}
            self.entries = {key: self.entries[key] for key in self.used}
        keys: dict[int, list[str]] = {shard: [] for shard in self.dirty}  # only these are sorted
        for key in self.entries:
            if (shard := shard_of(key)) in keys:
                keys[shard].append(key)
        code, entries = code_version(), self.entries
        bodies = ((shard, {key: entries[key] for key in sorted(found)}) for shard, found in keys.items())
        self.shards.write((shard, {"code": code, "entries": items}) for shard, items in bodies)
        self.used, self.dirty, self.kept, self.added = set(), set(), [], {}  # saved: none added since

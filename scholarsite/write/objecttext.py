"""The JSON text of the site's bookkeeping (the manifest, the stats record), member by member.

Both are objects of short arrays, one member a file of the site, rewritten by every sync though
a save changes few of them: an `ObjectText` remembers the last object it wrote, member by
member, so a sync after a change writes a manifest of 100,000 files by changing the texts of
the members that changed and joining, not by encoding them all again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from json.encoder import encode_basestring_ascii as quoted  # `json.dumps`'s own, in C

Value = tuple[str | int, ...]  # strings and integers (never booleans)


def member_text(name: str, value: Value) -> str:
    """One member, `"name":[...]`, as `json.dumps` writes it without spaces (its string
    encoder called directly: a third of the time, at 92,000 members a sync)."""
    items = ",".join(quoted(item) if isinstance(item, str) else str(item) for item in value)
    return f"{quoted(name)}:[{items}]"


class ObjectText:
    """`json.dumps(members, separators=(",", ":"), sort_keys=True)` for objects whose members
    are arrays of strings and integers, the last one's members remembered (names sorted: the
    text depends on the values alone, whatever was written before). A value is never changed
    in place once given (the manifest's are tuples; the stats record's lists are replaced)."""

    def __init__(self) -> None:
        self.values: dict[str, Iterable[str | int]] = {}
        self.texts: list[str] = []  # the members' texts, by name
        self.place: dict[str, int] = {}  # name -> its text's place

    def __call__(self, members: Mapping[str, Iterable[str | int]]) -> str:
        before, texts, place = self.values, self.texts, self.place
        if members.keys() != before.keys():  # files added or removed: the others' texts kept
            names = sorted(members)
            self.place = {name: at for at, name in enumerate(names)}
            self.texts = [
                texts[place[name]]
                if name in before and same(members[name], before[name])
                else member_text(name, tuple(members[name]))
                for name in names
            ]
        else:
            for name, value in members.items():
                if not same(value, before[name]):
                    self.texts[self.place[name]] = member_text(name, tuple(value))
        self.values = dict(members)
        return "{" + ",".join(self.texts) + "}"


def same(value: Iterable[str | int], old: Iterable[str | int]) -> bool:
    """Whether a member's value is the one it had (the same object, or equal)."""
    return value is old or tuple(value) == tuple(old)

"""BibTeX field values as BibTeX itself reads them: `@string` macros and `#` concatenation
evaluated, braces and quotes delimiting pieces (`title = pre # " Learning"` with
`@string{pre = "Deep"}` is `Deep Learning`), and author lists split once per distinct text.

bibtexparser (run with no middleware) gives each value raw; `Macros` evaluates them. A value it
cannot read (an unbalanced brace) is kept raw; a macro that is not defined reads as nothing,
with a problem, as in BibTeX.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bibtexparser.middlewares.names import parse_single_name_into_parts, split_multiple_persons_names

from scholarsite.tex.render import tex_to_plain

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
MONTH_NAMES = tuple(
    [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ]
)
NAME_RE = re.compile(r"[^\s#{}\"=,]+")
DELIMITER_RE = re.compile(r'[{}"]')


class Unreadable(ValueError):
    """A value with an unbalanced brace or quote."""


def group_end(text: str, start: int, closing: str) -> int:
    """The index of the `closing` (`}` or `"`) that ends the piece opened at `start`."""
    depth = 0
    for match in DELIMITER_RE.finditer(text, start + 1):
        char = match.group()
        if char == closing and depth == 0:
            return match.start()
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            break
    raise Unreadable(text[start : start + 40])


@dataclass
class Macros:
    """The `@string` macros of a file (and the standard month names), by case-folded name."""

    values: dict[str, str] = field(default_factory=lambda: dict(zip(MONTHS, MONTH_NAMES, strict=True)))
    undefined: set[str] = field(default_factory=set)

    def define(self, name: str, raw: str) -> None:
        """Define a macro by its raw value (which may use the macros defined before it)."""
        self.values[name.strip().casefold()] = self.evaluate(raw)

    def evaluate(self, raw: str) -> str:
        """The text of a raw value: its pieces (`{...}`, `"..."`, a number or a macro) joined."""
        try:
            return "".join(self.pieces(raw.strip()))
        except Unreadable:
            return raw

    def pieces(self, raw: str) -> list[str]:
        """The pieces of a raw value, in order."""
        pieces: list[str] = []
        position = 0
        while position < len(raw):
            char = raw[position]
            if char.isspace() or char == "#":
                position += 1
            elif char in '{"':
                end = group_end(raw, position, "}" if char == "{" else '"')
                pieces.append(raw[position + 1 : end])
                position = end + 1
            else:
                match = NAME_RE.match(raw, position)
                if match is None:
                    raise Unreadable(raw[position : position + 40])
                pieces.append(self.macro(match.group()))
                position = match.end()
        return pieces

    def macro(self, name: str) -> str:
        """A number as itself, a macro as its value; '' (remembered) for an undefined one."""
        if name.isdigit():
            return name
        value = self.values.get(name.casefold())
        if value is None:
            self.undefined.add(name)
            return ""
        return value


@dataclass(frozen=True)
class AuthorList:
    """An author field's names as plain text (first names first), in order, and whether it ends
    in `and others`."""

    names: tuple[str, ...]
    more: bool


class Names:
    """Author fields split into names, each distinct text once (files repeat long lists
    through one `@string`)."""

    def __init__(self) -> None:
        self.seen: dict[str, AuthorList] = {}

    def of(self, text: str) -> AuthorList:
        """The names of an author field."""
        if text not in self.seen:
            self.seen[text] = split_names(text)
        return self.seen[text]


def split_names(text: str) -> AuthorList:
    """`Souères, Philippe and M. Ta{\\"i}x and others` as ('Philippe Souères', 'M. Taïx'), more."""
    raw = split_multiple_persons_names(text) if text.strip() else []
    more = bool(raw) and raw[-1].strip() == "others"
    names = []
    for name in raw[:-1] if more else raw:
        parts = parse_single_name_into_parts(name, strict=False)
        plain = " ".join(tex_to_plain(" ".join([*parts.first, *parts.von, *parts.last, *parts.jr])).split())
        names += [plain] if plain else []
    return AuthorList(tuple(names), more)

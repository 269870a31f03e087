"""A quick reader for the block YAML that PyYAML's dumper writes, for large generated files.

PyYAML builds a Python node for every scalar even with libyaml, about 100 µs an entry of
`sources.yaml`. This reader takes only the plainest block YAML, where every line is a
`key: value`, a `key:` opening a block, or a `- item`, and values are plain or single-quoted
scalars that may go on over more indented lines. Plain scalars are typed by PyYAML's own
resolver and constructors (`2024` an int, `2025-02-27` a date), so whatever it reads is what
`yamlmap.read_settings` would build. Anything else (double quotes, flow collections, anchors,
tags, comments, blank lines inside a block, tabs, keys given twice...) raises `Unsupported`, and
the caller reads that text the careful way; the reader never decides that YAML is wrong.

A flat entry (`key: value` lines under its key, as the lean entries of a large file are) is
read by two regular expressions and a loop over its fields, about 5 µs. An entry whose lines
are all at column 4 or more (a full entry of link-sources: its authors, its OpenAlex part) is
read a level at a time, one expression finding each key of a column with its value and the
lines under it (`mapping_at`), about 35 µs where line by line it took about 45 µs. Another is
read line by line (`Block`).
"""

from __future__ import annotations

import functools
import re
from typing import Any

import yaml

from scholarsite.errors import BuildError
from scholarsite.inputs.yamlmap import BoundedLoader, read_settings

# A plain scalar may not start with these (`'` starts a single-quoted one).
INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
MAX_KEY = 1_000  # libyaml refuses a simple key over 1,024 characters
CONSTRUCTOR = BoundedLoader("")  # its constructors type plain scalars (and bound integers)
RESOLVERS = CONSTRUCTOR.yaml_implicit_resolvers  # by first character
# By first character, one expression matching what any of the implicit resolvers for that
# character matches (their expressions are anchored, in verbose mode or without spaces).
MAYBE_TYPED = {
    first: re.compile("|".join(f"(?:{regexp.pattern})" for _, regexp in resolvers), re.VERBOSE)
    for first, resolvers in RESOLVERS.items()
}
# Resolvers that `scalar` cannot rule out by a scalar's first character: let `typed` decide.
RESOLVED_BY_PATH = None in RESOLVERS or bool(CONSTRUCTOR.yaml_path_resolvers)
# Characters that break lines other than "\n" (so lines would not be YAML's), a byte-order
# mark, a tab, or that YAML refuses; sought only when `clean` cannot rule them out quickly.
UNTAKEN_RE = re.compile(r"[\t\r\x85\u2028\u2029\ufeff]|" + yaml.reader.Reader.NON_PRINTABLE.pattern)
# Bytes of UTF-8 text that cannot start one of those: printable ASCII, "\n", and every lead or
# continuation byte but the leads of U+0080-U+009F (0xC2), U+2028-U+2029 (0xE2), surrogates
# (0xED) and U+FEFF, U+FFFE-U+FFFF (0xEF).
SUSPECT_LEADS = (0xC2, 0xE2, 0xED, 0xEF)
# An entry that is one key at column 2 and lines under it at column 4 or more, up to the next
# entry (a key at column 2) or the end. A flat one has a `key: value` on each line under its
# key at column 4: FIELD_RE matches one of those lines from its start, split at the first ": "
# as `key_of` splits it, its value single-quoted on the line (the text inside) or plain
# (starting with no space). Another, as a full entry of link-sources is (its authors, its
# OpenAlex part), is read by `mapping_at`.
ENTRY_RE = re.compile(r"  ([^ \n][^\n]*):\n((?:    [^\n]*\n)+)(?=  [^ #:\n]|\Z)")
FIELD_RE = re.compile(
    r"^    (?=[^ \n])([^:\n]*(?::(?! )[^:\n]*)*): (?:'([^'\n]*(?:''[^'\n]*)*)' *|([^ '\n][^\n]*))\n",
    re.MULTILINE,
)
ENTRY_START_RE = re.compile(r"\n  [^ #:\n]")  # the line break before an entry
HARMLESS = bytes([10, *range(32, 127), *(b for b in range(128, 256) if b not in SUSPECT_LEADS)])


class Unsupported(ValueError):
    """Text this reader does not take: read it with a YAML loader instead."""


def clean(text: str) -> bool:
    """Whether the text has none of the characters of UNTAKEN_RE (a quick look at its bytes
    first: a search of the text only when one of its bytes could start one)."""
    if not text.encode("utf-8", "surrogatepass").translate(None, HARMLESS):
        return True
    return UNTAKEN_RE.search(text) is None


class Block:
    """Lines of block YAML with the column each starts at (-1: a line of spaces only)."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.indents = [len(line) - len(rest) if (rest := line.lstrip(" ")) else -1 for line in lines]

    def node(self, i: int, indent: int) -> tuple[Any, int]:
        """The block node starting at line `i` at column `indent`, and the line after it."""
        if self.lines[i].startswith("- ", indent):
            return self.sequence(i, indent)
        return self.mapping(i, indent, self.lines[i][indent:])

    def mapping(self, i: int, indent: int, first: str) -> tuple[dict[Any, Any], int]:
        """A block mapping at column `indent` from line `i` (whose text from that column is
        `first`), and the line after it."""
        found: dict[Any, Any] = {}
        content = first
        while True:
            key, rest = key_of(content)
            if key in found:
                raise Unsupported("a key given twice")
            found[key], i = self.value(i, indent, rest, indentless=True)
            if i == len(self.lines) or self.indents[i] != indent:
                return found, i
            content = self.lines[i][indent:]
            if content.startswith("- "):
                raise Unsupported("a sequence inside a mapping")

    def sequence(self, i: int, indent: int) -> tuple[list[Any], int]:
        """A block sequence whose items start `- ` at column `indent`, and the line after it."""
        items = []
        while self.item_at(i, indent):
            content = self.lines[i][indent + 2 :]
            if content[:1] != "'" and (": " in content or content.endswith(":")):
                item, i = self.mapping(i, indent + 2, content)
            else:
                item, i = self.value(i, indent, " " + content, indentless=False)
            items.append(item)
        return items, i

    def item_at(self, i: int, indent: int) -> bool:
        """Whether line `i` is a sequence item (`- `) at column `indent`."""
        return i < len(self.lines) and self.indents[i] == indent and self.lines[i].startswith("- ", indent)

    def value(self, i: int, indent: int, rest: str, indentless: bool) -> tuple[Any, int]:
        """The value after `key:` or `- ` (`rest`) on line `i` of a node at column `indent`,
        with the lines under it, and the line after it; `indentless`: a sequence may start at
        `indent` (a mapping's value)."""
        if rest and rest[0] != " ":
            raise Unsupported("no space after the indicator")
        text = rest.strip(" ")
        end = i + 1
        deeper = end < len(self.lines) and self.indents[end] > indent
        if not text:
            if deeper:
                return self.node(end, self.indents[end])
            if indentless and self.item_at(end, indent):
                return self.sequence(end, indent)
            return scalar(""), end
        if not deeper:  # the common case: a scalar on one line
            return one_line(text), end
        while end < len(self.lines) and self.indents[end] > indent:
            end += 1
        return folded(text, self.lines[i + 1 : end]), end


def one_line(text: str) -> Any:
    """A scalar on one line (stripped, not empty): single-quoted or plain."""
    return quoted(text) if text[0] == "'" else plain(text)


def folded(first: str, more: list[str]) -> Any:
    """A scalar that goes on over the lines `more` under its first (`first`, stripped, not
    empty): its lines stripped and joined by spaces."""
    parts = [first, *(line.strip(" ") for line in more)]
    if first[0] == "'":
        return quoted(" ".join(parts))
    if not all(map(taken, parts)):
        raise Unsupported("a plain scalar this reader does not take")
    return scalar(" ".join(parts))


def plain(text: str) -> Any:
    """A plain scalar on one line, typed; Unsupported when it is not `taken`."""
    if not taken(text):
        raise Unsupported("a plain scalar this reader does not take")
    return scalar(text)


def taken(text: str) -> bool:
    """Whether a line of a plain scalar is one this reader takes: no indicator first, no
    comment, no `: ` (a key, or an error)."""
    return text[0] not in INDICATORS and ": " not in text and " #" not in text and text[-1] != ":"


def quoted(text: str) -> str:
    """A single-quoted scalar, its lines joined by spaces; nothing may follow the quote."""
    if len(text) < 2 or text[-1] != "'":
        raise Unsupported("text after a quoted scalar")
    inner = text[1:-1]
    if "'" in inner.replace("''", ""):
        raise Unsupported("a quote inside a quoted scalar")
    return inner.replace("''", "'")


def scalar(text: str) -> Any:
    """A plain scalar typed as PyYAML's safe loader types it: itself when none of the
    resolvers for its first character matches it (as `Resolver.resolve` decides), else what
    `typed` makes of it."""
    maybe = MAYBE_TYPED.get(text[:1])
    if RESOLVED_BY_PATH or (maybe is not None and maybe.match(text)):
        return typed(text)
    return text


@functools.lru_cache(maxsize=4096)  # the same dates, counts and statuses recur
def typed(text: str) -> Any:
    """What PyYAML's resolver and safe constructors make of a plain scalar."""
    tag = CONSTRUCTOR.resolve(yaml.ScalarNode, text, (True, False))
    if tag == "tag:yaml.org,2002:str":
        return text
    if tag not in CONSTRUCTOR.yaml_constructors or tag.endswith(("merge", "value")):
        raise Unsupported(f"a scalar of tag {tag}")
    try:
        return CONSTRUCTOR.yaml_constructors[tag](CONSTRUCTOR, yaml.ScalarNode(tag, text))
    except (yaml.YAMLError, ValueError) as exc:
        raise Unsupported(str(exc)) from None


def key_of(content: str) -> tuple[Any, str]:
    """A mapping line's plain key, typed, and what follows its colon."""
    colon = content.find(": ")
    if colon < 0:
        if not content.endswith(":"):
            raise Unsupported("no key")
        colon = len(content) - 1
    return field_key(content[:colon]), content[colon + 1 :]


def plain_key(key: str) -> Any:
    """The text before a mapping line's colon as a key, typed; Unsupported when this reader
    does not take it."""
    if not key or key[0] in INDICATORS or key[-1] == " " or " #" in key or len(key) > MAX_KEY:
        raise Unsupported("a key this reader does not take")
    return scalar(key)


field_key = functools.lru_cache(maxsize=4096)(plain_key)  # the field names recur in every entry


def entries_under(text: str, top: str, path: str) -> dict[str, tuple[Any, int]] | None:
    """The values of the mapping under `top:`, the text's only key (comments and blank lines
    before it), by key with the line of each key; None when the text is not of that shape, or
    when any entry cannot be read (the caller then reads the whole text as YAML and reports).

    An entry is a line at column 2 and the lines after it up to the next such line. A flat
    entry (one `key: value` a line under its key) is read by regular expressions; another, by
    a `Block` of its lines; one the quick reader does not take, alone by
    `yamlmap.read_settings`."""
    body = body_start(text, top)
    if body is None:
        return None
    found: dict[str, tuple[Any, int]] = {}
    start, line = body
    try:
        while start < len(text):
            end, entries = entries_at(text, start, line, path)
            for key, value, at in entries:
                if key in found:
                    return None
                found[key] = value, at
            start, line = end, line + text.count("\n", start, end)
    except Unsupported:
        return None
    return found


def body_start(text: str, top: str) -> tuple[int, int] | None:
    """Where the entries under `top:` start (the offset and line after it) when `top:` is the
    text's first key (comments and blank lines before it) and the text is `clean`; else None."""
    head = re.match(head_pattern(top), text)
    if head is None or not clean(text):
        return None
    return head.end(), text.count("\n", 0, head.end()) + 1


def head_pattern(top: str) -> str:
    """An expression for the lines up to `top:` as the text's first key (comments and blank
    lines before it)."""
    return rf"(?:(?:#[^\n]*)?\n)*{re.escape(top)}:\n"


def next_line(text: str, start: int) -> int:
    """The offset of the line after the one at `start` (the end of the text after the last)."""
    end = text.find("\n", start)
    return len(text) if end < 0 else end + 1


def entries_at(text: str, start: int, line: int, path: str) -> tuple[int, list[tuple[str, Any, int]]]:
    """Where the entry at offset `start` (on `line`) ends and its entries (normally one key)
    each with its line, or none for a line YAML ignores; Unsupported when it cannot be read."""
    entry = ENTRY_RE.match(text, start)
    if entry is not None:
        return entry.end(), matched_entries(entry, line, path)
    current = text[start : next_line(text, start)].rstrip("\n")
    if not current.strip(" ") or current.startswith("#"):
        return next_line(text, start), []
    if not current.startswith("  ") or current[2] == " ":
        raise Unsupported("a line outside the entries")
    after = ENTRY_START_RE.search(text, next_line(text, start) - 1)
    end = after.start() + 1 if after else len(text)
    return end, entry_at(Block(text[start:end].split("\n")), line, path)


def matched_entries(entry: re.Match[str], line: int, path: str) -> list[tuple[str, Any, int]]:
    """The entries of an entry matched by ENTRY_RE (normally one key), its first on `line`,
    each with its line; Unsupported when it cannot be read."""
    try:
        return [(entry_key(entry[1]), entry_fields(entry), line)]
    except Unsupported:
        return entry_at(Block(entry[0].split("\n")), line, path)


def entry_fields(entry: re.Match[str]) -> dict[Any, Any]:
    """The fields of an entry matched by ENTRY_RE: a flat one's by FIELD_RE, another's by
    `mapping_at`; Unsupported when one of its lines is not one this reader takes."""
    text, (body, end) = entry.string, entry.span(2)
    if text.find("\n     ", body - 1, end) >= 0 or text.find("\n    - ", body - 1, end) >= 0:
        return mapping_at(entry[2], 4)  # a line under a key at column 4, or an item
    pairs = FIELD_RE.findall(text, body, end)
    if len(pairs) != text.count("\n", body, end):  # not every line one (each matched from its start)
        raise Unsupported("a line that is no key: value")
    fields: dict[Any, Any] = {}
    for name, quoted_text, plain_text in pairs:
        field = field_key(name)
        if field in fields:
            raise Unsupported("a key given twice")
        fields[field] = plain(plain_text.rstrip(" ")) if plain_text else quoted_text.replace("''", "'")
    return fields


def entry_key(text: str) -> str:
    """An entry's key (the text before the colon of its line); Unsupported unless YAML reads
    it as text, a plain key that this reader takes."""
    key = plain_key(text) if ": " not in text else None
    if not isinstance(key, str):
        raise Unsupported("not one entry")
    return key


@functools.cache
def items_at(indent: int) -> re.Pattern[str]:
    """An expression for one key of a block mapping at column `indent`, from the start of a
    line (split as FIELD_RE splits it), with its value: single-quoted on the line, or other
    text (that may go on over the lines under it), or nothing, then `- ` items at the same
    column or lines under it (at column `indent + 2` or more, none blank)."""
    at, under = " " * indent, " " * (indent + 2)
    return re.compile(
        rf"^{at}(?=[^ \n])(?!- )([^:\n]*(?::(?! )[^:\n]*)*):"
        rf"(?: ('[^'\n]*(?:''[^'\n]*)*') *| ([^ \n][^\n]*)| *)\n"
        rf"((?:{at}- [^\n]*\n)*)((?:{under} *[^ \n][^\n]*\n)*)",
        re.MULTILINE,
    )


def mapping_at(text: str, indent: int) -> dict[Any, Any]:
    """The block mapping whose lines are `text`, at column `indent`: each value a scalar on
    its line (most are read here), a scalar going on over the lines under it, `- ` items of
    one-line scalars, or a mapping at column `indent + 2`; Unsupported for anything else."""
    found: dict[Any, Any] = {}
    lines = 0  # the lines read: each key's matched from the start of a line, whole lines
    for name, quoted_text, other_text, items, under in items_at(indent).findall(text):
        key = field_key(name)
        if key in found:
            raise Unsupported("a key given twice")
        lines += 1
        if items or under:
            lines += items.count("\n") + under.count("\n")
            found[key] = nested_value(quoted_text or other_text, items, under, indent)
        elif other_text:
            found[key] = one_line(other_text.rstrip(" "))
        else:
            found[key] = quoted(quoted_text) if quoted_text else scalar("")
    if lines != text.count("\n"):
        raise Unsupported("a line this reader does not take")
    return found


def nested_value(text: str, items: str, under: str, indent: int) -> Any:
    """The value of a key at column `indent` with lines after it: `text` on the key's line
    (the start of a scalar, or nothing), then `- ` items or the lines under it."""
    if items and (text or under):
        raise Unsupported("a sequence this reader does not take")
    if items:
        return [one_line(item) if item else scalar("") for item in items_of(items, indent)]
    if text:
        return folded(text.rstrip(" "), under.split("\n")[:-1])
    return mapping_at(under, indent + 2)


def items_of(items: str, indent: int) -> list[str]:
    """The text of each `- ` item at column `indent` of `items`, stripped; Unsupported for an
    item that is a mapping (`- key: value`)."""
    found = [line[indent + 2 :].strip(" ") for line in items.split("\n")[:-1]]
    if any(text[:1] != "'" and (": " in text or text.endswith(":")) for text in found):
        raise Unsupported("a mapping in a sequence")
    return found


def entry_at(block: Block, line: int, path: str) -> list[tuple[str, Any, int]]:
    """The entry whose lines are `block`'s, its first on `line` (normally one key), each with
    its line; Unsupported when it cannot be read."""
    try:
        key, rest = key_of(block.lines[0][2:])
        value, after = block.value(0, 2, rest, indentless=True)
        if not isinstance(key, str) or any(not ignored(text) for text in block.lines[after:]):
            raise Unsupported("not one entry")
        return [(key, value, line)]
    except Unsupported:
        return entry_read(block, line, path)


def ignored(line: str) -> bool:
    """Whether YAML ignores a line between entries (spaces only, or a comment)."""
    return not line.strip(" ") or line.lstrip(" ").startswith("#")


def entry_read(block: Block, line: int, path: str) -> list[tuple[str, Any, int]]:
    """The entries of `block`, its first on `line`, read by `yamlmap.read_settings`;
    Unsupported when it refuses them, and when YAML could read them alone otherwise than in
    the file: when they do not start with a key (a tag, an anchor...) or a line is outside
    the entries (at column 0 or 1)."""
    first = block.lines[0][2:3]
    if first in INDICATORS and first not in "'\"":
        raise Unsupported("an entry that starts with no key")
    if not all(text.startswith("  ") or ignored(text) for text in block.lines):
        raise Unsupported("a line outside the entries")
    try:
        settings = read_settings("\n".join(block.lines), path, first_line=line)
    except BuildError:
        raise Unsupported("an entry YAML refuses") from None
    if not settings:
        raise Unsupported("no entry")
    return [(setting.key, setting.value, setting.line) for setting in settings]

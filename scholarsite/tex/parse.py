"""Parse the text-mode TeX of titles and abstracts into a small node tree.

Math spans are lifted out first (see :mod:`scholarsite.tex.mathspans`) and appear as
:class:`MathNode` leaves, so nothing here looks inside math, except to lift ``\\href`` and
``\\url`` out of it (a link is text, not math). Braces nested deeper than ``MAX_DEPTH``
still pair up but group nothing, so the tree, and every recursive walk over it, stays
shallow whatever the input.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from typing import NamedTuple

from scholarsite.tex.macros import ACCENTS, DECLARATIONS, LINKS, arity
from scholarsite.tex.mathspans import MathSpan, find_math, remove_forbidden_chars

MAX_DEPTH = 64

_TOKEN = re.compile(
    r"(?P<word>\\[A-Za-z]++\*?)"
    r"|(?P<symbol>\\[^A-Za-z])"
    r"|(?P<open>\{)|(?P<close>\})"
    r"|(?P<ligature>---?|``|''|~|\x01|\x02)"
    r"|(?P<text>(?:[^\\{}~`'\x01\x02-]++|-(?!-)|'(?!')|`(?!`))++|\\)",
    re.DOTALL,
)
# \x01 and \x02 mark a paired `single quote' (the input never holds them: see parse()).
_LIGATURES = {
    "--": "\u2013", "---": "\u2014", "``": "\u201c", "''": "\u201d", "~": "\u00a0",
    "\x01": "\u2018", "\x02": "\u2019",
}  # fmt: skip
_LIGATURE_TEX = {"\x01": "`", "\x02": "'"}
_NEEDS_PARSING = re.compile(r"[\\{}$~`]|--|''")
_QUOTE = re.compile(r"(?<![`\\])`(?!`)|(?<!['\\])'(?!')")
_LINK_IN_MATH = re.compile(r"\\(href|url)(?![A-Za-z])")
_BRACE = re.compile(r"\\.|[{}]", re.DOTALL)
_OFFSET = re.compile(r"offset (\d+)")


class Text(NamedTuple):
    """Literal text; a TeX ligature (``--``, ``~``, quotes) keeps its TeX spelling in ``tex``."""

    value: str
    tex: str | None = None


class MathNode(NamedTuple):
    """A math span; ``source`` includes its delimiters."""

    span: MathSpan
    source: str


class Group(NamedTuple):
    """A ``{...}`` group; ``raw`` is its source between the braces."""

    children: tuple[Node, ...]
    raw: str


class Command(NamedTuple):
    """A macro with the brace groups it took; ``known`` if it is known and has its arguments."""

    name: str
    args: tuple[Group, ...]
    source: str
    known: bool


Node = Text | MathNode | Group | Command


class _Token(NamedTuple):
    kind: str
    value: str | MathNode
    start: int
    end: int


class Document(NamedTuple):
    """Parsed text: nodes, math spans and human-readable problems."""

    nodes: tuple[Node, ...]
    maths: tuple[MathNode, ...]
    problems: tuple[str, ...]


@lru_cache(maxsize=1024)
def parse(text: str) -> Document:
    """Parse ``text`` after dropping code points HTML forbids; math is lifted out first.

    Cached, since pages typically need both the HTML and the plain text of one abstract.
    """
    cleaned = remove_forbidden_chars(text)
    removed = len(text) - len(cleaned)
    notes = [f"removed {removed} control or non-character code point(s)"] if removed else []
    if not _NEEDS_PARSING.search(cleaned):  # fast path: no TeX at all
        return Document((Text(cleaned),) if cleaned else (), (), tuple(notes))
    spans, problems = find_math(cleaned)
    marked = _mark_quotes(cleaned, spans) if "`" in cleaned else cleaned
    parser = _Parser(cleaned, list(_tokenize(marked, spans)))
    nodes = parser.parse()
    return Document(nodes, tuple(parser.maths), _summarise(notes + problems + parser.problems))


def has_content(args: tuple[Group, ...]) -> bool:
    """True if some argument holds more than whitespace (``\\ours{}`` has none)."""
    return any(arg.raw.strip() for arg in args)


def _summarise(problems: list[str]) -> tuple[str, ...]:
    """Each problem once; problems that differ only in offset become one, with a count."""
    kinds: dict[str, tuple[int, str]] = {}
    counts: Counter[str] = Counter()
    for problem in problems:
        kind = _OFFSET.sub("offset", problem)
        found = _OFFSET.search(problem)
        offset = int(found.group(1)) if found else 0
        counts[kind] += found is not None
        if kind not in kinds or offset < kinds[kind][0]:
            kinds[kind] = (offset, problem)
    return tuple(
        message if counts[kind] <= 1 else f"{message} (and {counts[kind] - 1} more)"
        for kind, (_, message) in kinds.items()
    )


def _mark_quotes(text: str, spans: list[MathSpan]) -> str:
    """Mark each `single quote' pair outside math with \\x01 and \\x02 (offsets unchanged).

    A quote between two letters or digits is an apostrophe (``don't``), not a closing quote;
    an opening quote without its closing one stays a backquote.
    """
    starts = [span.start for span in spans]
    chars: list[str] = []
    opening = None
    for match in _QUOTE.finditer(text):
        i = match.start()
        index = bisect_right(starts, i) - 1
        if index >= 0 and i < spans[index].end:
            continue
        if text[i] == "`":
            opening = i
        elif opening is not None and not (text[i - 1].isalnum() and text[i + 1 : i + 2].isalnum()):
            chars = chars or list(text)
            chars[opening], chars[i] = "\x01", "\x02"
            opening = None
    return "".join(chars) if chars else text


def _tokenize(text: str, spans: list[MathSpan]) -> Iterator[_Token]:
    """Tokens of the text between math spans, with math spans as single tokens."""
    position = 0
    for span in spans:
        yield from _text_tokens(text, position, span.start)
        yield from _math_tokens(text, span)
        position = span.end
    yield from _text_tokens(text, position, len(text))


def _text_tokens(text: str, start: int, end: int) -> Iterator[_Token]:
    """Tokens of ``text[start:end]``, which holds no math."""
    for match in _TOKEN.finditer(text, start, end):
        yield _Token(str(match.lastgroup), match.group(), match.start(), match.end())


def _math_tokens(text: str, span: MathSpan) -> Iterator[_Token]:
    """A math span as one token; one holding ``\\href`` or ``\\url`` is split around them."""
    source = text[span.start : span.end]
    if "\\href" not in span.body and "\\url" not in span.body:
        yield _Token("math", MathNode(span, source), span.start, span.end)
        return
    delimiter = 1 if source[0] == "$" and not span.display else 2
    opener, closer = source[:delimiter], source[-delimiter:]
    position, body_end = span.start + delimiter, span.end - delimiter
    for start, end in _links(text, position, body_end):
        yield from _math_piece(text, position, start, span.display, (opener, closer))
        yield from _text_tokens(text, start, end)
        position = end
    yield from _math_piece(text, position, body_end, span.display, (opener, closer))


def _math_piece(
    text: str, start: int, end: int, display: bool, delimiters: tuple[str, str]
) -> Iterator[_Token]:
    """The math of ``text[start:end]`` (part of a split span) as a token, unless it is blank."""
    body = text[start:end]
    if body.strip():
        node = MathNode(MathSpan(start, end, body, display), delimiters[0] + body + delimiters[1])
        yield _Token("math", node, start, end)


def _links(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Where the ``\\href{..}{..}`` and ``\\url{..}`` outside any group of a math body are."""
    depth, position = 0, start
    for match in _LINK_IN_MATH.finditer(text, start, end):
        if match.start() < position:
            continue
        depth += _brace_balance(text, position, match.start())
        position = match.start()
        if depth == 0 and (link_end := _arguments_end(text, match.end(), end, LINKS[match.group(1)])):
            yield match.start(), link_end
            position = link_end


def _brace_balance(text: str, start: int, end: int) -> int:
    """Opening minus closing braces in ``text[start:end]``, escaped ones aside."""
    return sum({"{": 1, "}": -1}.get(match.group(), 0) for match in _BRACE.finditer(text, start, end))


def _arguments_end(text: str, position: int, end: int, count: int) -> int | None:
    """End of ``count`` brace groups starting at ``position`` (spaces allowed before each)."""
    for _ in range(count):
        while position < end and text[position].isspace():
            position += 1
        if position >= end or text[position] != "{":
            return None
        depth = 0
        for match in _BRACE.finditer(text, position, end):
            depth += {"{": 1, "}": -1}.get(match.group(), 0)
            if depth == 0:
                position = match.end()
                break
        else:
            return None
    return position


class _Parser:
    """Recursive-descent parser over the token list (depth-limited, so never recursion errors)."""

    def __init__(self, text: str, tokens: list[_Token]) -> None:
        self.text = text
        self.tokens = tokens
        self.index = 0
        self.maths: list[MathNode] = []
        self.problems: list[str] = []

    def parse(self) -> tuple[Node, ...]:
        """Top-level nodes; a stray ``}`` stays literal."""
        nodes: list[Node] = []
        while (token := self._take()) is not None:
            if token.kind == "close":
                self.problems.append(f"unbalanced braces: unexpected '}}' at offset {token.start}")
                nodes.append(Text("}"))
            else:
                nodes.append(self._node(token, 0))
        return tuple(nodes)

    def _take(self) -> _Token | None:
        """Consume and return the next token."""
        if self.index >= len(self.tokens):
            return None
        self.index += 1
        return self.tokens[self.index - 1]

    def _peek(self, offset: int = 0) -> _Token | None:
        """The token ``offset`` places ahead, without consuming it."""
        index = self.index + offset
        return self.tokens[index] if index < len(self.tokens) else None

    def _node(self, token: _Token, depth: int) -> Node:
        """One node starting with ``token`` (never a closing brace)."""
        value = token.value
        if isinstance(value, MathNode):
            self.maths.append(value)
            return value
        if token.kind == "open":
            return self._group(token, depth + 1)
        if token.kind in ("word", "symbol"):
            return self._command(token, depth)
        if token.kind == "ligature":
            return Text(_LIGATURES[value], _LIGATURE_TEX.get(value, value))
        return Text(value)

    def _group(self, opening: _Token, depth: int) -> Group:
        """A brace group up to its closing brace (or the end, reported as unclosed).

        At ``MAX_DEPTH``, inner braces are only counted, so that they pair up as in TeX.
        """
        children: list[Node] = []
        flattened: list[int] = []  # offsets of the inner braces still open
        while (token := self._take()) is not None:
            if token.kind == "close" and not flattened:
                return Group(tuple(children), self.text[opening.end : token.start])
            if token.kind == "close":
                flattened.pop()
            elif token.kind == "open" and depth >= MAX_DEPTH:
                flattened.append(token.start)
            else:
                children.append(self._node(token, depth))
        for offset in (opening.start, *flattened):
            self.problems.append(f"unbalanced braces: '{{' at offset {offset} is never closed")
        return Group(tuple(children), self.text[opening.end :])

    def _command(self, token: _Token, depth: int) -> Node:
        """A macro and its arguments; known macros missing arguments count as unknown.

        At ``MAX_DEPTH`` a known macro with arguments is dropped: its arguments are flattened.
        """
        name = str(token.value)[1:]
        expected = arity(name)
        if name in ACCENTS and (base := self._accent_base(token)):
            args: tuple[Group, ...] = (base,)
            end = token.end + 1
        elif expected and depth >= MAX_DEPTH:
            return Text("")
        else:
            wanted = 0 if expected is None and token.kind == "symbol" else expected
            args = self._arguments(wanted, depth)
            end = self.tokens[self.index - 1].end if args else token.end
        known = expected is not None and len(args) == expected
        shown = "shown as its argument" if has_content(args) else "kept as TeX source"
        if expected is None:
            self.problems.append(f"unknown macro '\\{name}' {shown}")
        elif not known:
            self.problems.append(f"macro '\\{name}' lacks its {{argument}}; {shown}")
        elif name in DECLARATIONS:
            self._skip_space()
        return Command(name, args, self.text[token.start : end], known)

    def _skip_space(self) -> None:
        """Drop the spaces after a declaration such as ``{\\em text}``, as TeX does."""
        following = self._peek()
        if following is not None and following.kind == "text":
            value = str(following.value).lstrip()
            start = following.end - len(value)
            self.tokens[self.index] = following._replace(value=value, start=start)

    def _accent_base(self, accent: _Token) -> Group | None:
        """For ``\\'e``: take the letter right after the accent as its argument; for a named
        accent (``\\c c``, ``\\v r``), the letter after its spaces, as TeX does."""
        following = self._peek()
        if following is None or following.kind != "text" or following.start != accent.end:
            return None
        value = str(following.value)
        skipped = len(value) - len(value.lstrip()) if accent.kind == "word" else 0
        if (accent.kind == "word" and not skipped) or not value[skipped:][:1].isalpha():
            return None if accent.kind == "word" or not value else self._take_text(following, value, 0)
        return self._take_text(following, value, skipped)

    def _take_text(self, following: _Token, value: str, skipped: int) -> Group:
        """The letter at `skipped` of a text token as a group; the rest of the token stays."""
        if len(value) > skipped + 1:  # leave the rest of the text token in place
            rest = following._replace(value=value[skipped + 1 :], start=following.start + skipped + 1)
            self.tokens[self.index] = rest
        else:
            self.index += 1
        letter = value[skipped]
        return Group((Text(letter),), letter)

    def _arguments(self, wanted: int | None, depth: int) -> tuple[Group, ...]:
        """Brace groups after a macro: ``wanted`` of them, or every adjacent one if None.

        Known macros (``wanted`` set) may have whitespace before an argument, as in TeX.
        """
        args: list[Group] = []
        while wanted is None or len(args) < wanted:
            skip = 1 if wanted is not None and self._is_space(self._peek()) else 0
            following = self._peek(skip)
            if following is None or following.kind != "open" or depth >= MAX_DEPTH:
                break
            self.index += skip + 1
            args.append(self._group(following, depth + 1))
        return tuple(args)

    @staticmethod
    def _is_space(token: _Token | None) -> bool:
        """Whitespace-only text, which TeX skips before an argument."""
        return token is not None and token.kind == "text" and not str(token.value).strip()

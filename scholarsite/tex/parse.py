"""Parse the text-mode TeX of titles and abstracts into a small node tree.

Math spans are lifted out first (see :mod:`scholarsite.texmath`) and appear as
:class:`MathNode` leaves, so nothing here ever looks inside math.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import NamedTuple

from scholarsite.tex.mathml import MathSpan, find_math, remove_forbidden_chars

MAX_DEPTH = 64

# fmt: off
SYMBOLS: dict[str, str] = {
    # control symbols
    "%": "%", "&": "&", "$": "$", "#": "#", "_": "_", "{": "{", "}": "}", " ": " ", "\n": " ",
    "\\": " ", ",": "\u202f", ";": " ", ":": " ", "!": "", "-": "", "/": "", "@": "",
    # author abbreviations common in arXiv abstracts
    "eg": "e.g.", "Eg": "E.g.", "ie": "i.e.", "Ie": "I.e.", "etal": "et al.", "etc": "etc.",
    "wrt": "w.r.t.", "vs": "vs.", "cf": "cf.", "Cf": "Cf.",
    # text symbols
    "LaTeX": "LaTeX", "TeX": "TeX", "ldots": "…", "dots": "…", "textellipsis": "…",
    "textendash": "\u2013", "textemdash": "\u2014", "S": "§", "P": "¶", "dag": "†", "ddag": "‡",
    "textbackslash": "\\", "textasciitilde": "~", "textasciicircum": "^", "textbar": "|",
    "textless": "<", "textgreater": ">", "textbullet": "•", "textdegree": "°",
    "textquoteleft": "\u2018", "textquoteright": "\u2019",
    "textquotedblleft": "\u201c", "textquotedblright": "\u201d",
    "copyright": "©", "textregistered": "®", "texttrademark": "™", "pounds": "£", "euro": "€",
    "ss": "ß", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "o": "ø", "O": "Ø", "aa": "å",
    "AA": "Å", "l": "ł", "L": "Ł", "i": "\u0131", "j": "\u0237",
    "newline": " ", "par": " ", "quad": " ", "qquad": " ", "noindent": "", "xspace": "",
    "relax": "", "protect": "", "centering": "",
    "tiny": "", "scriptsize": "", "footnotesize": "", "small": "", "normalsize": "",
    "large": "", "Large": "", "LARGE": "", "huge": "", "Huge": "",
}
STYLES: dict[str, str | None] = {
    "textit": "em", "emph": "em", "textsl": "em", "textbf": "strong", "texttt": "code",
    "textsuperscript": "sup", "textsubscript": "sub", "textrm": None, "textsf": None,
    "textup": None, "textmd": None, "textnormal": None, "textsc": None, "text": None,
    "mbox": None, "hbox": None, "underline": None,
}
DECLARATIONS: dict[str, str | None] = {
    "em": "em", "it": "em", "itshape": "em", "sl": "em", "slshape": "em",
    "bf": "strong", "bfseries": "strong", "tt": "code", "ttfamily": "code",
    "rm": None, "sf": None, "sc": None, "scshape": None, "upshape": None, "normalfont": None,
    "rmfamily": None, "sffamily": None, "mdseries": None,
}
ACCENTS: dict[str, str] = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304",
    ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328",
    "r": "\u030a", "d": "\u0323", "b": "\u0331", "t": "\u0361",
}
SPECIAL_ARITY = {"url": 1, "href": 2}
# fmt: on

_TOKEN = re.compile(
    r"(?P<word>\\[A-Za-z]++\*?)"
    r"|(?P<symbol>\\[^A-Za-z])"
    r"|(?P<open>\{)|(?P<close>\})"
    r"|(?P<dash>---?)|(?P<quote>``|'')|(?P<tilde>~)"
    r"|(?P<text>(?:[^\\{}~`'-]++|-(?!-)|'(?!')|`(?!`))++|\\)",
    re.DOTALL,
)
_LIGATURES = {"--": "\u2013", "---": "\u2014", "``": "\u201c", "''": "\u201d", "~": "\u00a0"}
_NEEDS_PARSING = re.compile(r"[\\{}$~]|--|''|``")


class Text(NamedTuple):
    """Literal text (TeX ligatures already applied)."""

    value: str


class MathNode(NamedTuple):
    """A math span; ``source`` includes its delimiters."""

    span: MathSpan
    source: str


class Group(NamedTuple):
    """A ``{...}`` group; ``raw`` is its source between the braces."""

    children: tuple[Node, ...]
    raw: str


class Command(NamedTuple):
    """A macro with the brace groups it took; unknown ones are shown as ``source``."""

    name: str
    args: tuple[Group, ...]
    source: str
    known: bool


Node = Text | MathNode | Group | Command


class _Token(NamedTuple):
    kind: str
    value: str | MathSpan
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
    parser = _Parser(cleaned, list(_tokenize(cleaned, spans)))
    nodes = parser.parse()
    return Document(nodes, tuple(parser.maths), tuple(notes + problems + parser.problems))


def arity(name: str) -> int | None:
    """Number of brace arguments a known macro takes; None for unknown macros."""
    if name in SYMBOLS or name in DECLARATIONS:
        return 0
    if name in STYLES or name in ACCENTS:
        return 1
    return SPECIAL_ARITY.get(name)


def _tokenize(text: str, spans: list[MathSpan]) -> Iterator[_Token]:
    """Tokens of the text between math spans, with math spans as single tokens."""
    position = 0
    for span in spans:
        yield from _text_tokens(text, position, span.start)
        yield _Token("math", span, span.start, span.end)
        position = span.end
    yield from _text_tokens(text, position, len(text))


def _text_tokens(text: str, start: int, end: int) -> Iterator[_Token]:
    """Tokens of ``text[start:end]``, which holds no math."""
    for match in _TOKEN.finditer(text, start, end):
        kind, value = str(match.lastgroup), match.group()
        if kind in ("dash", "quote", "tilde"):
            kind, value = "text", _LIGATURES[value]
        yield _Token(kind, value, match.start(), match.end())


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
        if token.kind == "open":
            if depth >= MAX_DEPTH:
                self.problems.append(f"braces nested over {MAX_DEPTH} deep at offset {token.start}")
                return Text("{")
            return self._group(token, depth + 1)
        if token.kind in ("word", "symbol"):
            return self._command(token, depth)
        if isinstance(token.value, MathSpan):
            node = MathNode(token.value, self.text[token.start : token.end])
            self.maths.append(node)
            return node
        return Text(token.value)

    def _group(self, opening: _Token, depth: int) -> Group:
        """A brace group up to its closing brace (or the end, reported as unclosed)."""
        children: list[Node] = []
        while (token := self._take()) is not None:
            if token.kind == "close":
                return Group(tuple(children), self.text[opening.end : token.start])
            children.append(self._node(token, depth))
        self.problems.append(f"unbalanced braces: '{{' at offset {opening.start} is never closed")
        return Group(tuple(children), self.text[opening.end :])

    def _command(self, token: _Token, depth: int) -> Command:
        """A macro and its arguments; known macros missing arguments count as unknown."""
        name = str(token.value)[1:]
        expected = arity(name)
        if token.kind == "symbol" and name in ACCENTS and (base := self._accent_base(token)):
            args: tuple[Group, ...] = (base,)
            end = token.end + 1
        else:
            wanted = 0 if expected is None and token.kind == "symbol" else expected
            args = self._arguments(wanted, depth)
            end = self.tokens[self.index - 1].end if args else token.end
        known = expected is not None and len(args) == expected
        if expected is None:
            self.problems.append(f"unknown macro '\\{name}' kept as TeX source")
        elif not known:
            self.problems.append(f"macro '\\{name}' lacks its {{argument}}; kept as TeX source")
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
        """For ``\\'e``: take the letter right after the accent as its argument."""
        following = self._peek()
        if following is None or following.kind != "text" or following.start != accent.end:
            return None
        value = str(following.value)
        if len(value) > 1:  # leave the rest of the text token in place
            rest = following._replace(value=value[1:], start=following.start + 1)
            self.tokens[self.index] = rest
        else:
            self.index += 1
        return Group((Text(value[0]),), value[0])

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

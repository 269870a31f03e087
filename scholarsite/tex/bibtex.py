"""TeX in titles -> the text of a braced BibTeX field, from the parse tree the page uses.

So the citation says what the page says: math stays TeX (display math made inline
``$...$``), known text macros, accents and groups stay as they are, ligatures keep their
TeX spelling, links become ``\\href``/``\\url``, text-mode Greek and symbols become
``\\ensuremath``, math papers' shorthands (``\\CC``, in math or not) the standard TeX they
stand for (``{\\mathbb C}``), and unknown macros become their arguments. Literal special
characters are escaped; BibTeX counts even escaped braces, so a literal brace is
``\\textbraceleft{}``. Every brace written is paired, so the result always parses. Never raises.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from scholarsite.tex import conventions
from scholarsite.tex.links import encode_url, link_url, linkable
from scholarsite.tex.macros import (
    ACCENTS,
    CONVENTIONS,
    DECLARATIONS,
    FOOTNOTE,
    KERNEL_CONTROL_SYMBOLS,
    KERNEL_TEXT,
    MATH_SYMBOLS,
    REFERENCES,
    STYLES,
    TEXT_SYMBOLS,
)
from scholarsite.tex.parse import Command, Group, MathNode, Node, Text, has_content, parse

__all__ = ["escape_specials", "tex_to_bibtex"]

_SPECIALS = str.maketrans({
    "\\": r"\textbackslash{}", "{": r"\textbraceleft{}", "}": r"\textbraceright{}",
    "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
})  # fmt: skip
_SPACES = re.compile(r"[ \t\n\r\f\v]+")
_MATH_TOKEN = re.compile(r"\\.|\\|[%#${}]", re.DOTALL)
_MATH_REPLACEMENTS = {"\\{": r"\lbrace ", "\\}": r"\rbrace ", "%": r"\%", "#": r"\#"}
# In a link's URL: what hyperref reads escaped (\%, \#) or not at all (~, which is active).
_URL_KEEP = ":/?#[]@!$&'()*+,;=%-._"
_URL_ESCAPES = str.maketrans({"%": r"\%", "#": r"\#", "&": r"\&", "$": r"\$", "~": "%7E"})


def escape_specials(text: str) -> str:
    """Plain text with TeX's special characters escaped, for a braced BibTeX field."""
    return text.translate(_SPECIALS)


def tex_to_bibtex(text: str) -> str:
    """BibTeX field text for the TeX ``text`` (a title), on one line."""
    return _SPACES.sub(" ", _nodes(parse(text).nodes)).strip()


def _nodes(nodes: Sequence[Node]) -> str:
    """BibTeX for a node list."""
    return "".join(_node(node) for node in nodes)


def _node(node: Node) -> str:
    """BibTeX for one node."""
    if isinstance(node, Text):
        return escape_specials(node.value) if node.tex is None else node.tex
    if isinstance(node, Group):
        return "{" + _nodes(node.children) + "}"
    if isinstance(node, MathNode):
        return _math(node)
    return _command(node)


def _command(command: Command) -> str:
    """BibTeX for a macro; unknown ones (or ones lacking arguments) as arguments or name."""
    name, args = command.name, command.args
    if not command.known:
        return _arguments(args) if has_content(args) else escape_specials(name)
    if name in MATH_SYMBOLS:
        return r"\textdegree{}" if name == "deg" else f"\\ensuremath{{\\{name}}}"
    if name in TEXT_SYMBOLS:
        return _symbol(name)
    if name in CONVENTIONS:
        return f"\\ensuremath{{{conventions.MATH[name]}}}"
    if name in DECLARATIONS:
        return f"\\{name}{{}}"
    if name in STYLES:
        return ("{" if name == "text" else f"\\{name}{{") + _nodes(args[0].children) + "}"
    if name in ACCENTS:
        return _accent(name, _nodes(args[0].children))
    if name in REFERENCES:
        return r"[\ldots{}]"
    if name == FOOTNOTE:
        return f" ({_nodes(args[0].children)})"
    return _link(name, args)


def _arguments(args: Sequence[Group]) -> str:
    """The non-empty arguments of an unknown macro, separated by spaces."""
    return " ".join(_nodes(arg.children) for arg in args if arg.raw.strip())


def _symbol(name: str) -> str:
    """A text symbol: the LaTeX kernel's own commands kept, others as their characters."""
    if name in KERNEL_TEXT:
        return f"\\{name}{{}}"
    if name in KERNEL_CONTROL_SYMBOLS:
        return "\\" + name
    return escape_specials(TEXT_SYMBOLS[name])


def _accent(name: str, base: str) -> str:
    """``\\'e`` for a symbol accent on one letter, else ``\\c{c}``, ``\\'{ab}``."""
    if not name.isalpha() and len(base) == 1 and base.isascii() and base.isalpha():
        return f"\\{name}{base}"
    return f"\\{name}{{{base}}}"


def _math(node: MathNode) -> str:
    """``$body$`` with braces BibTeX would miscount and comment characters escaped; math
    that can't be kept (an odd brace, a ``$`` inside ``\\(...\\)``) becomes escaped text."""
    body = conventions.expand(node.span.body)
    parts: list[str] = []
    depth = position = 0
    for match in _MATH_TOKEN.finditer(body):
        token = match.group()
        depth += (token == "{") - (token == "}")
        if depth < 0 or token in ("$", "\\"):
            return escape_specials(node.source)
        parts += [body[position : match.start()], _MATH_REPLACEMENTS.get(token, token)]
        position = match.end()
    inner = "".join(parts) + body[position:]
    if depth:
        return escape_specials(node.source)
    return f"${inner}$" if inner.strip() else "${}$"


def _link(name: str, args: Sequence[Group]) -> str:
    """``\\href{URL}{text}`` or ``\\url{URL}`` for web and mail URLs, else the text."""
    url = link_url(args[0].raw)
    text = _nodes(args[1].children) if name == "href" and args[1].raw.strip() else ""
    if not linkable(url):
        return text or escape_specials(url)
    safe = encode_url(url, _URL_KEEP).translate(_URL_ESCAPES)
    return f"\\href{{{safe}}}{{{text}}}" if text else f"\\url{{{safe}}}"

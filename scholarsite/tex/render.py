"""TeX in paper titles and abstracts -> safe HTML (with MathML) and plain text.

This is the single place where math is handled: ``$...$``, ``\\(...\\)``, ``$$...$$`` and
``\\[...\\]`` are lifted out before anything else looks at the text. Everything that is
not converted is HTML-escaped; unconvertible math, and unknown macros without an argument,
are shown as their TeX source in ``<code class="tex">`` (an unknown macro with arguments is
shown as its arguments; one in math as its TeX source, the rest of the formula rendered).
Plain text has the unstyled letters of ``\\mathbf`` and the like, which suits search and
descriptions. None of the public functions raise.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from markupsafe import Markup, escape

from scholarsite.tex.alphabets import UNSTYLE
from scholarsite.tex.autolink import URL_ESCAPES, link_addresses
from scholarsite.tex.links import encode_url, link_url, linkable
from scholarsite.tex.macros import (
    ACCENTS,
    DECLARATIONS,
    FOOTNOTE,
    REFERENCE_MARK,
    REFERENCES,
    STYLES,
    SYMBOLS,
)
from scholarsite.tex.parse import Command, Group, MathNode, Node, Text, has_content, parse

if TYPE_CHECKING:
    from scholarsite.tex.mathml import ConvertedMath

__all__ = ["MathCheck", "math_check", "tex_problems", "tex_to_html", "tex_to_plain", "tex_to_title_html"]

MathCheck = Callable[[str, bool], "tuple[str, ...] | None"]  # a body's unknown macros; None: not converted


def tex_to_html(text: str) -> Markup:
    """Safe HTML for ``text``: MathML for math, em/strong/code for text macros, links (bare
    http(s) addresses outside math included)."""
    emitter = _HTML_WITH_ADDRESSES if "://" in text else _HTML
    return Markup(emitter.nodes(parse(text).nodes))


def tex_to_title_html(text: str) -> Markup:
    """Like :func:`tex_to_html` but without links, for titles, which are shown inside links."""
    return Markup(_TITLE_HTML.nodes(parse(text).nodes))


def tex_to_plain(text: str) -> str:
    """Plain text for ``text`` (titles, meta descriptions, BibTeX notes, search)."""
    return _collapse(_plain(parse(text).nodes))


def convert_math(body: str, display: bool) -> ConvertedMath | None:
    """`mathml.convert_math`: that module (with nh3, 6 ms to import) is loaded by the first math
    converted, so a build that renders no new math never loads it."""
    from scholarsite.tex import mathml

    return mathml.convert_math(body, display)


def math_check(body: str, display: bool) -> tuple[str, ...] | None:
    """The unknown macros of one math body, converted (None when it cannot be)."""
    converted = convert_math(body, display)
    return None if converted is None else tuple(converted.unknown)


def tex_problems(text: str, check: MathCheck = math_check) -> list[str]:
    """Human-readable problems in ``text``; empty when it converts cleanly (each math body's
    problems found by `check`: `math_check`, or what it found before)."""
    document = parse(text)
    problems = list(document.problems)
    for math in document.maths:
        unknown = check(math.span.body, math.span.display)
        if unknown is None:
            problems.append(f"math {math.source!r} could not be converted; kept as TeX source")
        else:
            problems += [f"unknown macro '{name}' in math kept as TeX source" for name in unknown]
    return list(dict.fromkeys(problems))


def _collapse(text: str) -> str:
    """Single spaces (no-break spaces included), no leading or trailing whitespace."""
    return " ".join(text.split())


def _tex_code(source: str) -> str:
    """TeX source shown verbatim."""
    return f'<code class="tex">{escape(source)}</code>'


def _wrap(tag: str | None, inner: str) -> str:
    """``inner`` inside ``<tag>`` (or bare when tag is None)."""
    return f"<{tag}>{inner}</{tag}>" if tag else inner


class _Html:
    """The HTML emitter; ``links`` says whether ``\\href`` and ``\\url`` become ``<a>``,
    ``addresses`` whether bare web addresses do."""

    def __init__(self, links: bool, addresses: bool = False) -> None:
        self.links = links
        self.addresses = addresses

    def nodes(self, nodes: Sequence[Node]) -> str:
        """HTML for a node list; a declaration like ``\\em`` styles the rest of the list."""
        runs: list[list[Node]] = [[]]
        tags: list[str | None] = []
        for node in nodes:
            if isinstance(node, Command) and node.known and node.name in DECLARATIONS:
                tags.append(DECLARATIONS[node.name])
                runs.append([])
            else:
                runs[-1].append(node)
        html = self.run(runs.pop())
        while tags:  # innermost declaration first, so no recursion per declaration
            html = self.run(runs.pop()) + _wrap(tags.pop(), html)
        return html

    def run(self, nodes: Sequence[Node]) -> str:
        """HTML for nodes that contain no declaration; with ``addresses``, bare web addresses
        in a run of text nodes become links."""
        if not self.addresses:
            return "".join(self.node(node) for node in nodes)
        html = []
        for is_text, group in itertools.groupby(nodes, lambda node: _address_text(node) is not None):
            if is_text:
                html.append(link_addresses("".join(str(_address_text(node)) for node in group)))
            else:
                html += [self.node(node) for node in group]
        return "".join(html)

    def node(self, node: Node) -> str:
        """HTML for one node."""
        if isinstance(node, Text):
            return str(escape(node.value))
        if isinstance(node, Group):
            return self.nodes(node.children)
        if isinstance(node, MathNode):
            converted = convert_math(node.span.body, node.span.display)
            return converted.html if converted else _tex_code(node.source)
        return self.command(node)

    def command(self, command: Command) -> str:
        """HTML for a macro; unknown ones as their arguments, or their TeX source if none."""
        name, args = command.name, command.args
        if not command.known:
            return self.arguments(args) if has_content(args) else _tex_code(command.source)
        if name in SYMBOLS:
            return str(escape(SYMBOLS[name]))
        if name in STYLES:
            return _wrap(STYLES[name], self.nodes(args[0].children))
        if name in ACCENTS:
            return str(escape(_accent(name, args[0])))
        if name in REFERENCES:
            return REFERENCE_MARK
        if name == FOOTNOTE:
            return f" ({self.nodes(args[0].children)})"
        return self.link(name, args)

    def arguments(self, args: Sequence[Group]) -> str:
        """The non-empty arguments of an unknown macro, separated by spaces."""
        return " ".join(self.nodes(arg.children) for arg in args if arg.raw.strip())

    def link(self, name: str, args: Sequence[Group]) -> str:
        """``\\url{URL}`` or ``\\href{URL}{text}``: a link for web and mail URLs, else text."""
        url = link_url(args[0].raw)
        has_text = name == "href" and args[1].raw.strip()
        text = _TITLE_HTML.nodes(args[1].children) if has_text else str(escape(url))  # links don't nest
        if not (self.links and linkable(url)):
            return text
        return f'<a href="{escape(encode_url(url))}">{text}</a>'


def _address_text(node: Node) -> str | None:
    """What a node stands for in a bare web address, or None if no address goes through it:
    text, ``~`` as itself, and ``\\_``, ``\\%``, ``\\#``, ``\\&`` as their characters; not
    TeX's dashes and quotes (``https://x.org---a tool``), math or macros."""
    if isinstance(node, Text):
        return node.value if node.tex is None else "~" if node.tex == "~" else None
    if isinstance(node, Command) and node.known and node.name in URL_ESCAPES:
        return node.name
    return None


_HTML = _Html(links=True)
_HTML_WITH_ADDRESSES = _Html(links=True, addresses=True)
_TITLE_HTML = _Html(links=False)


def _plain(nodes: Sequence[Node]) -> str:
    """Plain text for a node list."""
    return "".join(_node_plain(node) for node in nodes)


def _node_plain(node: Node) -> str:
    """Plain text for one node; unknown macros become their argument or name."""
    if isinstance(node, Text):
        return node.value
    if isinstance(node, Group):
        return _plain(node.children)
    if isinstance(node, MathNode):
        converted = convert_math(node.span.body, node.span.display)
        return converted.plain if converted else _plain(parse(node.span.body).nodes)
    return _command_plain(node)


def _command_plain(command: Command) -> str:
    """Plain text for a macro."""
    name, args = command.name, command.args
    if not command.known:
        return " ".join(_plain(arg.children) for arg in args if arg.raw.strip()) or name
    if name in SYMBOLS:
        return SYMBOLS[name].translate(UNSTYLE)  # \\CC is C, as $\\CC$ is
    if name in ACCENTS:
        return _accent(name, args[0])
    if name in REFERENCES:
        return REFERENCE_MARK
    if name in STYLES:
        return _plain(args[0].children)
    if name == FOOTNOTE:
        return f" ({_plain(args[0].children)})"
    return "" if name in DECLARATIONS else _link_plain(name, args)


def _link_plain(name: str, args: Sequence[Group]) -> str:
    """``text (URL)`` for a web or mail link, the URL alone for ``\\url``, else the text."""
    url = link_url(args[0].raw)
    text = _collapse(_plain(args[1].children)) if name == "href" else ""
    if not linkable(url):
        return text or url
    return f"{text} ({url})" if text and text != url else url


def _accent(name: str, base: Group) -> str:
    """``base`` with the accent of ``\\name`` applied to its first letter (NFC-composed)."""
    text = _plain(base.children).replace("\u0131", "i").replace("\u0237", "j")  # dotless i, j
    if not text:
        return name
    return unicodedata.normalize("NFC", text[0] + ACCENTS[name] + text[1:])

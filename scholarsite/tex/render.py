"""TeX in paper titles and abstracts -> safe HTML (with MathML) and plain text.

This is the single place where math is handled: ``$...$``, ``\\(...\\)``, ``$$...$$`` and
``\\[...\\]`` are lifted out before anything else looks at the text. Everything that is
not converted is HTML-escaped; unknown macros and unconvertible math are shown as their
TeX source in ``<code class="tex">``. None of the public functions raise.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from markupsafe import Markup, escape

from scholarsite.tex.mathml import convert_math
from scholarsite.tex.parse import (
    ACCENTS,
    DECLARATIONS,
    STYLES,
    SYMBOLS,
    Command,
    Group,
    MathNode,
    Node,
    Text,
    parse,
)

__all__ = ["tex_problems", "tex_to_html", "tex_to_plain"]


def tex_to_html(text: str) -> Markup:
    """Safe HTML for ``text``: MathML for math, em/strong/code for text macros."""
    return Markup(_html(parse(text).nodes))


def tex_to_plain(text: str) -> str:
    """Plain text for ``text`` (titles, meta descriptions, BibTeX notes, search)."""
    return _collapse(_plain(parse(text).nodes))


def tex_problems(text: str) -> list[str]:
    """Human-readable problems in ``text``; empty when it converts cleanly."""
    document = parse(text)
    problems = list(document.problems) + [
        f"math {math.source!r} could not be converted; kept as TeX source"
        for math in document.maths
        if convert_math(math.span.body, math.span.display) is None
    ]
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


def _html(nodes: Sequence[Node]) -> str:
    """HTML for a node list; a declaration like ``\\em`` styles the rest of the list."""
    runs: list[list[Node]] = [[]]
    tags: list[str | None] = []
    for node in nodes:
        if isinstance(node, Command) and node.known and node.name in DECLARATIONS:
            tags.append(DECLARATIONS[node.name])
            runs.append([])
        else:
            runs[-1].append(node)
    html = _run_html(runs.pop())
    while tags:  # innermost declaration first, so no recursion per declaration
        html = _run_html(runs.pop()) + _wrap(tags.pop(), html)
    return html


def _run_html(nodes: Sequence[Node]) -> str:
    """HTML for nodes that contain no declaration."""
    return "".join(_node_html(node) for node in nodes)


def _node_html(node: Node) -> str:
    """HTML for one node."""
    if isinstance(node, Text):
        return str(escape(node.value))
    if isinstance(node, Group):
        return _html(node.children)
    if isinstance(node, MathNode):
        converted = convert_math(node.span.body, node.span.display)
        return converted.html if converted else _tex_code(node.source)
    return _command_html(node)


def _command_html(command: Command) -> str:
    """HTML for a macro; unknown ones as their TeX source."""
    name, args = command.name, command.args
    if not command.known:
        return _tex_code(command.source)
    if name in SYMBOLS:
        return str(escape(SYMBOLS[name]))
    if name in STYLES:
        return _wrap(STYLES[name], _html(args[0].children))
    if name in ACCENTS:
        return str(escape(_accent(name, args[0])))
    if name == "url":
        return _wrap("code", str(escape(args[0].raw)))
    return _html(args[-1].children)  # \href{url}{text}: the link text only


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
        inner = " ".join(_plain(arg.children) for arg in args)
        return inner if inner.strip() else name
    if name in SYMBOLS:
        return SYMBOLS[name]
    if name in ACCENTS:
        return _accent(name, args[0])
    if name == "url":
        return args[0].raw
    return _plain(args[-1].children) if args else ""


def _accent(name: str, base: Group) -> str:
    """``base`` with the accent of ``\\name`` applied to its first letter (NFC-composed)."""
    text = _plain(base.children).replace("\u0131", "i").replace("\u0237", "j")  # dotless i, j
    if not text:
        return name
    return unicodedata.normalize("NFC", text[0] + ACCENTS[name] + text[1:])

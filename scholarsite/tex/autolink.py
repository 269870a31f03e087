"""Bare web addresses in abstract text become links, as arXiv shows them.

Only ``http`` and ``https`` addresses are linked (no ``ftp:``, ``mailto:``, ``//``, e-mail
addresses or scheme-less names such as ``example.org``); linkify-it (the link finder of
markdown-it) decides where an address ends, so trailing punctuation and an unbalanced closing
parenthesis stay outside: ``(see https://x.org/a).`` links ``https://x.org/a``. The link text
is the address as written.
"""

from __future__ import annotations

from linkify_it import LinkifyIt
from markupsafe import escape

from scholarsite.tex.links import encode_url

NO_BREAK_SPACE = "\u00a0"
URL_ESCAPES = frozenset("_%#&")  # `\_` in an address stands for `_`, as in hyperref's `\url`


def _finder() -> LinkifyIt:
    """linkify-it finding http(s) addresses only."""
    finder = LinkifyIt(options={"fuzzy_link": False, "fuzzy_email": False, "fuzzy_ip": False})
    for schema in ("ftp:", "mailto:", "//"):
        finder.add(schema, None)  # None turns a schema off
    return finder


_FINDER = _finder()


def web_addresses(text: str) -> list[tuple[int, int]]:
    """(start, end) of every bare http(s) address in ``text``, in order."""
    if "://" not in text:
        return []
    return [(match.index, match.last_index) for match in _FINDER.match(text) or ()]


def _shown(text: str) -> str:
    """Escaped text outside an address: TeX's ``~`` is a no-break space there."""
    return str(escape(text.replace("~", NO_BREAK_SPACE)))


def link_addresses(text: str) -> str:
    """HTML for ``text`` with each bare address as a link.

    ``text`` is abstract text with TeX already undone, except that ``~`` (which the TeX
    parser reads as a no-break space) is still ``~``: inside an address it is a tilde
    (``https://x.edu/~me``), elsewhere a no-break space.
    """
    html, position = [], 0
    for start, end in web_addresses(text):
        address = text[start:end]
        link = f'<a href="{escape(encode_url(address))}">{escape(address)}</a>'
        html += [_shown(text[position:start]), link]
        position = end
    return "".join(html) + _shown(text[position:])

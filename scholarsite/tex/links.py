"""The URL of ``\\url{..}`` and ``\\href{..}{..}``, and which URLs may become links."""

from __future__ import annotations

import re
from urllib.parse import quote

_ESCAPED = re.compile(r"\\([%#_&~$])")
_LINKABLE = re.compile(r"(?:https?|mailto):", re.IGNORECASE)
_URL_SAFE = ":/?#[]@!$&'()*+,;=%~-._"  # percent-encode everything else


def link_url(raw: str) -> str:
    """The URL in a link's first argument: hyperref's escapes (``\\%``, ``\\#``...) undone,
    whitespace (which TeX ignores there) removed."""
    return _ESCAPED.sub(r"\1", "".join(raw.split()))


def linkable(url: str) -> bool:
    """Only web and mail links become links; anything else (``javascript:``...) is text."""
    return _LINKABLE.match(url) is not None


def encode_url(url: str, keep: str = _URL_SAFE) -> str:
    """``url`` with non-ASCII, spaces, quotes, braces and backslashes percent-encoded."""
    return quote(url, safe=keep)

"""The URL slugs of papers and authors, derived from their identity alone.

Identity is the normal form of a title or a name (`inputs.unicode.normalise`). A slug is that
identity written with hyphens when it is plain ASCII and short; otherwise a transliterated,
shortened form plus a hash of the identity. Either way the slug depends on nothing but the
identity, so adding seeds never changes an existing URL, and two identities never share a slug.
A title's slug is made from the title as shown (its TeX rendered), with the hash of its
identity when the two differ.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from scholarsite.inputs.digests import short_hash
from scholarsite.inputs.unicode import normalise
from scholarsite.tex.macros import MATH_SYMBOLS

MAX_SLUG = 80
HASHED_PREFIX = 60
REMEMBERED_SLUGS = 2**18  # slugs kept by a process that builds again (the preview): a collection's worth


PLAIN_RE = re.compile(r"[a-z0-9]+(?: [a-z0-9]+)*")  # what slugify writes back as it is, hyphenated
WINDOWS_RESERVED = frozenset(  # names Windows gives to devices: a folder so named cannot be checked out
    ["con", "prn", "aux", "nul", *(f"{port}{n}" for port in ("com", "lpt") for n in range(1, 10))]
)


def slugify(text: str, **options: object) -> str:
    """python-slugify's `slugify`, imported when a build first makes a slug (most builds take
    every slug from the memo: 13 ms of imports less)."""
    from slugify import slugify as made

    return made(text, **options)


@lru_cache(maxsize=REMEMBERED_SLUGS)
def slug_for(identity: str, fallback: str = "item") -> str:
    """ASCII, lowercase, readable, at most MAX_SLUG characters, never empty, unique per identity."""
    plain = identity.replace(" ", "-")
    kept = plain and len(plain) <= MAX_SLUG and plain not in WINDOWS_RESERVED
    if kept and (PLAIN_RE.fullmatch(identity) or slugify(identity) == plain):
        return plain
    readable = slugify(identity, max_length=HASHED_PREFIX, word_boundary=True) or fallback
    return f"{readable}-{short_hash(identity)}"


@lru_cache(maxsize=REMEMBERED_SLUGS)
def title_slug(identity: str, shown: str, fallback: str = "paper") -> str:
    """The slug of a title from its text as shown (`Compiling O(n log n) Programs` for
    `Compiling $\\mathcal{O}(n \\log n)$ Programs`), followed by a hash of its identity, so
    two titles shown alike still have slugs of their own. A title that reads as its source
    does (no TeX, or `$\\Delta F/F$` shown as `ΔF/F`) keeps the slug of its identity."""
    if normalise(shown) == identity or (spelled := spelled_out(shown)) == identity:
        return slug_for(identity, fallback)
    readable = slugify(spelled, max_length=HASHED_PREFIX, word_boundary=True) or fallback
    return f"{readable}-{short_hash(identity)}"


def spelled_out(text: str) -> str:
    """The normal form of `text` with Greek letters and math symbols spelled as TeX names them,
    and runs of super- or subscripts as words of their own (`ΔF/F`, `O(n²)`, `⁸⁷Rb` ->
    `delta f f`, `o n 2`, `87 rb`)."""
    if text.isascii():
        return normalise(text)
    marked = "".join(_SPELLING.get(char) or _apart(char) for char in text)
    return normalise(marked.replace("\0\0", "").replace("\0", " "))


def _apart(char: str) -> str:
    """A super- or subscript character between NULs (a run of them is one word); any other
    character as it is."""
    return f"\0{char}\0" if unicodedata.decomposition(char).startswith(("<super>", "<sub>")) else char


_SPELLING = {char: f" {name} " for name, char in MATH_SYMBOLS.items() if not char.isascii()}

"""The URL slugs of papers and authors, derived from their identity alone.

Identity is the normal form of a title or a name (`inputs.unicode.normalise`). A slug is that
identity written with hyphens when it is plain ASCII and short; otherwise a transliterated,
shortened form plus a hash of the identity. Either way the slug depends on nothing but the
identity, so adding seeds never changes an existing URL, and two identities never share a slug.
A title's slug is made from the title as shown (its TeX rendered), with the hash of its
identity when the two differ.
"""

from __future__ import annotations

import hashlib
import re

from slugify import slugify

MAX_SLUG = 80
HASHED_PREFIX = 60


def short_hash(identity: str, length: int = 8) -> str:
    """A stable hexadecimal digest of an identity."""
    return hashlib.sha256(identity.encode("utf-8")).hexdigest()[:length]


PLAIN_RE = re.compile(r"[a-z0-9]+(?: [a-z0-9]+)*")  # what slugify writes back as it is, hyphenated


def slug_for(identity: str, fallback: str = "item") -> str:
    """ASCII, lowercase, readable, at most MAX_SLUG characters, never empty, unique per identity."""
    plain = identity.replace(" ", "-")
    if plain and len(plain) <= MAX_SLUG and (PLAIN_RE.fullmatch(identity) or slugify(identity) == plain):
        return plain
    readable = slugify(identity, max_length=HASHED_PREFIX, word_boundary=True) or fallback
    return f"{readable}-{short_hash(identity)}"


def title_slug(identity: str, shown: str, fallback: str = "paper") -> str:
    """The slug of a title from the normal form of its text as shown (`compiling o n log n`
    for `Compiling $\\mathcal{O}(n \\log n)$`), followed by a hash of its identity when that
    differs, so two titles shown alike still have slugs of their own."""
    if shown == identity:
        return slug_for(identity, fallback)
    readable = slugify(shown, max_length=HASHED_PREFIX, word_boundary=True) or fallback
    return f"{readable}-{short_hash(identity)}"

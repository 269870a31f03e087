"""How the model names what it makes: titles as plain text, authors' and papers' slugs
(`Naming`). A build's naming keeps each result in the memo (`remembered`), so a one-shot
build does not slugify 52,000 names again (a third of a millisecond each, for names that
need transliterating)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from scholarsite.inputs.memo import Memo
from scholarsite.model.identity import slug_for, title_slug
from scholarsite.tex.render import tex_to_plain

PLAIN_TEXT = "plain"  # the memo's name for TeX rendered as plain text


@dataclass(frozen=True)
class Naming:
    """A title as plain text; the slug of an identity (with the fallback for an empty one); a
    paper's slug from its title's identity and its title as shown."""

    plain_title: Callable[[str], str] = tex_to_plain
    slug: Callable[[str, str], str] = slug_for
    title_slug: Callable[[str, str], str] = title_slug


def remembered(memo: Memo) -> Naming:
    """The naming of `identity` and `tex`, each result kept in `memo`."""

    def slug(identity: str, fallback: str) -> str:
        return memo.text(f"slug {fallback}", partial(slug_for, fallback=fallback), identity)

    def paper_slug(identity: str, shown: str) -> str:
        return memo.text(
            "title slug", lambda both: title_slug(*json.loads(both)), json.dumps([identity, shown])
        )

    return Naming(partial(memo.text, PLAIN_TEXT, tex_to_plain), slug, paper_slug)

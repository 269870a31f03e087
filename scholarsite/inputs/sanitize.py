"""What HTML a content page may carry, and what was dropped from it.

Content pages are Markdown written by people, so, like Hugo (Goldmark's `unsafe: false`), the
HTML Markdown renders is cleaned with nh3 (ammonia) before it reaches a page: only the elements
and attributes Markdown itself produces (and the MathML of the TeX renderer) are kept by
default, and link and image targets keep only ammonia's list of harmless URL schemes (http,
https, mailto, ...; never `javascript:`, `vbscript:` or `data:`). With `unsafe_html: true` the
site trusts its authors: every HTML element and attribute is kept, but the URL schemes are still
checked. What the cleaning removed is found by comparing the tags and attributes before and after,
so a warning can name it instead of losing content silently.
"""

from __future__ import annotations

from html.parser import HTMLParser
from string import ascii_lowercase
from typing import NamedTuple

import nh3

from scholarsite.tex.mathspans import MATHML_ATTRIBUTES, MATHML_TAGS

MARKDOWN_TAGS = frozenset({
    "a", "abbr", "blockquote", "br", "code", "dd", "del", "div", "dl", "dt", "em", "h1", "h2",
    "h3", "h4", "h5", "h6", "hr", "img", "li", "ol", "p", "pre", "strong", "sup", "table",
    "tbody", "td", "th", "thead", "tr", "ul",
})  # fmt: skip
MARKDOWN_ATTRIBUTES = {
    "*": {"id", "class", "title"},  # footnotes, fenced code's language, attr_list
    "a": {"href"},
    "img": {"src", "alt"},
    "ol": {"start"},
}
HTML_TAGS = frozenset(
    """
    a abbr address area article aside audio b bdi bdo blockquote br button canvas caption cite
    code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset
    figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr i iframe img input ins kbd
    label legend li link main map mark menu meter nav noscript object ol optgroup option output
    p picture pre progress q rp rt ruby s samp script search section select slot small source
    span strong style sub summary sup table tbody td template textarea tfoot th thead time tr
    track u ul var video wbr
    """.split()  # noqa: SIM905 - a word list reads better than 110 quoted names
)
ANY_ATTRIBUTE = set(ascii_lowercase)  # nh3 has no wildcard: every name starts with a letter
URL_ATTRIBUTES = frozenset({"href", "src", "action", "formaction", "cite", "poster", "data", "srcset"})


class Token(NamedTuple):
    """A start tag with its attributes."""

    tag: str
    attributes: frozenset[tuple[str, str]] = frozenset()


class StartTags(HTMLParser):
    """The start tags of an HTML fragment, in order, ignoring how they are spelled."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tokens: list[Token] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """`<img src=x>` and `<img src="x" />` alike."""
        self.tokens.append(Token(tag, frozenset((name, value or "") for name, value in attrs)))

    handle_startendtag = handle_starttag


class Dropped(NamedTuple):
    """One thing the cleaning removed: what to call it, and what to look for in the source."""

    description: str
    needle: str


def sanitize(html: str, trusted: bool) -> str:
    """`html` with what a content page may not carry removed (see the module's docstring)."""
    if trusted:
        return nh3.clean(
            html,
            tags=set(HTML_TAGS | MATHML_TAGS),
            clean_content_tags=set(),
            generic_attribute_prefixes=ANY_ATTRIBUTE,
            strip_comments=False,
            link_rel=None,
        )
    attributes = {tag: set(names) for tag, names in MARKDOWN_ATTRIBUTES.items()}
    attributes |= {tag: set(MATHML_ATTRIBUTES) for tag in MATHML_TAGS}
    return nh3.clean(html, tags=set(MARKDOWN_TAGS | MATHML_TAGS), attributes=attributes, link_rel=None)


def describe(tag: str, name: str, value: str) -> Dropped:
    """An attribute the cleaning removed: a link target, or an attribute such as `onclick`."""
    if name in URL_ATTRIBUTES:
        shown = value if len(value) <= 40 else value[:39] + "…"
        return Dropped(f"link target {shown!r} (in <{tag} {name}>)", value[:40])
    return Dropped(f"attribute {name!r} on <{tag}>", name)


def dropped(before: str, after: str) -> list[Dropped]:
    """The elements and attributes of `before` missing from `after`, in order, each once.

    Cleaning only removes, so the start tags of `after` are those of `before` in order, some
    missing and some with fewer attributes: one pass pairs them by name (a tag the HTML parser
    added, such as `<tbody>`, is skipped)."""
    old = [token for token in StartTags(before).tokens if token.tag]
    names = {token.tag for token in old}
    new = [token for token in StartTags(after).tokens if token.tag in names]
    found: list[Dropped] = []
    position = 0
    for token in old:
        twin = new[position] if position < len(new) else None
        if twin is None or twin.tag != token.tag:
            found.append(Dropped(f"raw HTML <{token.tag}>", f"<{token.tag}"))
            continue
        position += 1
        lost = sorted(token.attributes - twin.attributes)
        found += [describe(token.tag, name, value) for name, value in lost]
    return list(dict.fromkeys(found))


def line_of(source: str, needle: str) -> int:
    """The 1-based line of `source` where `needle` first appears (case-insensitive), or 0."""
    index = source.lower().find(needle.lower())
    return source.count("\n", 0, index) + 1 if index >= 0 else 0

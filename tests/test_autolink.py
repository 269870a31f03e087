"""Bare http(s) addresses in abstracts become links: only those, shown as written, never in math."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from scholarsite.model.cards import abstract_html
from scholarsite.tex.render import tex_to_html, tex_to_plain, tex_to_title_html


class Links(HTMLParser):
    """Every `<a>` of some HTML as (href, text), and the whole text."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []
        self.text = ""
        self.open: str | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            assert self.open is None, "links do not nest"
            self.open = dict(attrs)["href"] or ""
            self.links.append((self.open, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self.open = None

    def handle_data(self, data: str) -> None:
        self.text += data
        if self.open is not None:
            href, text = self.links[-1]
            self.links[-1] = (href, text + data)


def links_of(tex: str) -> list[tuple[str, str]]:
    """(href, text) of each link in an abstract's HTML."""
    return Links(str(tex_to_html(tex))).links


@pytest.mark.parametrize(
    ("tex", "links"),
    [
        ("(see https://x.org/a).", [("https://x.org/a", "https://x.org/a")]),
        ("Code: https://github.com/a/b, data: http://x.org/d.", [
            ("https://github.com/a/b", "https://github.com/a/b"),
            ("http://x.org/d", "http://x.org/d"),
        ]),
        ("at https://x.org/q?a=1;", [("https://x.org/q?a=1", "https://x.org/q?a=1")]),
        ("https://en.wikipedia.org/wiki/Set_(mathematics).", [
            ("https://en.wikipedia.org/wiki/Set_(mathematics)", "https://en.wikipedia.org/wiki/Set_(mathematics)")
        ]),
        ("``https://x.org/a''", [("https://x.org/a", "https://x.org/a")]),  # TeX quotes stay outside
        ("at https://x.org---a tool", [("https://x.org", "https://x.org")]),  # so does a TeX dash
        ("http://x.edu/~me/code", [("http://x.edu/~me/code", "http://x.edu/~me/code")]),
        ("https://x.org/a\\_b\\%20c", [("https://x.org/a_b%20c", "https://x.org/a_b%20c")]),
        ("HTTPS://X.ORG/A", [("HTTPS://X.ORG/A", "HTTPS://X.ORG/A")]),
    ],
)  # fmt: skip
def test_a_bare_address_is_linked_as_written_without_trailing_punctuation(
    tex: str, links: list[tuple[str, str]]
) -> None:
    assert links_of(tex) == links


@pytest.mark.parametrize(
    "tex",
    [
        "ftp://x.org/file",
        "mail me: mailto:a@b.org or a@b.org",
        "www.x.org and x.org/a and //x.org/a",
        "javascript:alert(1) and data:text/html,x",
        "xhttps://x.org",
        "https:// alone",
    ],
)
def test_no_other_scheme_and_no_guessed_address_is_linked(tex: str) -> None:
    html = str(tex_to_html(tex))
    assert "<a" not in html and Links(html).text == tex


def test_an_address_in_math_is_left_to_the_math() -> None:
    for tex in ("$https://x.org/a$", "\\(\\mathrm{https://x.org}\\)", "$$x = https://x.org$$"):
        html = str(tex_to_html(tex))
        assert "<a" not in html and "<math" in html


def test_link_text_and_href_are_escaped() -> None:
    html = str(tex_to_html('see https://x.org/?a=1&b="2"<script>'))
    assert "<script" not in html and '"2"' not in html
    ((href, text),) = Links(html).links
    assert text == 'https://x.org/?a=1&b="2"'
    assert href == "https://x.org/?a=1&b=%222%22"


def test_text_around_addresses_renders_as_before() -> None:
    """A `~` outside an address is still a no-break space; macros and math around it still render."""
    html = str(tex_to_html("Fig.~2 and \\emph{code} at https://x.org/~a; $n^2$ \\url{https://y.org}"))
    assert "Fig.\u00a02" in html and "<em>code</em>" in html and "<math" in html
    assert Links(html).links == [("https://x.org/~a", "https://x.org/~a"), ("https://y.org", "https://y.org")]
    before = "Fig.~2, \\emph{x} -- y ``q'' \\_ $n$ "
    assert str(tex_to_html(before + "https://a.org")).startswith(str(tex_to_html(before)))


def test_links_do_not_nest_and_titles_have_none() -> None:
    assert links_of("\\href{https://x.org}{https://y.org}") == [("https://x.org", "https://y.org")]
    assert links_of("\\textbf{at https://x.org/b}") == [("https://x.org/b", "https://x.org/b")]
    assert "<a" not in str(tex_to_title_html("Notes on https://x.org"))
    assert tex_to_plain("(see https://x.org/a).") == "(see https://x.org/a)."


def test_every_paragraph_of_an_abstract_is_linked() -> None:
    html = str(abstract_html("One https://a.org.\n\nTwo (https://b.org/x)."))
    assert html.count("<p>") == 2
    assert [href for href, _ in Links(html).links] == ["https://a.org", "https://b.org/x"]


def test_the_shipped_papers_link_their_code(shipped_site: Path) -> None:
    pages = (shipped_site / "papers").rglob("index.html")
    found = {href for page in pages for href, _ in Links(page.read_text(encoding="utf-8")).links}
    assert {"https://github.com/bytedance/ShadowKV", "https://www.volcengine.com/experience/ark"} <= found

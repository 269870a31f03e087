"""Output paths and relative links."""

from __future__ import annotations

import posixpath

import pytest

from scholarsite.model import urls


@pytest.mark.parametrize(
    "source, target, link",
    [
        ("index.html", "authors/a/index.html", "authors/a/"),
        ("authors/a/index.html", "index.html", "../../"),
        ("authors/a/index.html", "authors/a/index.html", "./"),
        ("authors/a/index.html", "authors/a/papers.bib", "papers.bib"),
        ("papers/2025/x/index.html", "subjects/cs-dc/index.html", "../../../subjects/cs-dc/"),
        ("404.html", "assets/style.css", "assets/style.css"),
    ],
)
def test_relative_links(source: str, target: str, link: str) -> None:
    assert urls.relative(source, target) == link


@pytest.mark.parametrize("source", ["index.html", "a/index.html", "a/b/c/index.html", "404.html"])
@pytest.mark.parametrize("target", ["index.html", "x/index.html", "x/y/feed.xml", "papers/2025/s/index.html"])
def test_relative_links_resolve_to_the_target_under_any_sub_path(source: str, target: str) -> None:
    link = urls.relative(source, target)
    assert not link.startswith("/")
    for base in ("/", "/scholarsite/"):
        page_url = base + source
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(page_url), link))
        expected = posixpath.normpath(base + target.removesuffix("index.html"))
        assert resolved == expected


def test_absolute_urls_drop_index_html() -> None:
    assert urls.absolute("https://x.org/s/", "authors/a/index.html") == "https://x.org/s/authors/a/"
    assert urls.absolute("https://x.org/s/", "index.html") == "https://x.org/s/"
    assert urls.absolute("https://x.org/s/", "feed.xml") == "https://x.org/s/feed.xml"


def test_paged_listing_paths() -> None:
    assert urls.paged("papers/index.html", 1) == "papers/index.html"
    assert urls.paged("papers/index.html", 3) == "papers/page/3/index.html"
    assert urls.paged("subjects/cs-dc/index.html", 2) == "subjects/cs-dc/page/2/index.html"

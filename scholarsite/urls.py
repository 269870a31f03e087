"""The one place that knows output paths and the relative links between them.

Output paths are POSIX paths inside `site/` (`authors/ziheng-jiang/index.html`). Links between
pages are always relative, so the same site works at a domain root and under any sub-path.
"""

from __future__ import annotations

import posixpath

INDEX = "index.html"

HOME = INDEX
AUTHORS = "authors/index.html"
PAPERS = "papers/index.html"
SUBJECTS = "subjects/index.html"
YEARS = "years/index.html"
SEARCH = "search/index.html"
NOT_FOUND = "404.html"
STYLESHEET = "assets/style.css"
SCRIPT = "assets/site.js"
FAVICON = "favicon.svg"
FEED = "feed.xml"
SITEMAP = "sitemap.xml"
PAPERS_JSON = "data/papers.json"
AUTHORS_JSON = "data/authors.json"
DATA_README = "data/README.md"

RESERVED = {"authors", "papers", "subjects", "years", "search", "assets", "data", "pagefind"}


def author(slug: str) -> str:
    """An author's page."""
    return f"authors/{slug}/{INDEX}"


def paper(year: int, slug: str) -> str:
    """A paper's page, grouped under its year."""
    return f"papers/{year}/{slug}/{INDEX}"


def subject(slug: str) -> str:
    """A subject's page."""
    return f"subjects/{slug}/{INDEX}"


def year(value: int) -> str:
    """A year's page."""
    return f"years/{value}/{INDEX}"


def content_page(name: str) -> str:
    """A hand-written page from `content/<name>.md`."""
    return f"{name}/{INDEX}"


def paged(first: str, number: int) -> str:
    """Page `number` (1-based) of a listing whose first page is `first`."""
    if number == 1:
        return first
    return posixpath.join(posixpath.dirname(first), "page", str(number), INDEX)


def beside(page: str, filename: str) -> str:
    """A file in the same folder as `page` (its feed, its BibTeX)."""
    return posixpath.join(posixpath.dirname(page), filename)


def relative(from_page: str, to_path: str) -> str:
    """The relative link from one output file to another; folder URLs for index pages."""
    start = posixpath.dirname(from_page) or "."
    if posixpath.basename(to_path) == INDEX:
        target = posixpath.dirname(to_path) or "."
        link = posixpath.relpath(target, start)
        return "./" if link == "." else link + "/"
    return posixpath.relpath(to_path, start)


def absolute(base_url: str, to_path: str) -> str:
    """The absolute URL of an output file, for canonical links, sitemaps and feeds."""
    if posixpath.basename(to_path) == INDEX:
        to_path = to_path[: -len(INDEX)]
    return base_url + to_path

"""Output families for hosting: `.nojekyll`, robots, sitemap, `CNAME`, redirects; and the assets."""

from __future__ import annotations

import html
import json
from collections.abc import Iterator

from scholarsite.model import urls
from scholarsite.outputs.registry import Copy, Output, fixed
from scholarsite.outputs.sitedata import SiteData

SITEMAP_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
)


def sitemap(base_url: str, pages: list[str]) -> bytes:
    """sitemaps.org XML listing every page (absolute URLs)."""
    entries = "".join(
        f"  <url><loc>{html.escape(urls.absolute(base_url, path), quote=False)}</loc></url>\n"
        for path in sorted(pages)
    )
    return (SITEMAP_HEAD + entries + "</urlset>\n").encode("utf-8")


def robots(base_url: str | None) -> bytes:
    """Allow everything; point at the sitemap when there is one."""
    lines = ["User-agent: *", "Allow: /"]
    if base_url:
        lines.append(f"Sitemap: {urls.absolute(base_url, urls.SITEMAP)}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def outputs(data: SiteData) -> Iterator[Output]:
    """`.nojekyll` (serve folders as they are), robots; CNAME. (The sitemap is made with the
    pages it lists: `pages.outputs`.)"""
    config = data.config
    yield fixed(".nojekyll", b"")
    yield fixed("robots.txt", robots(config.base_url))
    if config.cname:
        yield fixed("CNAME", (config.cname + "\n").encode("ascii"))


def redirect_page(language: str, name: str, target: str) -> bytes:
    """A page that sends browsers (and search engines, via canonical) on to `target`."""
    link = html.escape(target)
    return (
        f'<!DOCTYPE html>\n<html lang="{html.escape(language)}">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(name)}</title>\n"
        f'<meta http-equiv="refresh" content="0; url={link}">\n<link rel="canonical" href="{link}">\n'
        f'<meta name="robots" content="noindex">\n</head>\n<body>\n'
        f'<p>This page has moved: <a href="{link}">{html.escape(name)}</a>.</p>\n</body>\n</html>\n'
    ).encode()


def redirects(data: SiteData) -> Iterator[Output]:
    """The URL of each author alias (another spelling declared on an author page) redirects
    to the author's page; each page lineage.txt keeps for a paper (its title corrected), to its
    page."""
    language, portable = data.config.language, data.config.portable
    names = {author.slug: author.name for author in data.site.authors}
    for alias, slug in data.site.redirects.items():
        path = urls.author(alias)
        target = urls.relative(path, urls.author(slug), portable)
        yield fixed(path, redirect_page(language, names[slug], target))
    for path, paper in data.site.moved_papers.items():  # what its card says, the card not made
        page = urls.paper(paper.year, paper.slug)
        title = data.cards.title_plain(paper)
        yield fixed(path, redirect_page(language, title, urls.relative(path, page, portable)))


def folder_of(path: str) -> str:
    """A page's address from the site's root, as a browser asks for it: its folder."""
    return path.removesuffix(urls.INDEX)


def moved_map(data: SiteData) -> Iterator[Output]:
    """`papers/moved.json`, when a paper's page had another address under the slug rule
    before (before slugs showed rendered TeX): that address to the page's, as folders from the
    site's root. The 404 page looks the missing address up and goes on (with JavaScript).
    Few sites were published under that rule, and a redirect page each was 1,603 files at
    37,537 papers (issue 27); the pages lineage.txt keeps stay redirect pages."""
    legacy = data.site.legacy_pages.items()
    moved = {folder_of(path): folder_of(urls.paper(paper.year, paper.slug)) for path, paper in legacy}
    if moved:
        yield fixed(urls.MOVED, json.dumps(moved, ensure_ascii=False, separators=(",", ":")).encode())


def assets(data: SiteData) -> Iterator[Output]:
    """Every visible file under `assets/`, copied as it is to `site/assets/`."""
    for path, content in data.assets.items():
        yield fixed(path, content)


def static(data: SiteData) -> Iterator[Copy]:
    """Every file of `static/`, copied as it is (streamed) to the same place in the site."""
    for path, hashed in data.static.items():
        yield Copy(path, hashed.sha256, hashed.path)

"""Page weight: how large a built site's paper pages are, and what their bytes are spent on.

    python benchmarks/weight.py SITE_DIR [SITE_DIR ...]

For each built site prints the paper pages' count, median, mean, 90th percentile and largest
size (and the median gzipped), the site's files and bytes, and the share of all paper-page
bytes each part of a page takes (data: downloads, JSON-LD, the page head, the related-paper
lists, ...). A paper page is an `index.html` holding `<article class="paper-page"`. Sizes are
bytes of the files (not rounded up to disk blocks), of the published files only (not the build's
own `.scholarsite-*` files).

It also prints the site's files a paper page, the author pages' sizes (an `index.html` holding
`<article class="profile"`, every page of a paginated list) and the bytes and files of each part
of the site (its first folder, `papers/*/*/cite.*` and `papers.bib` apart), largest first.
"""

from __future__ import annotations

import argparse
import gzip
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

PAPER_PAGE = b'<article class="paper-page"'
AUTHOR_PAGE = b'<article class="profile"'
BUILD_FILES = ".scholarsite-"  # the build's manifest and stats: in site/, never published
PARTS = {  # name: what it matches in a paper page (non-overlapping, measured in this order)
    "data: downloads": rb'href="data:[^"]*"',
    "citation data": rb'<script type="application/json" id="citation-data">.*?</script>',
    "JSON-LD": rb'<script type="application/ld\+json">.*?</script>',
    "related and more-by lists": rb'<section aria-labelledby="(?:related|by-authors)".*?</section>',
    "BibTeX block": rb'<pre id="bibtex".*?</pre>',
    "abstract": rb'<div class="abstract-text">.*?</div>',
    "Highwire meta tags": rb'<meta name="citation_[^>]*>',
    "other head": rb"<head>.*?</head>",
    "site header, breadcrumbs, footer": rb"<header.*?</header>|<nav class=.breadcrumbs.*?</nav>"
    rb"|<footer.*?</footer>",
}
REST = "the rest (facts, headings, markup)"


@dataclass
class Weight:
    """The figures of one site."""

    pages: dict[Path, int] = field(default_factory=dict)  # paper page folder: bytes
    authors: list[int] = field(default_factory=list)  # the author pages' bytes
    areas: Counter[str] = field(default_factory=Counter)  # bytes by part of the site
    area_files: Counter[str] = field(default_factory=Counter)
    gzipped: list[int] = field(default_factory=list)  # the paper pages' bytes gzipped (level 6)
    parts: Counter[str] = field(default_factory=Counter)
    files: int = 0
    total: int = 0


def measure(site: Path) -> Weight:
    """Read every file of `site` once."""
    weight = Weight()
    for path in site.rglob("*"):
        if not path.is_file() or path.name.startswith(BUILD_FILES):
            continue
        size = path.stat().st_size
        weight.files += 1
        weight.total += size
        area = area_of(path.relative_to(site))
        weight.areas[area] += size
        weight.area_files[area] += 1
        if path.name == "index.html":
            page = path.read_bytes()
            if AUTHOR_PAGE in page:
                weight.authors.append(size)
            if PAPER_PAGE in page:
                weight.pages[path.parent] = size
                weight.gzipped.append(len(gzip.compress(page, 6)))
                for name, pattern in PARTS.items():
                    found = re.findall(pattern, page, re.DOTALL)
                    weight.parts[name] += sum(len(part) for part in found)
                    page = re.sub(pattern, b"", page, flags=re.DOTALL)
    return weight


def area_of(path: Path) -> str:
    """The part of the site a file is in: its first folder (or the file at the top), with the
    citation files and the BibTeX exports (`papers.bib`, the authors' parts) apart."""
    if path.parts[0] == "papers" and path.name.startswith("cite."):
        return "cite.* files"
    if path.name == "papers.bib" or path.suffix == ".bib":
        return "papers.bib exports"
    return path.parts[0] if len(path.parts) > 1 else "(top)"


def sizes(pages: list[int]) -> str:
    """Median, mean, 90th percentile and largest of some pages' sizes."""
    pages = sorted(pages)
    return (
        f"median {statistics.median(pages) / 1000:.1f} KB, "
        f"mean {statistics.mean(pages) / 1000:.1f} KB, p90 {pages[len(pages) * 9 // 10] / 1000:.1f} KB, "
        f"largest {pages[-1] / 1000:.1f} KB"
    )


def report(site: Path, weight: Weight) -> str:
    """The figures as text."""
    pages = list(weight.pages.values())
    if not pages:
        return f"{site}: no paper pages"
    paper_bytes = sum(pages)
    lines = [
        f"{site}: {len(pages):,} paper pages: {sizes(pages)}; "
        f"site {weight.files:,} files, {weight.total / 1e6:.1f} MB",
        f"  paper pages: {paper_bytes / 1e6:.1f} MB ({paper_bytes / weight.total:.0%} of the site); "
        f"gzipped, median {statistics.median(weight.gzipped) / 1000:.1f} KB",
    ]
    shares = [*weight.parts.items(), (REST, paper_bytes - sum(weight.parts.values()))]
    for name, size in shares:
        lines.append(f"  {name:<34} {size / len(pages) / 1000:6.2f} KB a page  {size / paper_bytes:6.1%}")
    lines.append(f"  {weight.files / len(pages):.2f} files a paper")
    if weight.authors:
        lines.append(f"  {len(weight.authors):,} author pages: {sizes(weight.authors)}")
    for area, size in weight.areas.most_common():
        lines.append(f"  {area:<34} {size / 1e6:9.1f} MB {weight.area_files[area]:9,} files")
    return "\n".join(lines)


def main() -> None:
    """Print the figures of each site."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sites", nargs="+", type=Path)
    for site in parser.parse_args().sites:
        weight = measure(site)
        print(report(site, weight))


if __name__ == "__main__":
    main()

"""Page weight: how large a built site's paper pages are, and what their bytes are spent on.

    python benchmarks/weight.py SITE_DIR [SITE_DIR ...]

For each built site prints the paper pages' count, median, mean, 90th percentile and largest
size (and the median gzipped), the site's files and bytes, and the share of all paper-page
bytes each part of a page takes (data: downloads, JSON-LD, the page head, the related-paper
lists, ...). A paper page is an `index.html` holding `<article class="paper-page"`. Sizes are
bytes of the files (not rounded up to disk blocks).

When the site writes its citation files beside the paper pages (`cite.bib`, `cite.ris`,
`cite.json`), it also prints what two other ways of offering them would weigh, worked out from
those files (issue 20): the BibTeX download as a `data:` URL with RIS and CSL-JSON as files; and
a script that makes all three from the page (the abstract back in the JSON-LD), with no file per
paper and, for readers without JavaScript, RIS and CSL-JSON bundles beside every author's and
subject's page (as `papers.bib` is).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

PAPER_PAGE = b'<article class="paper-page"'
PARTS = {  # name: what it matches in a paper page (non-overlapping, measured in this order)
    "data: downloads": rb'href="data:[^"]*"',
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
BIBTEX_DATA_URL = len("data:application/x-bibtex;charset=utf-8;base64,")


@dataclass
class Weight:
    """The figures of one site."""

    pages: dict[Path, int] = field(default_factory=dict)  # paper page folder: bytes
    gzipped: list[int] = field(default_factory=list)  # the paper pages' bytes gzipped (level 6)
    parts: Counter[str] = field(default_factory=Counter)
    files: int = 0
    total: int = 0


def measure(site: Path) -> Weight:
    """Read every file of `site` once."""
    weight = Weight()
    for path in site.rglob("*"):
        if not path.is_file():
            continue
        size = path.stat().st_size
        weight.files += 1
        weight.total += size
        if path.name == "index.html":
            page = path.read_bytes()
            if PAPER_PAGE in page:
                weight.pages[path.parent] = size
                weight.gzipped.append(len(gzip.compress(page, 6)))
                for name, pattern in PARTS.items():
                    found = re.findall(pattern, page, re.DOTALL)
                    weight.parts[name] += sum(len(part) for part in found)
                    page = re.sub(pattern, b"", page, flags=re.DOTALL)
    return weight


def summary(name: str, pages: list[int], files: int, total: int) -> str:
    """One line: the paper pages' sizes and the site's."""
    pages = sorted(pages)
    return (
        f"{name}: median {statistics.median(pages) / 1000:.1f} KB, "
        f"mean {statistics.mean(pages) / 1000:.1f} KB, p90 {pages[len(pages) * 9 // 10] / 1000:.1f} KB, "
        f"largest {pages[-1] / 1000:.1f} KB; "
        f"site {files:,} files, {total / 1e6:.1f} MB"
    )


def report(site: Path, weight: Weight) -> str:
    """The figures as text."""
    pages = list(weight.pages.values())
    if not pages:
        return f"{site}: no paper pages"
    paper_bytes = sum(pages)
    lines = [
        summary(f"{site}: {len(pages):,} paper pages", pages, weight.files, weight.total),
        f"  paper pages: {paper_bytes / 1e6:.1f} MB ({paper_bytes / weight.total:.0%} of the site); "
        f"gzipped, median {statistics.median(weight.gzipped) / 1000:.1f} KB",
    ]
    shares = [*weight.parts.items(), (REST, paper_bytes - sum(weight.parts.values()))]
    for name, size in shares:
        lines.append(f"  {name:<34} {size / len(pages) / 1000:6.2f} KB a page  {size / paper_bytes:6.1%}")
    return "\n".join(lines)


def file_sizes(folder: Path) -> dict[str, int]:
    """The sizes of the citation files beside a paper page, by extension."""
    return {ext: (folder / f"cite.{ext}").stat().st_size for ext in ("bib", "ris", "json")}


def bibtex_in_page(weight: Weight, cited: dict[Path, dict[str, int]]) -> str:
    """The BibTeX download as a data: URL, RIS and CSL-JSON as files."""
    encoded = {folder: 4 * -(-sizes["bib"] // 3) for folder, sizes in cited.items()}  # base64
    growth = {folder: BIBTEX_DATA_URL + size - len("cite.bib") for folder, size in encoded.items()}
    pages = [size + growth[folder] for folder, size in weight.pages.items()]
    total = weight.total + sum(growth.values()) - sum(sizes["bib"] for sizes in cited.values())
    return summary("  BibTeX as data:, RIS and CSL files", pages, weight.files - len(cited), total)


def scripted(site: Path, weight: Weight, cited: dict[Path, dict[str, int]]) -> str:
    """A script making the downloads from the page; bundles per author and subject without it."""
    growth = {}
    for folder in cited:
        (item,) = json.loads((folder / "cite.json").read_bytes())
        abstract = item.get("abstract")
        member = f',"abstract":{json.dumps(abstract, ensure_ascii=False)}' if abstract else ""
        growth[folder] = len(member.encode())
    pages = [size + growth[folder] for folder, size in weight.pages.items()]
    papers = json.loads((site / "data/papers.json").read_bytes())["papers"]
    authors = json.loads((site / "data/authors.json").read_bytes())["authors"]
    folder_of = {paper["id"]: (site / paper["page"]).parent for paper in papers}
    groups = [author["papers"] for author in authors]
    groups += [
        [paper["id"] for paper in papers if subject in paper["subjects"]]
        for subject in sorted({s for paper in papers for s in paper["subjects"]})
    ]
    bundled = [cited[folder_of[key]] for group in groups for key in group]
    bundles = sum(sizes["ris"] + sizes["json"] for sizes in bundled)
    files = weight.files - 3 * len(cited) + 2 * len(groups)
    cite_files = sum(sum(sizes.values()) for sizes in cited.values())
    total = weight.total + sum(growth.values()) - cite_files + bundles
    return summary("  script, bundles without JavaScript", pages, files, total)


def alternatives(site: Path, weight: Weight) -> str:
    """The two other ways of offering the citation files, worked out from this site's."""
    cited = {folder: file_sizes(folder) for folder in weight.pages}
    return "\n".join([bibtex_in_page(weight, cited), scripted(site, weight, cited)])


def main() -> None:
    """Print the figures of each site."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sites", nargs="+", type=Path)
    for site in parser.parse_args().sites:
        weight = measure(site)
        print(report(site, weight))
        if weight.pages and (next(iter(weight.pages)) / "cite.ris").exists():
            print(alternatives(site, weight))


if __name__ == "__main__":
    main()

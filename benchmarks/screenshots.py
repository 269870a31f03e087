"""Full-page screenshots of the pages researchers scan, at 1280x800 and 390x844, with layout figures.

    python benchmarks/screenshots.py SITE_DIR OUT_DIR [--pages home author paper subject]
                                     [--page KIND=URLPATH ...] [--max-height 6000]

Writes OUT_DIR/<kind>-<width>.png for each page kind: `home`; `author`, the author with the
most papers; `paper`, the paper with the most TeX formulas in its title and abstract; `subject`,
the subject with the most papers (all found from the site's `data/*.json`; `--page` names a
page instead, e.g. `--page paper=papers/2006/x/index.html`). Screenshots are clipped to
`--max-height` CSS pixels. Prints, per page and width, the page's height, the y of its first
paper row (`ol.rows > li`) and the median height of its paper rows: figures, not assertions.
Needs Debian's Chromium at /usr/bin/chromium (Playwright, never a downloaded browser).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scholarsite.inputs.unicode import normalise  # noqa: E402
from scholarsite.model import urls  # noqa: E402
from scholarsite.model.identity import slug_for  # noqa: E402
from tools.qa.browser import open_browser  # noqa: E402
from tools.qa.server import serve  # noqa: E402

KINDS = ("home", "author", "paper", "subject")
VIEWPORTS = ((1280, 800), (390, 844))
MAX_HEIGHT = 6000
FORMULA = re.compile(r"\$\$.+?\$\$|\$.+?\$|\\\(.+?\\\)|\\\[.+?\\\]", re.DOTALL)
ROWS_JS = """() => {
  const rows = [...document.querySelectorAll('ol.rows > li')].map(r => r.getBoundingClientRect());
  return {
    height: document.documentElement.scrollHeight,
    first: rows.length ? rows[0].top + window.scrollY : null,
    rows: rows.map(r => r.height),
  };
}"""


def load(site: Path, name: str) -> list[dict]:
    """The records of one of the site's data files (`authors`, `papers`)."""
    return json.loads((site / "data" / f"{name}.json").read_text(encoding="utf-8"))[name]


def largest_author(site: Path) -> str:
    """The page of the author with the most papers (ties: the first id)."""
    authors = sorted(load(site, "authors"), key=lambda a: (-len(a["papers"]), a["id"]))
    return authors[0]["page"]


def most_formulas(site: Path) -> str:
    """The page of the paper whose title and abstract hold the most TeX formulas."""

    def formulas(paper: dict) -> int:
        return len(FORMULA.findall(paper["title"])) + len(FORMULA.findall(paper.get("abstract") or ""))

    papers = sorted(load(site, "papers"), key=lambda p: (-formulas(p), p["id"]))
    return papers[0]["page"]


def largest_subject(site: Path) -> str:
    """The page of the subject with the most papers (ties: the first code)."""
    counts = Counter(code for paper in load(site, "papers") for code in paper["subjects"])
    code = min(counts, key=lambda c: (-counts[c], c))
    return urls.subject(slug_for(normalise(code)))


def default_pages(site: Path, kinds: list[str]) -> dict[str, str]:
    """The file (from the site's root) of each page kind asked for."""
    finders = {
        "home": lambda: urls.HOME,
        "author": lambda: largest_author(site),
        "paper": lambda: most_formulas(site),
        "subject": lambda: largest_subject(site),
    }
    return {kind: finders[kind]() for kind in kinds}


def shoot(site: Path, out: Path, pages: dict[str, str], max_height: int) -> None:
    """Screenshot every page at both widths into `out`; print its layout figures."""
    out.mkdir(parents=True, exist_ok=True)
    with serve(site, "/") as base, open_browser() as browser:
        tab = browser.new_page()
        for kind, path in pages.items():
            for width, height in VIEWPORTS:
                tab.set_viewport_size({"width": width, "height": height})
                response = tab.goto(base + path, wait_until="load")
                if response is None or not response.ok:
                    sys.exit(f"cannot load {path}: {response.status if response else 'no response'}")
                tab.evaluate("() => document.fonts.ready.then(() => true)")
                figures = tab.evaluate(ROWS_JS)
                clip = {"x": 0, "y": 0, "width": width, "height": min(figures["height"], max_height)}
                tab.screenshot(path=out / f"{kind}-{width}.png", full_page=True, clip=clip)
                report(kind, path, width, figures)


def report(kind: str, path: str, width: int, figures: dict) -> None:
    """One line of layout figures for a page at one width."""
    rows = figures["rows"]
    first = "none" if figures["first"] is None else f"{figures['first']:.0f}"
    median = f"{statistics.median(rows):.0f}" if rows else "-"
    print(
        f"{kind:8} {width:5} px  page {figures['height']:6} px  first paper at y={first:>5}"
        f"  {len(rows):4} rows, median {median} px a row  /{path}"
    )


def main() -> None:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--pages", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--page", action="append", default=[], metavar="KIND=URLPATH")
    parser.add_argument("--max-height", type=int, default=MAX_HEIGHT)
    args = parser.parse_args()
    chosen = dict(item.split("=", 1) for item in args.page)
    unknown = set(chosen) - set(KINDS)
    if unknown:
        parser.error(f"unknown page kind {sorted(unknown)}; choose from {', '.join(KINDS)}")
    kinds = [kind for kind in args.pages if kind not in chosen]
    pages = {**default_pages(args.site, kinds), **chosen}
    shoot(args.site, args.out, {kind: pages[kind] for kind in KINDS if kind in pages}, args.max_height)


if __name__ == "__main__":
    main()

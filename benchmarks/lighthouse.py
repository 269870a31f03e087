"""Lighthouse scores for one page per page kind of a built site (a report, not a gate).

Usage: python benchmarks/lighthouse.py SITE_DIR [--base-path /scholarsite/] [--pages URLPATH ...]
Needs the tools from `bash .ci/install-qa.sh`. Takes about 15 s per page.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from scholarsite.qa.browser import CHROMIUM_FLAGS
from scholarsite.qa.core import chromium, node_tool
from scholarsite.qa.pages import page_url, resolve_pages
from scholarsite.qa.server import serve

CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
TIMEOUT = 180


def lighthouse_scores(url: str) -> dict[str, int | None]:
    """Run Lighthouse on one URL; scores 0-100 per category (None if it did not finish)."""
    env = {**os.environ, "CHROME_PATH": str(chromium())}
    command = [str(node_tool(".bin/lighthouse")), url, "--output=json", "--quiet",
               f"--chrome-flags={' '.join(CHROMIUM_FLAGS)}"]
    proc = subprocess.run(command, check=False, capture_output=True, text=True, env=env,
                          timeout=TIMEOUT)
    try:
        categories = json.loads(proc.stdout)["categories"]
    except (json.JSONDecodeError, KeyError):
        print(f"lighthouse failed on {url}: {proc.stderr.strip()[-300:]}", file=sys.stderr)
        return dict.fromkeys(CATEGORIES)
    return {name: _percent(categories.get(name, {}).get("score")) for name in CATEGORIES}


def _percent(score: float | None) -> int | None:
    """Lighthouse's 0-1 score as a whole percentage."""
    return None if score is None else round(score * 100)


def format_table(rows: list[tuple[str, dict[str, int | None]]]) -> str:
    """Pages down, categories across."""
    width = max([len("page"), *(len(page) for page, _ in rows)])
    lines = [f"{'page':<{width}}  " + "  ".join(f"{c:>14}" for c in CATEGORIES)]
    for page, scores in rows:
        cells = ("-" if scores[c] is None else str(scores[c]) for c in CATEGORIES)
        lines.append(f"{page:<{width}}  " + "  ".join(f"{cell:>14}" for cell in cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Serve the site under its base path and score each sampled page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site_dir", type=Path)
    parser.add_argument("--base-path", default="/scholarsite/")
    parser.add_argument("--pages", nargs="+", metavar="URLPATH",
                        help="pages to score (default: one per page kind)")
    args = parser.parse_args(argv)
    rels = resolve_pages(args.site_dir, args.pages, args.base_path)
    with serve(args.site_dir, args.base_path) as url:
        rows = [(rel, lighthouse_scores(page_url(url, rel))) for rel in rels]
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())

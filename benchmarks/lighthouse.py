"""Lighthouse scores for one page per page kind of a built site (a report, not a gate).

Usage: python -m benchmarks.lighthouse SITE_DIR [--base-path /scholarsite/] [--pages URLPATH ...]
                                        [--details] [--json-dir DIR]
--details prints, per page, the audits that did not pass (id, score, title); --json-dir keeps
each page's full Lighthouse JSON report.
Needs the tools from `bash .ci/install-qa.sh`. Takes about 15 s per page.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from tools.qa.browser import CHROMIUM_FLAGS
from tools.qa.core import chromium, node_tool
from tools.qa.pages import page_url, resolve_pages
from tools.qa.server import serve

CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
TIMEOUT = 180


def lighthouse_report(url: str) -> dict | None:
    """Run Lighthouse on one URL; its JSON report (None if it did not finish)."""
    env = {**os.environ, "CHROME_PATH": str(chromium())}
    command = [
        str(node_tool(".bin/lighthouse")),
        url,
        "--output=json",
        "--quiet",
        f"--chrome-flags={' '.join(CHROMIUM_FLAGS)}",
    ]
    proc = subprocess.run(command, check=False, capture_output=True, text=True, env=env, timeout=TIMEOUT)
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        report = None
    if not isinstance(report, dict) or "categories" not in report:
        print(f"lighthouse failed on {url}: {proc.stderr.strip()[-300:]}", file=sys.stderr)
        return None
    return report


def category_scores(report: dict | None) -> dict[str, int | None]:
    """Scores 0-100 per category (None where the run or the category did not finish)."""
    if report is None:
        return dict.fromkeys(CATEGORIES)
    categories = report["categories"]
    return {name: _percent(categories.get(name, {}).get("score")) for name in CATEGORIES}


def failing_audits(report: dict | None) -> list[tuple[str, str, str, str]]:
    """(category, audit id, score, title) of each audit that did not pass, category by category.

    Skipped: audits without a score or not applicable, and unweighted performance hints
    ("metricSavings") that Lighthouse itself shows as passed (score 0.9 or more).
    """
    if report is None:
        return []
    audits = report.get("audits", {})
    failing = []
    for name in CATEGORIES:
        for ref in report["categories"].get(name, {}).get("auditRefs", []):
            audit = audits.get(ref["id"], {})
            score = audit.get("score")
            mode = audit.get("scoreDisplayMode")
            if score is None or score >= 1 or mode in ("notApplicable", "manual", "informative"):
                continue
            if mode == "metricSavings" and ref.get("weight", 0) == 0 and score >= 0.9:
                continue
            value = audit.get("displayValue", "")
            title = audit.get("title", "") + (f" ({value})" if value else "")
            failing.append((name, ref["id"], f"{score:.2f}", title))
    return failing


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
    parser.add_argument(
        "--pages", nargs="+", metavar="URLPATH", help="pages to score (default: one per page kind)"
    )
    parser.add_argument(
        "--details", action="store_true", help="print the audits that did not pass on each page"
    )
    parser.add_argument("--json-dir", type=Path, help="keep each page's JSON report here")
    args = parser.parse_args(argv)
    rels = resolve_pages(args.site_dir, args.pages, args.base_path)
    reports = []
    with serve(args.site_dir, args.base_path) as url:
        for rel in rels:
            report = lighthouse_report(page_url(url, rel))
            reports.append((rel, report))
            if args.json_dir and report is not None:
                args.json_dir.mkdir(parents=True, exist_ok=True)
                name = rel.removesuffix(".html").replace("/", "_") + ".json"
                (args.json_dir / name).write_text(json.dumps(report), encoding="utf-8")
    print(format_table([(rel, category_scores(report)) for rel, report in reports]))
    if args.details:
        for rel, report in reports:
            failing = failing_audits(report)
            print(f"\n{rel}:" + ("" if failing else " no failing audits"))
            for category, audit_id, score, title in failing:
                print(f"  {category:<14} {score}  {audit_id}: {title}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

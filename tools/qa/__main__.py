"""Command line: python -m tools.qa SITE_DIR [--base-path P] [--screenshots DIR] [--pages]."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .browser import DEFAULT_SCREENSHOTS
from .runner import format_report, run_all


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The gate's command-line options."""
    parser = argparse.ArgumentParser(
        prog="python -m tools.qa", description="Run every QA check over a built site."
    )
    parser.add_argument("site_dir", type=Path, help="the built site folder")
    parser.add_argument(
        "--base-path",
        default="/scholarsite/",
        help="URL sub-path the site is served under (default /scholarsite/)",
    )
    parser.add_argument(
        "--screenshots",
        type=Path,
        default=DEFAULT_SCREENSHOTS,
        help=f"folder for layout screenshots (default {DEFAULT_SCREENSHOTS}/)",
    )
    parser.add_argument(
        "--pages",
        nargs="+",
        metavar="URLPATH",
        help="pages for the browser checks (default: one per page kind, and the pages with the most "
        "formulas and the longest lists)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="list every problem")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the gate; exit status 0 only if every check passed."""
    args = parse_args(argv)
    if not args.site_dir.is_dir():
        print(f"qa: no such site folder: {args.site_dir}", file=sys.stderr)
        return 2
    results = run_all(args.site_dir, args.base_path, args.pages, args.screenshots)
    print(format_report(results, args.verbose))
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Run every check over a built site and format the short report."""

from __future__ import annotations

import sys
import time
import traceback
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from .browser import DEFAULT_SCREENSHOTS, check_accessibility, check_layout, open_browser
from .core import CheckResult, ToolMissingError
from .links import check_links
from .markup import check_fragments, check_html, check_jsonld, check_root_relative
from .pages import resolve_pages
from .server import serve
from .xmlfiles import check_feeds, check_sitemap

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext

SHOWN_PROBLEMS = 3
PROBLEM_WIDTH = 160


def _timed(name: str, check: Callable[[], CheckResult]) -> CheckResult:
    """Run one check, timing it; a missing tool or a crash becomes a failed result."""
    start = time.monotonic()
    try:
        result = check()
    except ToolMissingError as exc:
        result = CheckResult(name, [str(exc)])
    except Exception as exc:  # noqa: BLE001 - one crashed check must not hide the others
        traceback.print_exc(file=sys.stderr)
        result = CheckResult(name, [f"check crashed: {exc!r}"])
    result.seconds = time.monotonic() - start
    return result


def _browser_checks(
    site: Path, pages: list[str], base_path: str, url: str, screenshots: Path
) -> list[CheckResult]:
    """Accessibility and layout sharing one browser, opened lazily (if missing, both fail)."""
    with ExitStack() as stack:
        shared: list[BrowserContext] = []

        def browser() -> BrowserContext:
            if not shared:
                shared.append(stack.enter_context(open_browser()))
            return shared[0]

        return [
            _timed(
                "a11y", lambda: check_accessibility(site, pages, base_path, base_url=url, browser=browser())
            ),
            _timed(
                "layout",
                lambda: check_layout(
                    site, pages, base_path, screenshots=screenshots, base_url=url, browser=browser()
                ),
            ),
        ]


def run_all(
    site_dir: Path,
    base_path: str = "/scholarsite/",
    pages: Iterable[str] | None = None,
    screenshots: Path = DEFAULT_SCREENSHOTS,
) -> list[CheckResult]:
    """Run every check; the subprocess checks run in threads while the browser checks run.

    The link crawl gets a server of its own, so that its burst of requests does not hold up
    the browser's page loads.
    """
    site = Path(site_dir)
    sample = resolve_pages(site, pages, base_path)
    with serve(site, base_path) as url, ThreadPoolExecutor(max_workers=2) as pool:
        background = [
            pool.submit(_timed, "html", lambda: check_html(site)),
            pool.submit(_timed, "links", lambda: check_links(site, base_path)),
        ]
        browser_results = _browser_checks(site, sample, base_path, url, screenshots)
        results = [future.result() for future in background]
    results += [
        _timed("anchors", lambda: check_fragments(site, base_path)),
        _timed("paths", lambda: check_root_relative(site)),
    ]
    results += browser_results
    results += [
        _timed("sitemap", lambda: check_sitemap(site)),
        _timed("jsonld", lambda: check_jsonld(site)),
        _timed("feeds", lambda: check_feeds(site)),
    ]
    return results


def _clip(text: str) -> str:
    """One problem, shortened to fit a report line."""
    return text if len(text) <= PROBLEM_WIDTH else text[: PROBLEM_WIDTH - 1] + "…"


def format_report(results: list[CheckResult], verbose: bool = False) -> str:
    """One line per check (name, ok/FAIL, problem count, first problems) and a summary."""
    lines = []
    for r in results:
        line = (
            f"{r.name:<8} {'ok' if r.ok else 'FAIL':<4} {len(r.problems):>4} problems"
            f"  ({r.checked} checked, {r.seconds:.1f}s)"
        )
        shown = r.problems if verbose else r.problems[:SHOWN_PROBLEMS]
        if shown:
            more = len(r.problems) - len(shown)
            line += ": " + " | ".join(_clip(p) for p in shown)
            line += f" | +{more} more" if more else ""
        lines.append(line)
    failed = [r.name for r in results if not r.ok]
    lines.append(
        f"qa: {len(failed)} of {len(results)} checks FAILED ({', '.join(failed)})"
        if failed
        else f"qa: all {len(results)} checks ok"
    )
    return "\n".join(lines)

"""The preview's build: the steps of `pipeline.build`, written in two syncs so browsers reload
as soon as the pages are in place, before the search index (as long again) is made.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path

from scholarsite import shortcut, write
from scholarsite.errors import Diagnostic
from scholarsite.inputs.config import Overrides
from scholarsite.outputs.registry import Output
from scholarsite.outputs.site import in_search, site_outputs
from scholarsite.pipeline import Caches, Ready, prepare, quiet, reported_with, sync_outputs
from scholarsite.write.report import BuildResult

Shown = Callable[[write.SyncReport, Iterable[Diagnostic]], None]  # pages in place: reload


def not_search(path: str) -> bool:
    """Whether a site path is outside the search bundles."""
    return not in_search(path)


def build(
    root: Path, caches: Caches, shown: Shown, overrides: Overrides, opened: str | None = None
) -> BuildResult:
    """Build the project at `root` into `root/site`, calling `shown` when pages are in place:
    first when the page at site path `opened` (the one the browser shows) is, if it changed,
    then when all are."""
    started = time.perf_counter()
    site_dir = root / "site"
    looked = shortcut.look(root, site_dir, overrides)
    if looked.unchanged is not None:
        result = shortcut.skipped(looked.unchanged, False, started)
        shown(result.report, result.diagnostics)
        return result
    ready = prepare(root, site_dir, looked.fingerprint, False, overrides, caches, None, quiet)
    search = ready.search()
    with reported_with(ready.diagnostics):
        pages = pages_shown(ready, shown, opened)
        found = sync_outputs(ready, search, quiet, in_search, "search", ready.fingerprint)
    ready.finish()
    return BuildResult(pages.merged(found), time.perf_counter() - started, ready.diagnostics)


def pages_shown(ready: Ready, shown: Shown, opened: str | None = None) -> write.SyncReport:
    """Sync the pages, the one at `opened` first, showing each sync that wrote something (and
    the last one always)."""
    planned = list(site_outputs(ready.data))
    if opened:
        first = [item for item in planned if isinstance(item, Output) and item.path == opened]
        report = sync_outputs(ready, first, quiet, lambda path: path == opened, "page")
        if report.written:
            shown(report, ready.diagnostics)
    pages = sync_outputs(ready, planned, quiet, not_search, "pages")
    shown(pages, ready.diagnostics)
    return pages

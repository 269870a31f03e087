"""Write outputs into ``site/``: the only code that changes that folder.

A sync (`sync`):

1. reads the manifest and lists site/ (names only, never file contents: `manifest`), or takes
   the listing a survey begun earlier made (`survey`);
2. skips every output whose key is unchanged and whose file is still there: it is neither
   produced, nor read back, nor written (`switch.plan_of`);
3. produces the others (in worker processes when there are many) into a staging folder
   inside site/; a produced file whose bytes equal what is there is dropped (`produce`);
4. if any output failed, removes the staging folder and raises: site/ is exactly as it was;
5. otherwise moves the staged files into place (each ``os.replace`` is atomic), removes the
   files it owned and no longer makes, and writes the manifest (`switch`).

Files a person placed in site/ ("foreign" files) are never touched, only reported. Files are
not fsynced: at 100,000 files an fsync each would dominate the build, and a rename already
protects against a killed process.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Collection, Iterable
from concurrent.futures import Future
from pathlib import Path

from scholarsite.errors import BuildError, Diagnostic
from scholarsite.inputs.store import file_mode
from scholarsite.outputs.registry import (
    JOURNAL,
    MANIFEST,
    STAGING,
    STATS,
    TMP_PREFIX,
    Bundle,
    Produced,
    check_path,
)
from scholarsite.write import survey
from scholarsite.write.manifest import (
    CarriedLost,
    CorruptManifest,
    Disk,
    ForeignFileConflict,
    WriteConflict,
    ancestors,
    inventory,
    read_manifest,
    recorded_inputs,
    scan,
    unchanged,
)
from scholarsite.write.produce import (
    NOTHING_HANDED,
    Handover,
    Job,
    Progress,
    default_workers,
    distinct,
    produce_all,
    start_bundles,
)
from scholarsite.write.report import SyncReport
from scholarsite.write.survey import Survey
from scholarsite.write.switch import Scope, Sync, plan_of, replay

__all__ = [
    "JOURNAL",
    "MANIFEST",
    "STAGING",
    "STATS",
    "TMP_PREFIX",
    "CarriedLost",
    "CorruptManifest",
    "ForeignFileConflict",
    "Handover",
    "Scope",
    "SyncReport",
    "WriteConflict",
    "check_path",
    "default_workers",
    "inventory",
    "recorded_inputs",
    "rehearse",
    "replay",
    "start_bundles",
    "sync",
    "unchanged",
]


def validate(items: list[Produced]) -> None:
    """ValueError for an unsafe path, or a path that is also another output's folder."""
    paths = [item.folder + "/x" if isinstance(item, Bundle) else item.path for item in items]
    for path in paths:
        check_path(path)
    folders = {folder for path in paths for folder in ancestors(path)}
    for path in paths:
        if path in folders:
            raise ValueError(f"invalid output path {path!r}: also a folder of another output")


def sync(
    items: Iterable[Produced],
    site_dir: Path,
    *,
    workers: int = 1,
    scope: Scope | None = None,
    progress: Progress = lambda done, total: None,
    inputs: str | None = None,
    only: Collection[str] | None = None,
    carried: Collection[str] = frozenset(),
    surveyed: Future[Survey | None] | Survey | None = None,
    handover: Handover = NOTHING_HANDED,
    leave: Callable[[Survey], None] | None = None,
) -> SyncReport:
    """Make ``site_dir`` hold exactly ``items`` (plus untouched foreign files).

    With ``scope``, only owned paths for which it is true are considered: the rest of the
    manifest and of the site is left alone (the preview syncs the search index on its own).
    ``inputs`` is recorded in the manifest as the fingerprint of what the site now holds;
    None (a partial sync) keeps the recorded one if nothing changed and clears it otherwise.
    ``only`` (a few known paths, such as the page the preview shows first) is a scope whose
    paths are looked at one by one instead of listing the whole site. ``carried`` are owned
    paths kept as they are without being planned (the pages a change did not touch): out of the
    scope, but CarriedLost, before anything is written, when one of them is not intact.
    ``surveyed``: a survey of the site begun earlier (`survey.start`), or the listing a sync
    left (`leave`: given it once the sync has switched), used if still true.
    ``handover``: what the producing workers make besides outputs that the caller keeps.
    """
    listed = list(items)
    validate(listed)
    site_dir.mkdir(parents=True, exist_ok=True)
    root = str(site_dir.resolve())
    lock = os.open(root, os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one sync per site at a time
        scope = only.__contains__ if only is not None else scope
        surveyed_now = survey.taken(surveyed)
        sync = Sync(root, scope or (lambda path: True), inputs, only, carried, surveyed_now, handover, leave)
        return sync.run(listed, workers, progress)
    finally:
        os.close(lock)


def rehearse(
    items: Iterable[Produced], site_dir: Path, *, workers: int = 1, progress: Progress = lambda d, t: None
) -> list[Diagnostic]:
    """The problems a sync of `items` into `site_dir` would meet, writing nothing anywhere.

    Outputs whose key matches a file the site already holds were produced without problems
    before and are not produced again; search bundles are not made.
    """
    try:
        listed = list(items)
        validate(listed)
        root = str(site_dir)
        previous = read_manifest(root)[0] if site_dir.is_dir() else {}
        disk = scan(root) if previous else Disk()
    except BuildError as exc:
        return list(exc.diagnostics)
    plan = plan_of(listed, previous, disk)
    on_disk = {p: e for p, e in previous.items() if disk.files.get(p) is False}
    return distinct(produce_all(Job(None, plan.todo, on_disk, file_mode()), workers, progress)[1])

"""What site/ holds, surveyed in a process of its own while the build reads and models its inputs.

Listing a site of 100,000 files and checking each file the manifest owns against the stat
record (`manifest.scan`, `repair.damaged`) takes seconds that do not depend on what the build
will write: a one-shot build with a core to spare starts the survey first, and its sync takes
it instead of looking itself, when the site is as it was (`Stamp`: the manifest not rewritten,
no switch pending since). Otherwise the sync looks again, as without a survey. A file changed
by hand in between is found by the next build, as one changed between a sync's own look and
its switch would be.
"""

from __future__ import annotations

import os
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from scholarsite.lifetime import Workers
from scholarsite.outputs.registry import JOURNAL, MANIFEST
from scholarsite.write import repair
from scholarsite.write.manifest import CorruptManifest, Disk, read_manifest, scan

Stamp = tuple[int, int, int, int] | None  # the manifest's inode, size, mtime and ctime (None: none)


@dataclass(frozen=True)
class Survey:
    """A listing of site/ and which of the files the manifest owns were changed there (None:
    not checked, as in the listing a sync leaves for the next: `Sync.switch`)."""

    stamp: Stamp  # of the manifest the survey checked against
    disk: Disk
    damaged: frozenset[str] | None


def stamp_of(root: str) -> Stamp:
    """The manifest's stamp; None when there is none."""
    try:
        st = os.stat(os.path.join(root, MANIFEST))
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def survey(root: str) -> Survey | None:
    """The survey of the site at `root`; None when a switch is pending (the sync replays it
    first) or the manifest cannot be read (the sync says why)."""
    if os.path.lexists(os.path.join(root, JOURNAL)):
        return None
    stamp = stamp_of(root)
    try:
        entries = read_manifest(root)[0]
        disk = scan(root)
    except (OSError, CorruptManifest):
        return None
    if stamp_of(root) != stamp:  # a sync of another process ran meanwhile
        return None
    return Survey(stamp, disk, frozenset(repair.damaged(root, entries, disk.files)))


def start(site_dir: Path) -> Future[Survey | None] | None:
    """The survey of `site_dir`, begun in a process of its own; None when there is no site
    to survey yet."""
    if not (site_dir / MANIFEST).is_file():
        return None
    pool = Workers(1, survey)
    future = pool.submit(str(site_dir.resolve()))
    pool.shutdown(wait=False)  # the process exits once the survey is done
    return future


def taken(future: Future[Survey | None] | Survey | None) -> Survey | None:
    """The survey begun as `future` (None if its process died: the sync looks itself), or
    one given; the sync checks that the site is still as the survey found it (`Stamp`)."""
    if future is None or isinstance(future, Survey):
        return future
    try:
        return future.result()
    except BrokenProcessPool:  # killed, out of memory
        return None

"""The no-change shortcut: a build whose inputs are those of the last build, into the intact
site it made, has nothing to do.

One place for the command line, which takes the shortcut before it imports the build (those
imports cost more than the whole shortcut), and for `pipeline.build`, which the preview uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scholarsite import ownership, write
from scholarsite.errors import Diagnostic
from scholarsite.inputs.freshness import fingerprint_of, read_last_build


@dataclass(frozen=True)
class Look:
    """What the shortcut found: the inputs' fingerprint, and the last build's report and
    diagnostics when there is nothing to do (None: a build is needed)."""

    fingerprint: str
    unchanged: tuple[write.SyncReport, tuple[Diagnostic, ...]] | None


def look(root: Path, site_dir: Path) -> Look:
    """Whether the project at `root` needs building into `site_dir` (an output folder the
    build may not use is refused first, `ownership.claim`)."""
    ownership.claim(site_dir, root)
    fingerprint = fingerprint_of(root)
    diagnostics = read_last_build(root, site_dir, fingerprint)
    report = write.unchanged(site_dir, fingerprint) if diagnostics is not None else None
    if report is None or diagnostics is None:
        return Look(fingerprint, None)
    return Look(fingerprint, (report, tuple(diagnostics)))

"""The no-change shortcut: a build whose inputs are those of the last build, into the intact
site it made, has nothing to do.

One place for the command line, which takes the shortcut before it imports the build (those
imports cost more than the whole shortcut), and for `pipeline.build` and the preview.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from scholarsite import write
from scholarsite.errors import BuildError, Diagnostic, fails
from scholarsite.inputs.config import Overrides
from scholarsite.inputs.freshness import InputFiles, Watched, inputs_today, read_last_build
from scholarsite.inputs.state import BuildState
from scholarsite.write import ownership
from scholarsite.write.report import BuildResult

LastBuild = tuple[write.SyncReport, tuple[Diagnostic, ...]]  # its report and diagnostics


@dataclass(frozen=True)
class Look:
    """What the shortcut found: the inputs' fingerprint and files, and the last build's report
    and diagnostics when there is nothing to do (None: a build is needed)."""

    fingerprint: str
    files: InputFiles
    unchanged: LastBuild | None


def look(
    root: Path,
    site_dir: Path,
    overrides: Overrides,
    state: BuildState | None = None,
    watched: Watched | None = None,
) -> Look:
    """Whether the project at `root` needs building into `site_dir` with the settings given
    (an output folder the build may not use is refused first, `ownership.claim`); `state`: the
    build state open already (a second connection to it waits on the first's locks);
    `watched`: the inputs as a process that builds again knows them."""
    ownership.claim(site_dir, root)
    fingerprint, files = inputs_today(root, overrides, state, watched)
    diagnostics = read_last_build(root, site_dir, fingerprint)
    report = write.unchanged(site_dir, fingerprint) if diagnostics is not None else None
    if report is None or diagnostics is None:
        return Look(fingerprint, files, None)
    return Look(fingerprint, files, (report, tuple(diagnostics)))


def skipped(
    last: tuple[write.SyncReport, tuple[Diagnostic, ...]], strict: bool, started: float
) -> BuildResult:
    """The result of a build with nothing to do: the last build's report and diagnostics
    (BuildError when they fail the build)."""
    report, diagnostics = last
    if fails(diagnostics, strict):
        raise BuildError(diagnostics)
    return BuildResult(report, time.perf_counter() - started, diagnostics)

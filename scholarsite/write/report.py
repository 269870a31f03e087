"""What a sync did, and what a build did (its size included, `SiteSize`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from scholarsite.errors import Diagnostic

MIB = 2**20
NAMED_PARTS = 3  # parts of the site a budget warning names, the largest first


@dataclass(frozen=True)
class SyncReport:
    """What one sync did, as sorted relative POSIX paths (`produced`: the outputs made, written
    or not, because their key changed)."""

    written: tuple[str, ...]
    unchanged: tuple[str, ...]
    removed: tuple[str, ...]
    foreign: tuple[str, ...]
    produced: tuple[str, ...] = ()

    def summary(self, seconds: float) -> str:
        """One line such as "12 written, 310 unchanged, 2 removed in 0.41 s (40 made: their inputs
        changed)": what was made and not written came out as it was."""
        text = (
            f"{len(self.written)} written, {len(self.unchanged)} unchanged, "
            f"{len(self.removed)} removed in {seconds:.2f} s"
        )
        if self.foreign:
            text += f", {len(self.foreign)} not produced by the build"
        if self.produced and len(self.produced) != len(self.written):
            text += f" ({len(self.produced)} made: their inputs changed)"
        return text

    def then(self, later: SyncReport) -> SyncReport:
        """This sync followed by `later`, a sync of the same outputs: what either wrote, removed
        or made; unchanged what neither wrote."""
        either = set(self.written) | set(later.written)
        written = tuple(sorted(either))
        unchanged = tuple(path for path in later.unchanged if path not in either)
        removed = tuple(sorted(set(self.removed) | set(later.removed)))
        produced = tuple(sorted(set(self.produced) | set(later.produced)))
        return SyncReport(written, unchanged, removed, later.foreign, produced)

    def merged(self, other: SyncReport) -> SyncReport:
        """Both reports as one (the preview syncs pages and search separately)."""
        return SyncReport(
            tuple(sorted(self.written + other.written)),
            tuple(sorted(self.unchanged + other.unchanged)),
            tuple(sorted(self.removed + other.removed)),
            tuple(sorted(set(self.foreign) | set(other.foreign))),
            tuple(sorted(self.produced + other.produced)),
        )


@dataclass(frozen=True)
class BuildResult:
    """What a build did: its sync, how long it took, the problems it found."""

    report: SyncReport
    seconds: float
    diagnostics: tuple[Diagnostic, ...]
    size: SiteSize | None = None  # measured after a sync (a build with nothing to do has none)

    def summary(self) -> str:
        """`12 written, 310 unchanged, 2 removed in 0.41 s; site: 12.4 MiB in 1,204 files`."""
        text = self.report.summary(self.seconds)
        return f"{text}; {self.size.summary()}" if self.size else text


@dataclass(frozen=True)
class SiteSize:
    """The published site's bytes and files, and both by part (`part_of`)."""

    bytes: int
    files: int
    part_bytes: Counter[str] = field(default_factory=Counter)
    part_files: Counter[str] = field(default_factory=Counter)

    def summary(self) -> str:
        """`site: 12.4 MiB in 1,204 files`."""
        return f"site: {self.bytes / MIB:,.1f} MiB in {self.files:,} files"

    def largest(self, by: Counter[str]) -> str:
        """The largest parts by `by` (bytes or files), with both figures."""
        return ", ".join(
            f"{part} {self.part_bytes[part] / MIB:,.1f} MiB in {self.part_files[part]:,} files"
            for part, _ in by.most_common(NAMED_PARTS)
        )

"""A sync's plan and its switch: which outputs to make, and moving them into place.

Before anything moves, a journal lists every path about to change, so a build killed
mid-switch is repaired by the next one (`replay`).
"""

from __future__ import annotations

import contextlib
import filecmp
import json
import os
import shutil
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from scholarsite.errors import BuildError, Diagnostic, error
from scholarsite.inputs.jsondata import loads
from scholarsite.inputs.store import file_mode
from scholarsite.outputs.registry import (
    JOURNAL,
    MANIFEST,
    STAGING,
    TMP_PREFIX,
    Bundle,
    Copy,
    Output,
    Produced,
)
from scholarsite.write import repair, survey
from scholarsite.write.manifest import (
    UNRECORDED,
    CarriedLost,
    Disk,
    Entry,
    ForeignFileConflict,
    ancestors,
    look_at,
    manifest_pieces,
    owned_entries,
    parse_manifest,
    read_manifest,
    scan,
)
from scholarsite.write.produce import (
    NOTHING_HANDED,
    Handover,
    Job,
    Made,
    Progress,
    distinct,
    handed_over,
    produce_all,
    produce_bundle,
    same_file,
    write_file,
    write_pieces,
)
from scholarsite.write.report import SyncReport
from scholarsite.write.reread import written
from scholarsite.write.survey import Survey

MIN_FREE_BYTES = 32 * 2**20  # refuse to start writing with less free space than this
Scope = Callable[[str], bool]


@dataclass
class Plan:
    """What a sync decided before producing anything."""

    keys: dict[str, str] = field(default_factory=dict)  # every output path -> key
    todo: list[Output | Copy] = field(default_factory=list)
    bundles: list[Bundle] = field(default_factory=list)
    kept: dict[str, Entry] = field(default_factory=dict)  # unchanged, by key


def plan_of(items: Iterable[Produced], previous: dict[str, Entry], disk: Disk) -> Plan:
    """Split outputs into those whose key still matches a file on disk and the rest."""
    plan = Plan()
    by_bundle: dict[str, list[str]] = {}
    for path, (key, _) in previous.items():
        by_bundle.setdefault(key, []).append(path)
    for item in items:
        if isinstance(item, Bundle):
            owned = [p for p in by_bundle.get(item.key, []) if p.startswith(item.folder + "/")]
            if owned and all(disk.files.get(p) is False for p in owned):
                plan.kept.update({p: previous[p] for p in owned})
                plan.keys.update({p: item.key for p in owned})
            else:
                plan.bundles.append(item)
            continue
        if item.path in plan.keys:
            raise ValueError(f"two outputs for {item.path!r}")
        plan.keys[item.path] = item.key
        old = previous.get(item.path)
        if old is not None and old[0] == item.key and disk.files.get(item.path) is False:
            plan.kept[item.path] = old
        else:
            plan.todo.append(item)
    return plan


class Sync:
    """One sync, run while holding the site lock."""

    def __init__(
        self,
        root: str,
        scope: Scope,
        inputs: str | None,
        only: Collection[str] | None = None,
        carried: Collection[str] = frozenset(),
        surveyed: Survey | None = None,
        handover: Handover = NOTHING_HANDED,
        leave: Callable[[Survey], None] | None = None,
    ):
        self.root = root
        self.leave = leave  # given the listing of site/ once switched (the next sync's to take)
        self.handover = handover  # what the producing workers hand over besides outputs
        self.surveyed = surveyed  # what site/ held, found beforehand (`survey`): used if still so
        self.only = only  # the paths considered, when they are few and known (looked at, not listed)
        self.inputs = inputs
        self.recorded = ""
        self.stage = os.path.join(root, STAGING)
        self.carried = carried  # kept as they are, unplanned (checked intact)
        self.scope = (lambda path: scope(path) and path not in carried) if carried else scope
        self.mode = file_mode()

    def run(self, items: Iterable[Produced], workers: int, progress: Progress) -> SyncReport:
        """Finish a killed build's switch, plan, produce into the staging folder, then switch."""
        replay(self.root)
        if self.only is not None and (report := self.in_place(list(items))) is not None:
            return report
        everything, self.recorded = read_manifest(self.root)
        previous, outside = self.split(everything)
        shutil.rmtree(self.stage, ignore_errors=True)  # a killed build's leftovers
        disk = self.listing()
        bad = self.damaged(previous, disk)  # made again, as if missing
        self.check_carried(everything, disk)
        usable = Disk({p: s for p, s in disk.files.items() if p not in bad}, disk.dirs, disk.temps)
        plan = plan_of(items, previous, usable)
        try:
            on_disk = {p: e for p, e in previous.items() if usable.files.get(p) is False}  # regular files
            if plan.todo or plan.bundles:
                check_free_space(self.root)
            job = Job(self.stage, plan.todo, on_disk, self.mode, self.handover)
            handed = [bundle for bundle in plan.bundles if handed_over(bundle)]
            rest = [bundle for bundle in plan.bundles if bundle not in handed]
            done = self.bundles_made(handed, plan, on_disk)  # not held while the pages are made
            done += produced(job, workers, progress)
            done += self.bundles_made(rest, plan, on_disk)
            return self.switch(plan, done, previous, outside, disk)
        except OSError as exc:  # disk full, read-only, site/ removed under the build
            committed = os.path.exists(os.path.join(self.root, JOURNAL))
            outcome = "partly switched; the next build completes it" if committed else "unchanged"
            raise BuildError([write_failure(exc, f"site/ is {outcome}")]) from None
        finally:
            if not os.path.exists(os.path.join(self.root, JOURNAL)):
                shutil.rmtree(self.stage, ignore_errors=True)

    def bundles_made(self, bundles: list[Bundle], plan: Plan, on_disk: dict[str, Entry]) -> list[Made]:
        """The files of `bundles`, staged (their keys noted in `plan`)."""
        done: list[Made] = []
        for bundle in bundles:
            made = produce_bundle(bundle, self.stage, on_disk, self.mode)
            plan.keys.update({path: bundle.key for path, _, _ in made})
            done += made
        return done

    def in_place(self, items: list[Produced]) -> SyncReport | None:
        """The few `only` pages written over where they are, each by a rename of its own, when
        every one is a page the manifest owns and a regular file in site/ (None otherwise: a
        whole sync decides). Their entries wait in `UNRECORDED` for the next sync of this
        process to write the manifest; a process ended before then leaves files that do not
        match the manifest, which the next build finds and makes again (`repair.damaged`)."""
        assert self.only is not None
        owned = owned_entries(self.root, self.only)
        disk = look_at(self.root, self.only)
        pages = [item for item in items if isinstance(item, Output)]
        if (
            disk is None
            or len(pages) != len(items)
            or not {item.path for item in pages} <= disk.files.keys() & owned.keys()
        ):
            return None
        intact = owned.keys() - repair.damaged(self.root, owned, disk.files)
        plan = plan_of(pages, owned, Disk(dict.fromkeys(intact, False)))
        shutil.rmtree(self.stage, ignore_errors=True)
        try:
            job = Job(self.stage, plan.todo, {path: owned[path] for path in intact}, self.mode)
            done = produced(job, 1, lambda done, total: None)
            staged = sorted(path for path, _, changed in done if changed)
            for path in staged:
                move_into_place(os.path.join(self.stage, path), os.path.join(self.root, path))
        except OSError as exc:
            raise BuildError([write_failure(exc, "site/ is unchanged but for the pages written")]) from None
        finally:
            shutil.rmtree(self.stage, ignore_errors=True)
        UNRECORDED.setdefault(self.root, {}).update({path: (plan.keys[path], sha) for path, sha, _ in done})
        unchanged = tuple(sorted(plan.keys.keys() - set(staged)))
        return SyncReport(tuple(staged), unchanged, (), (), tuple(sorted(path for path, _, _ in done)))

    def listing(self) -> Disk:
        """What site/ holds: the survey's listing when there is one and the site is still as it
        found it (the lock held, a pending switch replayed), else looked at now."""
        if self.surveyed is not None and self.surveyed.stamp != survey.stamp_of(self.root):
            self.surveyed = None
        if self.surveyed is not None:
            return self.surveyed.disk
        return (look_at(self.root, self.only) if self.only is not None else None) or scan(self.root)

    def damaged(self, entries: dict[str, Entry], disk: Disk) -> set[str]:
        """The paths of `entries` whose files in site/ were changed since the build wrote them."""
        if self.surveyed is not None and self.surveyed.damaged is not None:
            return {path for path in self.surveyed.damaged if path in entries}
        return repair.damaged(self.root, entries, disk.files)

    def check_carried(self, entries: dict[str, Entry], disk: Disk) -> None:
        """CarriedLost when a carried path is not an intact regular file the manifest owns."""
        kept = {path: entries[path] for path in self.carried if path in entries}
        lost = [path for path in self.carried if path not in kept or disk.files.get(path) is not False]
        lost += self.damaged(kept, disk)
        if lost:
            raise CarriedLost(sorted(lost)[:5])

    def split(self, entries: dict[str, Entry]) -> tuple[dict[str, Entry], dict[str, Entry]]:
        """The manifest's entries in the scope, and the others (a few known paths: taken out
        of a copy, not every path asked about)."""
        if self.only is not None:
            inside, outside = {path: entries[path] for path in self.only if path in entries}, dict(entries)
            for path in inside:
                del outside[path]
            return inside, outside
        inside = {path: entry for path, entry in entries.items() if self.scope(path)}
        return inside, {path: entry for path, entry in entries.items() if path not in inside}

    def switch(
        self,
        plan: Plan,
        done: list[Made],
        previous: dict[str, Entry],
        outside: dict[str, Entry],
        disk: Disk,
    ) -> SyncReport:
        """Commit to the new site with a journal, then carry the journal out (see `replay`)."""
        staged = sorted(path for path, _, changed in done if changed)
        new_paths = set(plan.keys)
        folders = {folder for path in staged for folder in ancestors(path)}  # the others' are folders already
        owned = previous.keys() | outside.keys()
        adopted = self.check_foreign(staged, folders, owned, disk)
        staged = [path for path in staged if path not in adopted]
        stale = sorted(p for p in previous.keys() - new_paths if p in disk.files)
        unowned = [p for p in disk.files if p not in owned and p not in new_paths]
        early = [p for p in stale if p in folders or any(a in new_paths for a in ancestors(p))]
        removed_first = set(early)
        late = [p for p in stale if p not in removed_first]
        final = {**outside, **plan.kept, **{path: (plan.keys[path], sha) for path, sha, _ in done}}
        changed = bool(staged or stale)
        inputs = self.inputs if self.inputs is not None else ("" if changed else self.recorded)
        manifest = partial(manifest_pieces, final, inputs)  # made as it is written (or compared)
        pruned = sorted({*(previous.keys() - new_paths), *disk.temps})
        if changed or disk.temps or not same_file(os.path.join(self.root, MANIFEST), manifest()):
            write_pieces(os.path.join(self.stage, MANIFEST), manifest(), self.mode)
            journal = {"early": [*disk.temps, *early], "moves": staged, "late": late, "prune": pruned}
            temporary = os.path.join(self.root, TMP_PREFIX + JOURNAL)
            write_file(temporary, json.dumps(journal).encode(), self.mode)
            os.replace(temporary, os.path.join(self.root, JOURNAL))  # the commit
            replay(self.root)
        if self.leave is not None and self.only is None:  # a listing of the few paths looked at is not left
            after = settled(self.root, disk, staged, [*early, *late], pruned)
            self.leave(Survey(survey.stamp_of(self.root), after, None))
        written(os.path.join(self.root, MANIFEST), parse_manifest, (final, inputs))
        UNRECORDED.pop(self.root, None)  # `final` holds them
        if self.only is None:  # a few pages (the preview's first): the next sync records them
            repair.remember(self.root, final, staged, previous.keys() - new_paths)
        unchanged = sorted((new_paths | set(self.carried)) - set(staged))  # carried: unchanged too
        foreign = sorted(p for p in unowned if self.scope(p))
        removed = tuple(early + late)
        produced = tuple(sorted(path for path, _, _ in done))
        return SyncReport(tuple(staged), tuple(unchanged), removed, tuple(foreign), produced)

    def check_foreign(
        self, staged: list[str], folders: set[str], owned: Iterable[str], disk: Disk
    ) -> set[str]:
        """Raise before anything moves if a file the build does not own is in the way.

        Returns the hand-placed files that already hold exactly the output: they are adopted.
        """
        owned, adopted = set(owned), set()
        for path in staged:
            if path in disk.files and path not in owned:
                here, staged_copy = os.path.join(self.root, path), os.path.join(self.stage, path)
                if disk.files[path] is False and filecmp.cmp(here, staged_copy, shallow=False):  # in chunks
                    adopted.add(path)
                    continue
                raise ForeignFileConflict(path, "a hand-placed file is where an output goes")
            if path in disk.dirs:
                inside = [p for p in disk.files if p.startswith(path + "/") and p not in owned]
                if inside:
                    raise ForeignFileConflict(inside[0], f"it is inside {path}/, where an output goes")
        for folder in folders:
            if folder in disk.files and folder not in owned:
                kind = "symlink" if disk.files[folder] else "hand-placed file"
                raise ForeignFileConflict(folder, f"a {kind} is where a folder must go")
        return adopted


def settled(root: str, disk: Disk, staged: list[str], removed: list[str], pruned: list[str]) -> Disk:
    """What site/ holds once a switch has moved `staged` in, removed `removed` and the
    leftover temporary files, and pruned the folders of `pruned` left empty (`disk`: what it
    held before)."""
    files = dict(disk.files)
    for path in removed:
        del files[path]
    files.update(dict.fromkeys(staged, False))
    gone = {folder for path in pruned for folder in ancestors(path)}
    gone = {folder for folder in gone if not os.path.isdir(os.path.join(root, folder))}
    dirs = {*disk.dirs, *(folder for path in staged for folder in ancestors(path))} - gone
    return Disk(files, dirs, [])


def produced(job: Job, workers: int, progress: Progress) -> list[Made]:
    """The outputs of `job`, produced into its staging folder; BuildError with every problem
    met."""
    done, problems = produce_all(job, workers, progress)
    if problems:
        raise BuildError(distinct(problems))
    return done


def replay(root: str) -> None:
    """Carry out the journal of a switch, if one is pending (a no-op otherwise).

    A switch first stages every changed file and the new manifest, then writes the journal:
    that is the commit. Replaying it only renames and removes, so it needs no free space, and
    it is idempotent: a build killed while replaying is finished by the next one, which
    replays before anything else. Until then, `unchanged` never reports the site intact.
    """
    try:
        journal = loads(Path(root, JOURNAL).read_bytes())
    except FileNotFoundError:
        return
    stage = os.path.join(root, STAGING)
    for path in journal["early"]:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(root, path))
    for path in journal["moves"]:
        move_into_place(os.path.join(stage, path), os.path.join(root, path))
    for path in journal["late"]:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(root, path))
    prune(root, journal["prune"])
    with contextlib.suppress(FileNotFoundError):
        os.replace(os.path.join(stage, MANIFEST), os.path.join(root, MANIFEST))
    os.unlink(os.path.join(root, JOURNAL))
    shutil.rmtree(stage, ignore_errors=True)


def move_into_place(staged: str, target: str) -> None:
    """Replace `target` with the staged file, unless that was done already (a replay)."""
    if not os.path.lexists(staged):
        return
    if os.path.isdir(target) and not os.path.islink(target):
        shutil.rmtree(target)  # a folder in the way: the switch checked it holds only owned files
    try:
        os.replace(staged, target)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.replace(staged, target)


def check_free_space(root: str) -> None:
    """BuildError when the site's disk has less than MIN_FREE_BYTES free."""
    stats = os.statvfs(root)
    free = stats.f_bavail * stats.f_frsize
    if free < MIN_FREE_BYTES:
        message = f"only {free // 2**20} MiB free on the disk of site/; nothing was written"
        raise BuildError([error("site", 0, message, f"free at least {MIN_FREE_BYTES // 2**20} MiB")])


def write_failure(exc: OSError, outcome: str) -> Diagnostic:
    """A diagnostic for a failed write (disk full, read-only disk, site/ removed meanwhile)."""
    where = f" ({exc.filename})" if exc.filename else ""
    return error("site", 0, f"cannot write the site: {exc.strerror or exc}{where}; {outcome}")


def prune(root: str, paths: Iterable[str]) -> None:
    """Remove the folders of ``paths`` that are now empty, deepest first, never root."""
    folders = {folder for path in paths for folder in ancestors(path)}
    for folder in sorted(folders, key=lambda f: f.count("/"), reverse=True):
        with contextlib.suppress(OSError):  # not empty (or already gone): keep it
            os.rmdir(os.path.join(root, folder))

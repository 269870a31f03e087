"""What the site holds: the manifest of the files the build owns, and a listing of site/.

The manifest (``site/.scholarsite-manifest.json``) records, for every file the build owns,
the key it was made from and the sha256 of its bytes, and the fingerprint of the inputs of
the complete build that made them. Listing site/ reads names only, never file contents.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from scholarsite.inputs.jsondata import loads
from scholarsite.outputs.registry import (
    BOOKKEEPING,
    JOURNAL,
    LEGACY_STATS,
    MANIFEST,
    TMP_PREFIX,
    check_paths,
)
from scholarsite.write import repair
from scholarsite.write.objecttext import object_pieces
from scholarsite.write.report import SyncReport
from scholarsite.write.reread import parsed_once

MANIFEST_FORMAT = 2
TEMPORARY = (TMP_PREFIX + JOURNAL, TMP_PREFIX + LEGACY_STATS)  # the build's, left by a killed build
Entry = tuple[str, str]  # (key, sha256 of the bytes)


class WriteConflict(Exception):
    """The sync would destroy, or write through, something the build does not own."""


class ForeignFileConflict(WriteConflict):
    """A file the build never produced is in the way of one it must write."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        super().__init__(
            f"site/{path}: {reason}; the build will not overwrite "
            "files it did not create; move or delete it first"
        )


class CorruptManifest(WriteConflict):
    """The ownership manifest cannot be trusted, so nothing may be removed."""


class CarriedLost(Exception):
    """Files a sync was to keep unplanned (`carried`) are missing or were changed in site/:
    their outputs must be planned (nothing was written)."""


@dataclass
class Disk:
    """What a listing of site/ found, keyed by relative POSIX path."""

    files: dict[str, bool] = field(default_factory=dict)  # non-folders: path -> is a symlink
    dirs: set[str] = field(default_factory=set)  # real folders, never symlinks
    temps: list[str] = field(default_factory=list)  # leftover temporary files


def ancestors(path: str) -> Iterator[str]:
    """The folder prefixes of ``path``: "a/b/c" gives "a" and "a/b"."""
    index = path.find("/")
    while index != -1:
        yield path[:index]
        index = path.find("/", index + 1)


# By site folder: the files written in place (`Sync.in_place`), not yet in its manifest.
UNRECORDED: dict[str, dict[str, Entry]] = {}


def manifest_pieces(entries: dict[str, Entry], inputs: str) -> Iterator[bytes]:
    """Deterministic manifest content, in pieces (`object_pieces`); `inputs` is the fingerprint
    of a complete build, or ""."""
    rest = json.dumps({"format": MANIFEST_FORMAT, "inputs": inputs}, separators=(",", ":"), sort_keys=True)
    yield b'{"files":'  # "files" sorts first
    yield from object_pieces(entries)
    yield b"," + rest[1:].encode("ascii") + b"\n"


def read_manifest(root: str) -> tuple[dict[str, Entry], str]:
    """The owned paths with their (key, sha), and the inputs fingerprint of the site.

    Format 1 (a plain list of paths) owns its files without keys. A build asks twice (for the
    search bundles, then to sync): the second costs a `stat` (`reread`).
    """
    try:
        entries, inputs = parsed_once(os.path.join(root, MANIFEST), parse_manifest)
    except FileNotFoundError:
        return {}, ""
    if pending := unrecorded(root):  # not a complete build's site until a sync records them
        return {**entries, **pending}, ""
    return dict(entries), inputs


def recorded_inputs(root: str) -> str:
    """The inputs fingerprint the manifest of the site at `root` records ("" for a site not of
    a complete build), without copying its entries."""
    try:
        inputs = parsed_once(os.path.join(root, MANIFEST), parse_manifest)[1]
    except FileNotFoundError:
        return ""
    return "" if unrecorded(root) else inputs


def owned_entries(root: str, paths: Iterable[str]) -> dict[str, Entry]:
    """The manifest's entries for a few `paths` (those it owns), without copying the rest."""
    try:
        entries = parsed_once(os.path.join(root, MANIFEST), parse_manifest)[0]
    except FileNotFoundError:
        return {}
    pending = unrecorded(root)
    return {path: pending.get(path) or entries[path] for path in paths if path in pending or path in entries}


def unrecorded(root: str) -> dict[str, Entry]:
    """The files this process wrote in place into the site at `root` since its manifest was
    last written (`Sync.in_place`): their (key, sha256), which the manifest does not hold yet."""
    return UNRECORDED.get(os.path.realpath(root), {}) if UNRECORDED else {}


def parse_manifest(raw: bytes) -> tuple[dict[str, Entry], str]:
    """The manifest's entries and inputs fingerprint; CorruptManifest when it is damaged.
    Every value's type is checked; an inputs fingerprint that is not a string is no complete
    build's (""). Read by `json`, not orjson: orjson's 50 ms less on a site of 92,000 files
    came with 200 MB more at the peak (a document's parse is held whole before its values
    are made), the largest an edit at 37,537 papers reached."""
    try:
        body = loads(raw)
        files, inputs = body["files"], body.get("inputs", "")
        if isinstance(files, list):
            entries = {path: ("", "") for path in files}
        elif isinstance(files, dict):
            entries = {path: entry_of(value) for path, value in files.items()}
        else:
            raise TypeError("'files' is neither a list nor an object")
        check_paths(entries)
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise CorruptManifest(
            f"site/{MANIFEST} is damaged ({exc}); "
            "delete site/ and rebuild, after saving any hand-placed files"
        ) from exc
    return entries, inputs if isinstance(inputs, str) else ""


def entry_of(value: object) -> Entry:
    """A manifest entry as the manifest holds it, `[key, sha256]`; TypeError for anything else."""
    if type(value) is not list or len(value) != 2 or type(value[0]) is not str or type(value[1]) is not str:
        raise TypeError("an entry is not [key, sha256]")
    return value[0], value[1]


def scan(root: str) -> Disk:
    """Walk site/ with os.scandir (no stat calls), never following symlinks."""
    disk, stack = Disk(), [""]
    while stack:
        folder = stack.pop()
        with os.scandir(f"{root}/{folder}") as it:
            for entry in it:
                rel = f"{folder}/{entry.name}" if folder else entry.name
                if rel in BOOKKEEPING:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    disk.dirs.add(rel)
                    stack.append(rel)
                elif rel in TEMPORARY:  # the build's temporary files here
                    disk.temps.append(rel)
                else:
                    disk.files[rel] = entry.is_symlink()
    return disk


def look_at(root: str, paths: Iterable[str]) -> Disk | None:
    """What `scan` would find at `paths` and their folders, looked up one by one (a sync of the
    page the preview shows first need not list a site of 100,000 files). None when a path is
    anything but a regular file or absent, a folder on the way is not a real folder, or the
    build's temporary files are there: then only the whole listing decides."""
    if any(os.path.lexists(os.path.join(root, name)) for name in TEMPORARY):
        return None
    disk = Disk()
    for path in paths:
        for folder in ancestors(path):  # outermost first
            kind = kind_at(os.path.join(root, folder))
            if kind is None:
                break  # nothing deeper is there
            if not stat.S_ISDIR(kind):
                return None
            disk.dirs.add(folder)
        else:
            kind = kind_at(os.path.join(root, path))
            if kind is not None and not stat.S_ISREG(kind):
                return None
            if kind is not None:
                disk.files[path] = False
    return disk


def kind_at(path: str) -> int | None:
    """The file type bits of what is at `path` (a link itself, not followed); None: nothing."""
    try:
        return os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None


def unchanged(site_dir: Path, inputs: str) -> SyncReport | None:
    """If the site was completely built from inputs with this fingerprint and every file it
    owns is still in place and intact: the report of a sync that has nothing to do. Otherwise None."""
    if not inputs or not (site_dir / MANIFEST).is_file() or (site_dir / JOURNAL).exists():
        return None
    try:
        entries, recorded = read_manifest(str(site_dir))
    except CorruptManifest:
        return None
    if recorded != inputs:
        return None
    disk = scan(str(site_dir))
    if disk.temps or any(disk.files.get(p) is not False for p in entries):
        return None
    if repair.damaged(str(site_dir), entries, disk.files):
        return None
    foreign = tuple(sorted(disk.files.keys() - entries.keys()))
    return SyncReport((), tuple(sorted(entries)), (), foreign)


def inventory(site_dir: Path) -> tuple[list[str], list[str]]:
    """The files the manifest of `site_dir` owns and the files there it does not own (the
    build's bookkeeping left out), sorted; CorruptManifest if it cannot be trusted."""
    entries = read_manifest(str(site_dir))[0]
    disk = scan(str(site_dir))
    return sorted(entries), sorted(disk.files.keys() - entries.keys())

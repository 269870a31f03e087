"""Synchronise rendered outputs into ``site/``: the only code that changes that folder.

The build records the files it owns in ``site/.scholarsite-manifest.json``. A sync
writes only files whose bytes differ, each atomically (temporary file,
``os.replace``), removes files it owned before and no longer produces, and never
touches files a person placed there ("foreign" files), which are only reported.
Before any file is written the manifest is widened to cover the new outputs too, so
a build killed mid-sync never leaves files the next build would mistake as foreign.
Files are not fsynced: the rename already protects against a killed build, and at
100,000 files an fsync each would dominate the build; power-loss durability is left to
the file system (ext4 and others flush a file replaced by rename).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

MANIFEST = ".scholarsite-manifest.json"
TMP_PREFIX = ".tmp-"
_MANIFEST_FORMAT = 1
_WRITERS = 4  # file system calls release the GIL, so overlap a few


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


@dataclass(frozen=True)
class SyncReport:
    """What one sync did, as sorted relative POSIX paths."""

    written: tuple[str, ...]
    unchanged: tuple[str, ...]
    removed: tuple[str, ...]
    foreign: tuple[str, ...]

    def summary(self, seconds: float) -> str:
        """One line such as "12 written, 310 unchanged, 2 removed in 0.41 s"."""
        text = (
            f"{len(self.written)} written, {len(self.unchanged)} unchanged, "
            f"{len(self.removed)} removed in {seconds:.2f} s"
        )
        if self.foreign:
            text += f", {len(self.foreign)} not produced by the build"
        return text


@dataclass
class _Disk:
    """What a scan of site/ found, keyed by relative POSIX path."""

    entries: dict[str, os.DirEntry[str]] = field(default_factory=dict)  # non-folders
    dirs: set[str] = field(default_factory=set)  # real folders, never symlinks
    temps: list[str] = field(default_factory=list)  # leftover temporary files


@dataclass
class _Plan:
    """Every change a sync will make, decided before anything is written."""

    write: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    early: list[str] = field(default_factory=list)  # stale files in the way of outputs
    late: list[str] = field(default_factory=list)  # stale files removed after writing
    clear: list[str] = field(default_factory=list)  # folders where an output goes
    foreign: list[str] = field(default_factory=list)


def _ancestors(path: str) -> Iterator[str]:
    """The folder prefixes of ``path``: "a/b/c" gives "a" and "a/b"."""
    index = path.find("/")
    while index != -1:
        yield path[:index]
        index = path.find("/", index + 1)


def _check_path(path: object) -> None:
    """Raise ValueError unless ``path`` is a safe relative POSIX file path."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"invalid output path {path!r}: must be a non-empty string")
    if path.startswith("/") or "\\" in path or "\0" in path:
        raise ValueError(f"invalid output path {path!r}: must be relative POSIX, without backslashes or NUL")
    wrapped = f"/{path}/"
    if "//" in wrapped or "/./" in wrapped or "/../" in wrapped:
        raise ValueError(f"invalid output path {path!r}: empty, '.' or '..' part")
    if wrapped.startswith(f"/{MANIFEST}/") or path.rpartition("/")[2].startswith(TMP_PREFIX):
        raise ValueError(f"invalid output path {path!r}: name reserved for the build")


def _validate(outputs: Mapping[str, bytes]) -> set[str]:
    """Check every output path and value; return the folders the outputs need."""
    for path, data in outputs.items():
        _check_path(path)
        if not isinstance(data, bytes):
            raise TypeError(f"output {path!r} must be bytes, not {type(data).__name__}")
    folders = {folder for path in outputs for folder in _ancestors(path)}
    for path in outputs:
        if path in folders:
            raise ValueError(f"invalid output path {path!r}: also a folder of another output")
    return folders


def _manifest_bytes(paths: Iterable[str]) -> bytes:
    """Deterministic manifest content for ``paths``."""
    body = {"format": _MANIFEST_FORMAT, "files": sorted(paths)}
    return (json.dumps(body, indent=1, sort_keys=True) + "\n").encode("ascii")


def _read_manifest(root: str) -> tuple[set[str], bytes | None]:
    """The owned paths and raw bytes of the manifest (empty, None when absent)."""
    try:
        raw = Path(root, MANIFEST).read_bytes()
    except FileNotFoundError:
        return set(), None
    try:
        files = json.loads(raw)["files"]
        if not isinstance(files, list):
            raise TypeError("'files' is not a list")
        for path in files:
            _check_path(path)
    except (ValueError, KeyError, TypeError) as exc:
        raise CorruptManifest(
            f"site/{MANIFEST} is damaged ({exc}); delete site/ "
            "and rebuild, after saving any hand-placed files"
        ) from exc
    return set(files), raw


def _scan(root: str) -> _Disk:
    """Walk site/ with os.scandir, never following symlinks."""
    disk, stack = _Disk(), [""]
    while stack:
        folder = stack.pop()
        with os.scandir(f"{root}/{folder}") as it:
            for entry in it:
                rel = f"{folder}/{entry.name}" if folder else entry.name
                if entry.is_dir(follow_symlinks=False):
                    disk.dirs.add(rel)
                    stack.append(rel)
                elif entry.name.startswith(TMP_PREFIX):
                    disk.temps.append(rel)
                elif rel != MANIFEST:
                    disk.entries[rel] = entry
    return disk


def _same(entry: os.DirEntry[str], data: bytes) -> bool:
    """Whether a regular file already holds ``data`` (size first, then bytes)."""
    if not entry.is_file(follow_symlinks=False):
        return False
    if entry.stat(follow_symlinks=False).st_size != len(data):
        return False
    with open(entry.path, "rb") as handle:
        return handle.read() == data


def _plan(outputs: Mapping[str, bytes], folders: set[str], owned: set[str], disk: _Disk) -> _Plan:
    """Decide every change, raising ForeignFileConflict before anything is touched."""
    plan = _Plan()
    for path, data in outputs.items():
        entry = disk.entries.get(path)
        if entry is not None and _same(entry, data):
            plan.unchanged.append(path)  # an identical foreign file is simply adopted
            continue
        if entry is not None and path not in owned:
            raise ForeignFileConflict(path, "a hand-placed file is where an output goes")
        if path in disk.dirs:
            _check_only_owned(path, owned, disk)
            plan.clear.append(path)
        plan.write.append(path)
    for folder in folders:
        if folder in disk.entries and folder not in owned:
            kind = "symlink" if disk.entries[folder].is_symlink() else "hand-placed file"
            raise ForeignFileConflict(folder, f"a {kind} is where a folder must go")
    for path in disk.entries.keys() - outputs.keys():
        if path not in owned:
            plan.foreign.append(path)
        elif path in folders or any(a in outputs for a in _ancestors(path)):
            plan.early.append(path)
        else:
            plan.late.append(path)
    return plan


def _check_only_owned(folder: str, owned: set[str], disk: _Disk) -> None:
    """Raise unless every file inside ``folder`` belongs to the build."""
    prefix = folder + "/"
    for path in disk.entries:
        if path.startswith(prefix) and path not in owned:
            raise ForeignFileConflict(path, f"it is inside {folder}/, where an output goes")


def _write_atomic(root: str, rel: str, data: bytes, mode: int) -> None:
    """Replace ``root/rel`` with ``data`` so readers see old or new bytes, never a mix."""
    path = os.path.join(root, rel)
    parent = os.path.dirname(path)
    os.makedirs(parent, exist_ok=True)
    with tempfile.NamedTemporaryFile(delete=False, dir=parent, prefix=TMP_PREFIX) as tmp:
        try:
            tmp.write(data)
            tmp.flush()
            os.fchmod(tmp.fileno(), mode)
        except BaseException:
            os.unlink(tmp.name)
            raise
    os.replace(tmp.name, path)


def _write_all(root: str, outputs: Mapping[str, bytes], paths: list[str], mode: int) -> None:
    """Write ``paths`` concurrently, stopping at the first failure."""
    with ThreadPoolExecutor(_WRITERS) as pool:
        futures = [pool.submit(_write_atomic, root, p, outputs[p], mode) for p in paths]
        try:
            for future in futures:
                future.result()
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise


def _remove(root: str, paths: Iterable[str]) -> list[str]:
    """Unlink files (symlinks themselves, never their targets); return those removed."""
    removed = []
    for rel in paths:
        try:
            os.unlink(os.path.join(root, rel))
        except FileNotFoundError:
            continue
        removed.append(rel)
    return removed


def _prune(root: str, paths: Iterable[str]) -> None:
    """Remove the folders of ``paths`` that are now empty, deepest first, never root."""
    folders = {folder for path in paths for folder in _ancestors(path)}
    for folder in sorted(folders, key=lambda f: f.count("/"), reverse=True):
        with contextlib.suppress(OSError):  # not empty (or already gone): keep it
            os.rmdir(os.path.join(root, folder))


def _clear_folders(root: str, folders: list[str], disk: _Disk) -> None:
    """Remove emptied folder trees where output files must now go."""
    for folder in folders:
        inner = [d for d in disk.dirs if d == folder or d.startswith(folder + "/")]
        for rel in sorted(inner, key=lambda d: d.count("/"), reverse=True):
            os.rmdir(os.path.join(root, rel))


def _file_mode() -> int:
    """The permission bits a plain ``open()`` would give a new file."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def sync(outputs: Mapping[str, bytes], site_dir: Path) -> SyncReport:
    """Make ``site_dir`` hold exactly ``outputs`` (plus untouched foreign files)."""
    folders = _validate(outputs)
    site_dir.mkdir(parents=True, exist_ok=True)
    root = str(site_dir.resolve())
    lock = os.open(root, os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one sync per site at a time
        return _sync_locked(outputs, folders, root)
    finally:
        os.close(lock)


def _sync_locked(outputs: Mapping[str, bytes], folders: set[str], root: str) -> SyncReport:
    """The body of :func:`sync`, run while holding the site lock."""
    owned, manifest = _read_manifest(root)
    disk = _scan(root)
    plan = _plan(outputs, folders, owned, disk)
    mode = _file_mode()
    widened = owned | outputs.keys()
    if widened != owned or manifest is None:
        manifest = _manifest_bytes(widened)
        _write_atomic(root, MANIFEST, manifest, mode)
    _remove(root, disk.temps)
    removed = _remove(root, plan.early)
    _clear_folders(root, plan.clear, disk)
    _write_all(root, outputs, plan.write, mode)
    removed += _remove(root, plan.late)
    _prune(root, removed + disk.temps)
    final = _manifest_bytes(outputs)
    if final != manifest:
        _write_atomic(root, MANIFEST, final, mode)
    return SyncReport(
        tuple(sorted(plan.write)),
        tuple(sorted(plan.unchanged)),
        tuple(sorted(removed)),
        tuple(sorted(plan.foreign)),
    )

"""Which files of a project may be read: regular files inside the project, nothing else.

A symlink in `seeds/` to `/proc/self/environ` would otherwise publish the build's environment
as an author page. A file whose real path is outside the project (through a symlinked file or
folder), a broken or looping link, and anything that is not a regular file (a pipe, a device)
is refused with an error naming it, and is never opened. Every input file of a project
(`site.yaml`, `sources.yaml`, seeds, content, templates, assets) is read through `read_input`.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, NamedTuple, Protocol, TypeVar

from scholarsite.errors import BuildError, Diagnostic, error

OUTSIDE_HINT = "copy the file into the project instead of linking to it"
NOT_REGULAR = "not a regular file (a pipe, socket or device): refused"
CHUNK = 2**20  # bytes read at a time when a file is hashed
SizeCheck = Callable[[int, str], Diagnostic | None]  # (size in bytes, shown path) -> why it is too large
Taken = TypeVar("Taken", covariant=True)


class Take(Protocol[Taken]):
    """How a file of a folder is taken: read whole (`read_input`) or hashed (`hashed_input`)."""

    def __call__(self, path: Path, root: Path, shown: str, too_large: SizeCheck | None = None) -> Taken: ...


def refusal(path: Path, root: Path, shown: str) -> Diagnostic | None:
    """Why `path` may not be read (shown as `shown`), or None when it is a regular file
    inside `root`. Only the link and its target's metadata are looked at."""
    try:
        real = path.resolve(strict=True)
        mode = real.stat().st_mode
    except (OSError, RuntimeError):
        return error(shown, 0, "a broken or looping symlink: refused")
    if not real.is_relative_to(root.resolve()):
        return error(shown, 0, "links to a file outside the project: refused, it was not read", OUTSIDE_HINT)
    if not stat.S_ISREG(mode):
        return error(shown, 0, NOT_REGULAR)
    return None


def present(path: Path) -> bool:
    """Whether anything is at `path`: a file, a folder, a pipe, or a link (even a broken one)."""
    return os.path.lexists(path)


def read_input(path: Path, root: Path, shown: str, too_large: SizeCheck | None = None) -> bytes:
    """The bytes of the input file `path` (shown in messages as `shown`).

    BuildError with one diagnostic naming it when it is not a regular file inside `root` (it is
    then never opened), or when `too_large(size, shown)` objects to its size (it is then not
    read). It is opened without blocking and checked again once open, so a file swapped for a
    pipe between the check and the read cannot hang the build.
    """
    with opened(path, root, shown, too_large) as file:
        return file.read()


@contextmanager
def opened(path: Path, root: Path, shown: str, too_large: SizeCheck | None = None) -> Iterator[BinaryIO]:
    """The input file `path` open for reading, once `read_input`'s checks passed."""
    if refused := refusal(path, root, shown):
        raise BuildError([refused])
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    with os.fdopen(handle, "rb") as file:
        status = os.fstat(file.fileno())
        problem = None if stat.S_ISREG(status.st_mode) else error(shown, 0, NOT_REGULAR)
        problem = problem or (too_large(status.st_size, shown) if too_large else None)
        if problem:
            raise BuildError([problem])
        yield file


READ_HIDDEN = ("static", ".well-known")  # the one hidden folder a build reads (security.txt, ...)


def hidden(name: str) -> bool:
    """Whether a file or folder name is hidden: a build does not read it (nor below it)."""
    return name.startswith(".")


def read_by_build(root: Path, path: str) -> bool:
    """Whether a build reads `path` when it is in one of the project's inputs: no part of it is
    hidden, `static/.well-known/` excepted. The preview watches exactly these files, so an edit
    to any file the build publishes (`static/notes~`, `static/data.swp`) rebuilds it."""
    try:
        parts = Path(path).relative_to(root).parts
    except ValueError:
        return False
    if parts[:2] == READ_HIDDEN:
        parts = parts[2:]
    return not any(hidden(part) for part in parts)


def visible_files(folder: Path) -> Iterator[Path]:
    """Every file under `folder` except hidden ones, sorted; a symlinked folder is listed
    as an entry (for `refusal` to refuse), never walked into."""
    yield from map(Path, visible_paths(str(folder)))


def visible_paths(folder: str) -> list[str]:
    """`visible_files` as paths in text (a collection's files without a `Path` each)."""
    found = []
    for current, folders, files in os.walk(folder):
        folders[:] = [name for name in folders if not hidden(name)]
        linked = [name for name in folders if os.path.islink(os.path.join(current, name))]  # not walked
        found += [os.path.join(current, name) for name in files + linked if not hidden(name)]
    return sorted(found, key=lambda path: path.split(os.sep))  # as their `Path.parts` sort


def read_files(
    root: Path, folder: str, too_large: SizeCheck | None = None, take: Take[Taken] = read_input
) -> tuple[dict[str, Taken], list[Diagnostic]]:
    """What `take` (by default `read_input`: the bytes) gives for each visible file of the
    project folder `root/folder` (none if it is missing), by path inside it; and an error for
    each one it refuses."""
    base = root / folder
    found: dict[str, Taken] = {}
    problems: list[Diagnostic] = []
    for path in visible_files(base) if base.is_dir() else ():
        rel = path.relative_to(base).as_posix()
        try:
            found[rel] = take(path, root, f"{folder}/{rel}", too_large)
        except BuildError as exc:
            problems += exc.diagnostics
    return found, problems


class Hashed(NamedTuple):
    """An input file known by its sha256, read in chunks and never held whole (static/'s)."""

    path: Path
    sha256: str


def hashed_input(path: Path, root: Path, shown: str, too_large: SizeCheck | None = None) -> Hashed:
    """The input file `path` with the sha256 of its bytes, read in chunks through the checks
    of `read_input`."""
    summary = hashlib.sha256()
    with opened(path, root, shown, too_large) as file:
        while block := file.read(CHUNK):
            summary.update(block)
    return Hashed(path, summary.hexdigest())


def fingerprint_digest(path: Path, root: Path) -> bytes:
    """What a fingerprint of the inputs counts for `path`: the sha256 of its bytes, read in
    chunks (a video in static/ is never held whole), if it may be read; otherwise of where it
    points (a refused file is never opened)."""
    summary = hashlib.sha256()
    try:
        with opened(path, root, "") as file:
            while block := file.read(CHUNK):
                summary.update(block)
    except BuildError:
        return hashlib.sha256(
            b"refused:" + os.fsencode(os.readlink(path) if path.is_symlink() else path.name)
        ).digest()
    return summary.digest()

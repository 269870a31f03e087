"""Which files of a project may be read: regular files inside the project, nothing else.

A symlink in `seeds/` to `/proc/self/environ` would otherwise publish the build's environment
as an author page. A file whose real path is outside the project (through a symlinked file or
folder), a broken or looping link, and anything that is not a regular file (a pipe, a device)
is refused with an error naming it, and is never opened.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from scholarsite.errors import Diagnostic, error

OUTSIDE_HINT = "copy the file into the project instead of linking to it"


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
        return error(shown, 0, "not a regular file (a pipe, socket or device): refused")
    return None


def visible_files(folder: Path) -> Iterator[Path]:
    """Every file under `folder` except hidden ones, sorted; a symlinked folder is listed
    as an entry (for `refusal` to refuse), never walked into."""
    found = []
    for current, folders, files in os.walk(folder):
        folders[:] = [name for name in folders if not name.startswith(".")]
        linked = [name for name in folders if Path(current, name).is_symlink()]  # not walked
        found += [Path(current, name) for name in files + linked if not name.startswith(".")]
    yield from sorted(found)


def read_files(root: Path, folder: str) -> tuple[dict[str, bytes], list[Diagnostic]]:
    """The visible files of the project folder `root/folder` (none if it is missing), by path
    inside it; and an error for each one `refusal` refuses, which is never opened."""
    base = root / folder
    found: dict[str, bytes] = {}
    problems: list[Diagnostic] = []
    for path in visible_files(base) if base.is_dir() else ():
        rel = path.relative_to(base).as_posix()
        if refused := refusal(path, root, f"{folder}/{rel}"):
            problems.append(refused)
        else:
            found[rel] = path.read_bytes()
    return found, problems


def fingerprint_bytes(path: Path, root: Path) -> bytes:
    """What a fingerprint of the inputs hashes for `path`: its bytes if it may be read,
    otherwise only where it points (a refused file is never opened)."""
    if refusal(path, root, "") is None:
        return path.read_bytes()
    return b"refused:" + os.fsencode(os.readlink(path) if path.is_symlink() else path.name)

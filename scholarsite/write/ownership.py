"""Which folders the build may write into: its own, or new or empty ones.

A `--site DIR` that holds files but no manifest is someone's folder (a home folder, a
project, `Documents/`): the build refuses it before reading or writing anything, naming a
few of its files. So are `/`, the home folder, the project folder and any folder that
contains the project, whatever they hold. The same rules, without the manifest, guard the
folder `build --publish-dir` fills.
"""

from __future__ import annotations

import os
from pathlib import Path

from scholarsite.outputs.registry import BOOKKEEPING, JOURNAL, MANIFEST, TMP_PREFIX
from scholarsite.write.manifest import WriteConflict

SHOWN = 3  # files named in a refusal


class FolderRefused(WriteConflict):
    """The output folder is not the build's: writing there could destroy a person's files."""


def location_problem(folder: Path, project: Path) -> str | None:
    """Why `folder` may never be an output folder (it is `/`, the home folder, the project
    or holds the project), or None."""
    real, home = folder.resolve(), Path.home().resolve()
    if real == Path(real.anchor):
        return f"{real} is the root of the file system"
    if real == home:
        return f"{real} is your home folder"
    if real == project.resolve():
        return f"{real} is the project folder itself"
    if project.resolve().is_relative_to(real):
        return f"{real} contains the project folder"
    return None


def bookkeeping(name: str) -> bool:
    """Whether a name at the top of a site is the build's own (manifest, journal, stage)."""
    return name in BOOKKEEPING or name.startswith(TMP_PREFIX)


def entries(folder: Path, *, counting_bookkeeping: bool = False) -> list[str]:
    """The names in `folder` (folders ending in "/"), the build's bookkeeping left out unless
    `counting_bookkeeping`; none when it does not exist."""
    try:
        with os.scandir(folder) as found:
            return sorted(
                entry.name + "/" * entry.is_dir(follow_symlinks=False)
                for entry in found
                if counting_bookkeeping or not bookkeeping(entry.name)
            )
    except (FileNotFoundError, NotADirectoryError):
        return []


def a_few(names: list[str]) -> str:
    """'a, b, c and 4 more'."""
    shown = ", ".join(names[:SHOWN])
    return shown + (f" and {len(names) - SHOWN} more" if len(names) > SHOWN else "")


def is_built(folder: Path) -> bool:
    """Whether `folder` holds the build's manifest (or the journal of a switch under way)."""
    return (folder / MANIFEST).is_file() or (folder / JOURNAL).is_file()


def claim(site_dir: Path, project: Path) -> None:
    """Raise FolderRefused unless `site_dir` may be the project's output folder: new, empty,
    or built before, and not one of the folders `location_problem` names."""
    problem = location_problem(site_dir, project)
    if problem:
        raise FolderRefused(f"{problem}: the site is never written there; choose another --site")
    if is_built(site_dir):
        return
    names = entries(site_dir)
    if names:
        raise FolderRefused(
            f"{site_dir} is not empty and not a folder scholarsite built (it has no {MANIFEST}): "
            f"it holds {a_few(names)}; the site is written only into a new or empty folder, or "
            "one it built before; nothing was written or removed; choose another --site"
        )


def claim_empty(folder: Path, project: Path, site_dir: Path) -> None:
    """Raise FolderRefused unless `folder` may receive the published site: new or empty, not
    the site folder or inside it, and not one of the folders `location_problem` names."""
    problem = location_problem(folder, project)
    real, site = folder.resolve(), site_dir.resolve()
    if problem is None and real.is_relative_to(site):
        problem = f"{real} is inside the site folder {site}"
    if problem is None and (names := entries(folder, counting_bookkeeping=True)):
        problem = f"{folder} is not empty (it holds {a_few(names)})"
    if problem:
        raise FolderRefused(f"{problem}: the published site goes into a new or empty folder")

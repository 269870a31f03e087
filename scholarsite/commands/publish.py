"""The published site: exactly the files the build wrote, as its manifest lists them.

`site/` also holds the build's bookkeeping (the manifest, a journal, the stage folder) and
may hold files a person put there; neither is ever published. `export` copies the manifest's
files (which include `static/`'s) into a new or empty folder: `build --publish-dir DIR` and
the Pages workflow upload that folder, `deploy` commits it to `gh-pages`.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from scholarsite import write


class NotPublishable(write.WriteConflict):
    """A file the manifest lists is missing or is no regular file: the site is not whole."""


@dataclass(frozen=True)
class Export:
    """What an export copied, and the files of the site it left out (not the build's)."""

    files: tuple[str, ...]
    left_out: tuple[str, ...]


def export(site_dir: Path, target: Path) -> Export:
    """Copy the files the build wrote into `site_dir` into `target`, a new or empty folder."""
    files, left_out = write.inventory(site_dir)
    target.mkdir(parents=True, exist_ok=True)
    for path in files:
        copy_regular(site_dir / path, target / path)
    return Export(tuple(files), tuple(left_out))


def copy_regular(source: Path, target: Path) -> None:
    """Copy a regular file (never through a symlink); NotPublishable for anything else."""
    try:
        mode = os.lstat(source).st_mode
    except FileNotFoundError:
        mode = 0
    if not stat.S_ISREG(mode):
        raise NotPublishable(f"{source} is listed in the manifest but is not a regular file; build again")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target, follow_symlinks=False)

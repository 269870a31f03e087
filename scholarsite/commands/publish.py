"""The published site: exactly the files the build wrote, as its manifest lists them, with
exactly the bytes it wrote.

`site/` also holds the build's bookkeeping (the manifest, a journal, the stage folder) and
may hold files a person put there; neither is ever published. Every published file is read
once, hashed as it is read, and shipped only if its sha256 is the one the manifest records:
a file damaged or edited after the build is refused (`Damaged`), never published. `export`
copies the site into a new or empty folder (`build --publish-dir DIR` and the Pages
workflow upload it); `deploy` commits it to `gh-pages` or uploads it to S3 through `verified`.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from scholarsite import write
from scholarsite.write.manifest import read_manifest

CHUNK = 1 << 20
SPOOLED = 16 << 20  # a file is held in memory up to this size while it is checked, else on disk


class NotPublishable(write.WriteConflict):
    """A file the manifest lists is missing or is no regular file: the site is not whole."""


class Damaged(NotPublishable):
    """A file's bytes are not those the build wrote (its sha256 differs from the manifest's)."""

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(
            f"site/{path} does not hold the bytes the build wrote (its sha256 is not the manifest's: "
            "damaged or edited after the build); nothing was published: delete it and build again"
        )


@dataclass(frozen=True)
class Site:
    """The files a build wrote, each with the sha256 of its bytes, and the files of the site
    it left out (not the build's)."""

    folder: Path
    files: dict[str, str]
    left_out: tuple[str, ...]


@dataclass(frozen=True)
class Export:
    """What an export copied, and the files of the site it left out (not the build's)."""

    files: tuple[str, ...]
    left_out: tuple[str, ...]


def published(site_dir: Path) -> Site:
    """The files the manifest of `site_dir` owns with their digests, and the others there;
    CorruptManifest if it cannot be trusted."""
    entries = read_manifest(str(site_dir))[0]
    owned, left_out = write.inventory(site_dir)
    return Site(site_dir, {path: entries[path][1] for path in owned}, tuple(left_out))


def copy_verified(site: Site, path: str, sink: BinaryIO) -> int:
    """Write the bytes of the site's `path` to `sink`; their size. NotPublishable when it is
    missing or no regular file (never read through a symlink), Damaged when its bytes are
    not those the manifest records (`sink` then holds them: the caller discards it)."""
    try:
        handle = open(site.folder / path, "rb", opener=no_follow)  # noqa: SIM115 - closed below
    except OSError as exc:
        raise NotPublishable(
            f"site/{path} is listed in the manifest but cannot be read ({exc.strerror}); build again"
        ) from None
    if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
        handle.close()
        raise NotPublishable(f"site/{path} is listed in the manifest but is not a regular file; build again")
    hasher, size = hashlib.sha256(), 0
    with handle:
        while chunk := handle.read(CHUNK):
            hasher.update(chunk)
            sink.write(chunk)
            size += len(chunk)
    if hasher.hexdigest() != site.files[path]:
        raise Damaged(path)
    return size


def no_follow(name: str, flags: int) -> int:
    """`os.open` that refuses a symlink as the last part of `name` and never waits on a pipe."""
    return os.open(name, flags | os.O_NOFOLLOW | os.O_NONBLOCK)


@contextmanager
def verified(site: Site, path: str) -> Iterator[tuple[BinaryIO, int]]:
    """The checked bytes of the site's `path` as a file positioned at its start, and their size:
    what is published is exactly what was checked, even if the file changes meanwhile."""
    with tempfile.SpooledTemporaryFile(max_size=SPOOLED) as spool:
        size = copy_verified(site, path, spool)
        spool.seek(0)
        yield spool, size


def export(site_dir: Path, target: Path) -> Export:
    """Copy the files the build wrote into `site_dir` into `target`, a new or empty folder;
    Damaged (and no damaged file left in `target`) when a file's bytes are not the build's."""
    site = published(site_dir)
    target.mkdir(parents=True, exist_ok=True)
    for path in site.files:
        copied = target / path
        copied.parent.mkdir(parents=True, exist_ok=True)
        try:
            with open(copied, "wb") as sink:
                copy_verified(site, path, sink)
        except NotPublishable:
            copied.unlink(missing_ok=True)
            raise
    return Export(tuple(site.files), site.left_out)

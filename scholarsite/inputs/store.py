"""Caches on disk, in the project's `.scholarsite-cache/`: files written atomically, and the
folders of JSON shards the parse cache and the memo were kept in before (both are SQLite
files now, `sqlitefile`: an edit at 37,537 papers rewrote a few of 1,024 shards, but read all).
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

CACHE_FOLDER = Path(".scholarsite-cache")
SHARD_NAME = re.compile(r"[0-9a-f]{2,3}\.json")  # a shard file of the layouts before (64 and 1,024)


def file_mode() -> int:
    """The permission bits a plain ``open()`` would give a new file."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(path: Path, *data: bytes | memoryview) -> None:
    """Write `path` (the bytes `data`, one after the other) through `replaced_atomically`."""
    with replaced_atomically(path) as handle:
        handle.writelines(data)


@contextlib.contextmanager
def replaced_atomically(path: Path) -> Iterator[BinaryIO]:
    """A temporary file in `path`'s folder, open for writing, renamed over `path` when the
    block ends (removed when it raises): readers see the old bytes or the new ones, never a
    part. The file keeps its permissions (a new one gets those a plain `open` would give it),
    not the temporary file's private 0600."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        mode = file_mode()
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, prefix=".tmp-") as tmp:
        try:
            yield tmp
            os.fchmod(tmp.fileno(), mode)
        except BaseException:
            tmp.close()
            os.unlink(tmp.name)
            raise
    os.replace(tmp.name, path)


def remove_shards(folder: Path) -> None:
    """Remove a folder of JSON shards a cache was kept in before (only files named as shards;
    the folder when nothing else is left in it)."""
    if folder.is_dir():
        for shard in folder.iterdir():
            if SHARD_NAME.fullmatch(shard.name):
                shard.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            folder.rmdir()

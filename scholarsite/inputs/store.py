"""Caches on disk: JSON in shards, written atomically, in the project's `.scholarsite-cache/`.

The parse cache is split by the first hex digits of each entry's digest into SHARDS files, so
a build that changed one seed rewrites the shards of the entries it added or dropped, not the
whole cache (with 64 shards, a cache of derived text as well rewrote nearly all of 57 MB at
37,537 papers for an added seed, 1.5 s; with 1,024 a few megabytes; derived text is kept in
SQLite now, `memo`). The files are plain JSON, never pickle: loading a cache runs no code.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from scholarsite.inputs.jsondata import dumps, loads_checked

CACHE_FOLDER = Path(".scholarsite-cache")
SHARDS = 1024
LEGACY_NAME = re.compile(r"[0-9]{2}\.json")  # a shard file of the 64-shard layout before


def file_mode() -> int:
    """The permission bits a plain ``open()`` would give a new file."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(path: Path, data: bytes) -> None:
    """Write `path` through a temporary file in its folder and a rename: readers see the old
    bytes or the new ones, never a part. The file keeps its permissions (a new one gets those
    a plain `open` would give it), not the temporary file's private 0600."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        mode = file_mode()
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False, prefix=".tmp-") as tmp:
        tmp.write(data)
        os.fchmod(tmp.fileno(), mode)
    os.replace(tmp.name, path)


def shard_of(digest: str) -> int:
    """The shard of an entry whose digest (hexadecimal) is `digest`."""
    return int(digest[:4], 16) % SHARDS


class Shards:
    """A cache's shard files, `<folder>/<name>/NNN.json` (three hex digits); None as folder:
    nothing on disk."""

    def __init__(self, folder: Path | None, name: str):
        self.folder = folder / name if folder is not None else None
        self.legacy: list[str] = []  # files of the layout before, found by `read`, removed by `write`

    def file(self, shard: int) -> Path:
        """The file of one shard."""
        assert self.folder is not None
        return self.folder / f"{shard:03x}.json"

    def read(self) -> Iterator[tuple[int, Any]]:
        """(shard, decoded body) of every shard file there is, in shard order, the folder listed
        once (ValueError or OSError when one is not JSON or cannot be read)."""
        if self.folder is None or not self.folder.is_dir():
            return
        names = {entry.name for entry in os.scandir(self.folder) if entry.is_file()}
        self.legacy = sorted(name for name in names if LEGACY_NAME.fullmatch(name))
        for shard in range(SHARDS):
            if (file := self.file(shard)).name in names:
                yield shard, loads_checked(file.read_bytes())

    def write(self, bodies: Iterable[tuple[int, Any]]) -> None:
        """Write (shard, body) pairs, each atomically; the shard files of the layout before
        that `read` found (no build reads them any more) are removed."""
        if self.folder is None:
            return
        for shard, body in bodies:
            write_atomically(self.file(shard), dumps(body))
        for name in self.legacy:
            (self.folder / name).unlink(missing_ok=True)
        self.legacy = []

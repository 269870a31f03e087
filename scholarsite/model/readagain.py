"""A file a build read and checked, kept open to read parts of it again instead of holding
them: the kept model's rows, which a build writes again as they were read (27 MB of lines at
37,537 papers, held to the end of the build before).

Its parts are read again only while the file is the one checked: the same inode, size and
times as when it was opened (a file replaced by a rename is another inode; one written in place
has other times). The caller checks `intact` before it takes parts, and again once it has
written what it made of them."""

from __future__ import annotations

import os
from typing import BinaryIO

LENGTH_BITS = 32  # a span is a part's place in the file and its length, in one int


def span_of(start: int, length: int) -> int:
    """The span of the `length` bytes at `start` (one int: held by the hundred thousand)."""
    return start << LENGTH_BITS | length


def stamp_of(handle: BinaryIO) -> tuple[int, ...]:
    """What tells the open file from another or from itself changed: inode, size, times."""
    stat = os.fstat(handle.fileno())
    return stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns


class ReadAgain:
    """An open file's parts read again by their spans (none when there is no file)."""

    def __init__(self, handle: BinaryIO | None = None):
        self.handle = handle
        self.stamp = stamp_of(handle) if handle is not None else ()

    def intact(self) -> bool:
        """Whether the file is the one opened, unchanged (False once closed)."""
        return self.handle is not None and not self.handle.closed and stamp_of(self.handle) == self.stamp

    def part(self, span: int) -> bytes | None:
        """The bytes at `span` (None when the file is closed or shorter)."""
        if self.handle is None or self.handle.closed:
            return None
        length = span & ((1 << LENGTH_BITS) - 1)
        self.handle.seek(span >> LENGTH_BITS)
        found = self.handle.read(length)
        return found if len(found) == length else None

    def close(self) -> None:
        """Close the file: no part is read again."""
        if self.handle is not None:
            self.handle.close()

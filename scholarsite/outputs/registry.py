"""What every output family yields: files (and folders of files) with a key of their inputs.

A key is a digest of everything an output is made from: the code version, the template
sources it uses and its context data. The writer compares keys with the manifest of the
last build, so an output whose key is unchanged is neither produced nor read back.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scholarsite.inputs.digests import digest

MANIFEST = ".scholarsite-manifest.json"  # the build's own files in site/: no output may take them
STAGING = ".scholarsite-stage"
JOURNAL = ".scholarsite-journal.json"
STATS = ".scholarsite-stats.sqlite"  # what each owned file looked like when last found intact
LEGACY_STATS = ".scholarsite-stats.json"  # the same, as earlier versions kept it (removed when met)
BOOKKEEPING = (MANIFEST, STAGING, JOURNAL, STATS, LEGACY_STATS)  # no output may take these names
TMP_PREFIX = ".tmp-"
CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f]")  # no published name holds one (a newline steers git)
# A path `check_path` takes at a glance: parts of letters, digits and a few marks, none starting
# with a dot (so never '.', '..', the build's own names or its temporary files).
PLAIN_PATH_RE = re.compile(r"[\w~+@=,-][\w.~+@=,-]*(?:/[\w~+@=,-][\w.~+@=,-]*)*", re.ASCII)


@dataclass(frozen=True)
class Output:
    """One file of the site: where it goes, what it is made from, and how to make it."""

    path: str
    key: str
    produce: Callable[[], bytes]


@dataclass(frozen=True)
class Bundle:
    """A folder of files made together by one producer (the search index)."""

    folder: str
    key: str
    produce: Callable[[], dict[str, bytes]]  # the files, by path inside the folder


@dataclass(frozen=True)
class Copy:
    """A file of the site copied as it is from a project file (static/'s), in chunks, never
    held whole: its key is the sha256 of its bytes."""

    path: str
    key: str
    source: Path


Produced = Output | Bundle | Copy


def fixed(path: str, data: bytes) -> Output:
    """An output whose bytes are already known: its key is their digest."""
    if not isinstance(data, bytes):
        raise TypeError(f"output {path!r} must be bytes, not {type(data).__name__}")
    return Output(path, digest(data), lambda: data)


def as_bytes(text: str) -> bytes:
    """UTF-8 with a final newline."""
    return (text if text.endswith("\n") else text + "\n").encode("utf-8")


Family = Callable[[Any], Iterable[Produced]]


def check_paths(paths: Iterable[object]) -> None:
    """`check_path` of each of `paths`; the plain ones (nearly all of a site's) at a glance."""
    plain = PLAIN_PATH_RE.fullmatch
    for path in paths:
        if not isinstance(path, str) or not plain(path):
            check_path(path)


def check_path(path: object) -> None:
    """Raise ValueError unless ``path`` is a safe relative POSIX file path."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"invalid output path {path!r}: must be a non-empty string")
    if path.startswith("/") or "\\" in path:
        raise ValueError(f"invalid output path {path!r}: must be relative POSIX, without backslashes")
    if CONTROL_RE.search(path):
        raise ValueError(
            f"invalid output path {path!r}: a control character such as a newline, tab or NUL in a name"
        )
    wrapped = f"/{path}/"
    if "//" in wrapped or "/./" in wrapped or "/../" in wrapped:
        raise ValueError(f"invalid output path {path!r}: empty, '.' or '..' part")
    first = path.partition("/")[0]
    if first in BOOKKEEPING or path.rpartition("/")[2].startswith(TMP_PREFIX):
        raise ValueError(f"invalid output path {path!r}: name reserved for the build")

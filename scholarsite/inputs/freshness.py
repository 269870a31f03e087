"""Whether a build has anything to do: a fingerprint of every input, and the last build's record.

Kept free of heavy imports: `python build.py` with nothing changed answers from here
without loading the rest of scholarsite.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import stat
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Protocol

from scholarsite import theme
from scholarsite.errors import Diagnostic, Severity
from scholarsite.inputs.config import Overrides
from scholarsite.inputs.digests import code_version
from scholarsite.inputs.files import fingerprint_digest, present, visible_files, visible_paths
from scholarsite.inputs.jsondata import loads
from scholarsite.inputs.lineage_file import lineage_digest
from scholarsite.inputs.state import STATE_FILE, BuildState, Stamp
from scholarsite.inputs.store import CACHE_FOLDER, write_atomically

INPUTS = (  # everything a build reads (visible files only, so static/'s one hidden folder is named)
    *("seeds", "content", "templates", "assets", "static", "static/.well-known"),
    *("site.yaml", "sources.yaml"),
)

LAST_BUILD_FILE = CACHE_FOLDER / "last-build.json"
STAMP_SETTLED = 2_000_000_000  # ns: a stamp younger than this is not trusted next time


@dataclass(frozen=True)
class InputFiles:
    """Every file a build reads, as one look saw it, by project path in the fingerprint's
    order: what the fingerprint counts for it (`counted`), and the sha256 of the bytes of
    those that are regular files inside the project (`regular`: a seed among them is taken
    from the parse cache by it, unread)."""

    counted: dict[str, bytes]
    regular: dict[str, bytes]


class Watched(Protocol):
    """The inputs as a process that builds again knows them (`inputs.watched.WatchedInputs`)."""

    def look(self, state: BuildState) -> InputFiles: ...


def input_files(root: Path, state: BuildState | None = None) -> InputFiles:
    """Every file a build reads, listed and digested. With `state`, a file whose stamp (size,
    mtime, inode) is the one recorded with its digest is not read."""
    digests = FileDigests(root, state.input_digests() if state else {})
    counted: dict[str, bytes] = {}
    for name in INPUTS:
        path = root / name
        alone = [str(path)] if present(path) else []  # a file, or a pipe: counted too
        files = visible_paths(str(path)) if path.is_dir() else alone
        for file in files:
            counted[digests.name_of(file)] = digests.of(file)
    if state is not None and digests.seen != digests.known:
        state.save_input_digests(digests.seen, digests.known)
    return InputFiles(counted, digests.regular)


def fingerprint_from(files: InputFiles, *settings: str) -> str:
    """A digest of everything a build reads (and of the code reading it).

    Equal fingerprints mean equal outputs, so a build whose inputs are unchanged since the
    last one into the same site can stop after checking that the site is intact.
    """
    summary = hashlib.sha256("\0".join([code_version(), *settings]).encode())
    for name, digest in files.counted.items():
        summary.update(name.encode() + b"\0")
        summary.update(digest)
    summary.update(theme_digests())
    return summary.hexdigest()


@cache
def theme_digests() -> bytes:
    """What a fingerprint counts of the built-in theme, which projects build on (read once a
    process, as `code_version` reads the code)."""
    parts = []
    for folder in (theme.TEMPLATES, theme.ASSETS):
        for file in visible_files(folder):
            parts.append(f"theme/{folder.name}/{file.relative_to(folder).as_posix()}".encode() + b"\0")
            parts.append(hashlib.sha256(file.read_bytes()).digest())
    return b"".join(parts)


class FileDigests:
    """Input files' digests, from their stamps where a file's stamp is the one recorded.

    Only a regular file (not a link) in a folder inside the project is taken by its stamp; a
    stamp less than STAMP_SETTLED old is not recorded (a file written twice within the
    filesystem's time resolution could keep its stamp), as git does for its index.
    """

    def __init__(self, root: Path, known: dict[str, tuple[Stamp, bytes]]):
        self.root, self.real_root = root, os.path.realpath(root)
        self.prefix = os.path.join(root, "")  # the project's path as files under it start
        self.known = known
        self.seen: dict[str, tuple[Stamp, bytes]] = {}
        self.regular: dict[str, bytes] = {}  # the sha256 of each regular file inside the project
        self.now = time.time_ns()
        self.folders: dict[str, bool] = {}

    def of(self, file: str) -> bytes:
        """The digest of what a fingerprint hashes for the file at path `file`."""
        status = os.lstat(file)
        if not stat.S_ISREG(status.st_mode) or not self.inside(os.path.dirname(file)):
            return fingerprint_digest(Path(file), self.root)
        name = self.name_of(file)
        stamp = (status.st_size, status.st_mtime_ns, status.st_ino)
        digest = self.digest_at(name, stamp) or fingerprint_digest(Path(file), self.root)
        if self.now - status.st_mtime_ns > STAMP_SETTLED:
            self.seen[name] = (stamp, digest)
        self.regular[name] = digest
        return digest

    def name_of(self, file: str) -> str:
        """The project path of a file under the project (`relative_to`, without pathlib's cost
        for each of a collection's files)."""
        if file.startswith(self.prefix):
            return file[len(self.prefix) :]
        return Path(file).relative_to(self.root).as_posix()

    def digest_at(self, name: str, stamp: Stamp) -> bytes | None:
        """The digest recorded for the file at project path `name` if it had `stamp`."""
        known = self.known.get(name)
        return known[1] if known and known[0] == stamp else None

    def inside(self, folder: str) -> bool:
        """Whether a folder's real path is inside the project's."""
        if folder not in self.folders:
            real = os.path.realpath(folder)
            self.folders[folder] = real == self.real_root or real.startswith(self.real_root + os.sep)
        return self.folders[folder]


def read_last_build(root: Path, site_dir: Path, fingerprint: str) -> list[Diagnostic] | None:
    """The diagnostics of the last build into `site_dir` if its inputs had this fingerprint."""
    try:
        record = loads((root / LAST_BUILD_FILE).read_text(encoding="utf-8"))
        if record["inputs"] != fingerprint or record["site"] != str(site_dir.resolve()):
            return None
        if record.get("lineage", "") != lineage_digest(root):
            return None
        return [
            Diagnostic(d["path"], d["line"], Severity(d["severity"]), d["message"], d["hint"])
            for d in record["diagnostics"]
        ]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save_last_build(root: Path, site_dir: Path, fingerprint: str, diagnostics: Iterable[Diagnostic]) -> None:
    """Remember a successful build's inputs and diagnostics."""
    record = {
        "inputs": fingerprint,
        "site": str(site_dir.resolve()),
        "lineage": lineage_digest(root),  # as the build left it (it writes the file it reads)
        "diagnostics": [d.as_dict() for d in diagnostics],
    }
    write_atomically(root / LAST_BUILD_FILE, json.dumps(record, ensure_ascii=False).encode("utf-8"))


def latest_possible_year() -> int:
    """Records cannot be from later than next year (so the fingerprint depends on the year)."""
    return datetime.date.today().year + 1


def inputs_today(
    root: Path, overrides: Overrides, state: BuildState | None = None, watched: Watched | None = None
) -> tuple[str, InputFiles]:
    """The fingerprint of a project's inputs today, with the settings given over site.yaml's,
    and the files it counts (`state`: the build state a build has open already, else the
    project's, opened here; `watched`: the inputs as a process that builds again knows them,
    else they are all looked at)."""
    own = state is None
    state = BuildState(root / STATE_FILE) if state is None else state
    try:
        files = watched.look(state) if watched else input_files(root, state)
        settings = (str(latest_possible_year()), overrides.base_url, str(overrides.portable))
        return fingerprint_from(files, *settings), files
    finally:
        if own:
            state.close()


def owner_of(name: str) -> str | None:
    """The entry of INPUTS that the project path `name` is or is under (the deepest), or None."""
    found = [entry for entry in INPUTS if name == entry or name.startswith(entry + "/")]
    return max(found, key=len, default=None)


def fingerprint_order(name: str) -> tuple[int, list[str]]:
    """Where a fingerprint counts the file at project path `name` (`input_files`' order): by
    its entry of INPUTS, then by its path's parts, as `visible_files` sorts them."""
    owner = owner_of(name) or ""
    return INPUTS.index(owner) if owner else len(INPUTS), name.split("/")

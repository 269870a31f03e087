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
from collections.abc import Callable, Iterable
from pathlib import Path

from scholarsite import theme
from scholarsite.errors import Diagnostic, Severity
from scholarsite.inputs.config import Overrides
from scholarsite.inputs.digests import code_version
from scholarsite.inputs.files import fingerprint_digest, present, visible_files
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


def inputs_fingerprint(root: Path, *settings: str, state: BuildState | None = None) -> str:
    """A digest of everything a build reads (and of the code reading it).

    Equal fingerprints mean equal outputs, so a build whose inputs are unchanged since the
    last one into the same site can stop after checking that the site is intact. With `state`,
    a file whose stamp (size, mtime, inode) is the one recorded with its digest is not read.
    """
    summary = hashlib.sha256("\0".join([code_version(), *settings]).encode())
    digests = FileDigests(root, state.input_digests() if state else {})
    for name in INPUTS:
        path = root / name
        files = visible_files(path) if path.is_dir() else [path] if present(path) else []  # a pipe too
        for file in files:
            summary.update(digests.name_of(file).encode() + b"\0")
            summary.update(digests.of(file))
    if state is not None and digests.seen != digests.known:
        state.save_input_digests(digests.seen)
    for folder in (theme.TEMPLATES, theme.ASSETS):  # the built-in theme, which projects build on
        for file in visible_files(folder):
            summary.update(f"theme/{folder.name}/{file.relative_to(folder).as_posix()}".encode() + b"\0")
            summary.update(hashlib.sha256(file.read_bytes()).digest())
    return summary.hexdigest()


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
        self.now = time.time_ns()
        self.folders: dict[Path, bool] = {}

    def of(self, file: Path) -> bytes:
        """The digest of what a fingerprint hashes for `file`."""
        status = os.lstat(file)
        if not stat.S_ISREG(status.st_mode) or not self.inside(file.parent):
            return fingerprint_digest(file, self.root)
        name = self.name_of(file)
        stamp = (status.st_size, status.st_mtime_ns, status.st_ino)
        digest = self.digest_at(name, stamp) or fingerprint_digest(file, self.root)
        if self.now - status.st_mtime_ns > STAMP_SETTLED:
            self.seen[name] = (stamp, digest)
        return digest

    def recorded(self, file: Path) -> bytes | None:
        """The sha256 of `file`'s bytes, unread, when it is a regular file (not a link) in a
        folder inside the project whose stamp is the one recorded with that digest; else None."""
        try:
            status = os.lstat(file)
        except OSError:
            return None
        if not stat.S_ISREG(status.st_mode) or not self.inside(file.parent):
            return None
        name = self.name_of(file)
        return self.digest_at(name, (status.st_size, status.st_mtime_ns, status.st_ino))

    def name_of(self, file: Path) -> str:
        """The project path of a file under the project (`relative_to`, without pathlib's cost
        for each of a collection's files)."""
        text = str(file)
        if text.startswith(self.prefix):
            return text[len(self.prefix) :]
        return file.relative_to(self.root).as_posix()

    def digest_at(self, name: str, stamp: Stamp) -> bytes | None:
        """The digest recorded for the file at project path `name` if it had `stamp`."""
        known = self.known.get(name)
        return known[1] if known and known[0] == stamp else None

    def inside(self, folder: Path) -> bool:
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


def recorded_digests(root: Path, state: BuildState) -> Callable[[Path], bytes | None]:
    """The digests of the project's files whose stamps the last fingerprint recorded, unread
    (`FileDigests.recorded`): what a build need not read to know a file is the one it parsed."""
    return FileDigests(root, state.input_digests()).recorded


def fingerprint_of(root: Path, overrides: Overrides, state: BuildState | None = None) -> str:
    """The fingerprint of a project's inputs today, with the settings given over site.yaml's
    (`state`: the build state a build has open already; else the project's, opened here)."""
    own = state is None
    state = BuildState(root / STATE_FILE) if state is None else state
    try:
        settings = (str(latest_possible_year()), overrides.base_url, str(overrides.portable))
        return inputs_fingerprint(root, *settings, state=state)
    finally:
        if own:
            state.close()

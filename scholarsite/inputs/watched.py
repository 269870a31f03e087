"""The inputs as a process that builds again (the preview) last saw them, brought up to date
from the paths its watcher says changed: a save costs a look at what was saved, not a listing
and a stat of every file of the collection.

Anything the update cannot follow exactly as `freshness.input_files` would see it (a folder
made or moved in, a path under a symlinked folder, a deleted path it did not know) makes it
look at every file instead. What the watcher may have missed is found by `verify`, which the
preview runs once a build is done: it looks at every file and names those that differ.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from scholarsite.inputs.files import read_by_build
from scholarsite.inputs.freshness import FileDigests, InputFiles, fingerprint_order, input_files, owner_of
from scholarsite.inputs.state import BuildState


class WatchedInputs:
    """The inputs of the project at `root` as the last look saw them, and the paths changed since."""

    def __init__(self, root: Path):
        self.root = root
        self.files: InputFiles | None = None
        self.changed: set[str] | None = None  # None: not known, every file is looked at
        self.followed = False  # whether the last look followed the watcher (else saw every file)

    def saw(self, paths: Iterable[str] | None) -> None:
        """The watcher's paths changed since the last look (None: not known, as after a start)."""
        if paths is None:
            self.changed = None
        elif self.changed is not None:
            self.changed |= set(paths)

    def look(self, state: BuildState) -> InputFiles:
        """The inputs now: the last look's, with the changed paths looked at again."""
        known = self.files if self.changed is not None else None
        now = updated(known, self.root, self.changed) if known and self.changed is not None else None
        self.files, self.changed, self.followed = now or input_files(self.root, state), set(), now is not None
        return self.files

    def verify(self, state: BuildState) -> set[str]:
        """Look at every file, if the last look followed the watcher: the project paths whose
        digest differs from what that look knew (a change the watcher missed), now known."""
        if not self.followed:
            return set()
        full, self.followed = input_files(self.root, state), False
        known = self.files.counted if self.files else {}
        self.files = full
        return {
            name for name in known.keys() | full.counted.keys() if known.get(name) != full.counted.get(name)
        }


def updated(files: InputFiles, root: Path, paths: set[str]) -> InputFiles | None:
    """`files` with the changed `paths` (absolute) looked at again; None when that would not
    be what a look at every file finds (see the module's docstring)."""
    counted, regular = dict(files.counted), dict(files.regular)
    digests = FileDigests(root, {})
    real_root = os.path.realpath(root)
    for path in sorted(paths):
        name = project_name(root, path)
        if name is None or owner_of(name) is None or not read_by_build(root, path):
            continue  # not an input (the site, a hidden file): no build reads it
        if os.path.realpath(os.path.dirname(path)) != os.path.normpath(
            os.path.join(real_root, os.path.dirname(name))
        ):
            return None  # under a symlinked folder, which a look lists but never walks into
        try:
            status = os.lstat(path)
        except FileNotFoundError:
            if name not in counted:
                return None  # a folder, with what was in it
            del counted[name]
            regular.pop(name, None)
            continue
        except OSError:
            return None
        if stat.S_ISDIR(status.st_mode):
            return None  # a folder made, or moved in with its files
        regular.pop(name, None)
        counted[name] = digests.of(path)  # a regular file's digest is in `digests.regular` too
    regular.update(digests.regular)
    if counted.keys() != files.counted.keys():
        counted = dict(sorted(counted.items(), key=lambda item: fingerprint_order(item[0])))
    return InputFiles(counted, regular)


def project_name(root: Path, path: str) -> str | None:
    """The project path of the absolute `path` (`seeds/a.txt`), or None outside the project."""
    prefix = os.path.join(root, "")
    return path[len(prefix) :].replace(os.sep, "/") if path.startswith(prefix) else None

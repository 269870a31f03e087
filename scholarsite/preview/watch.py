"""Watch a project's inputs with `watchfiles` (debounced) and call back once per burst of changes.

A watch follows the folder or file it started on, not its name: once `site.yaml` is replaced by
an editor's atomic save, or `seeds/` is deleted and made again, it sees nothing more. So the
watcher looks at the inputs' identities after each burst and every `POLL_MS`, and starts a new
watch whenever an input appears, vanishes or is replaced. The site itself is not watched, but
a site deleted under the preview is noticed at the next poll and rebuilt.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import watchfiles

from scholarsite.inputs.files import read_by_build

WATCHED = ("seeds", "content", "templates", "assets", "static", "site.yaml", "sources.yaml")
DEBOUNCE_MS = 150  # a burst of saves (an editor writing a backup, then the file) is one change...
QUIET_MS = 20  # ...once nothing more changed for this long (watchfiles' `step`, 50 ms by default:
# every save waited that long before its rebuild began)
POLL_MS = 500  # how often to look for inputs that appeared, vanished or were replaced

Identities = dict[str, int]  # path of an existing input -> its inode


def identities(root: Path) -> Identities:
    """The inputs of a project that exist (watchfiles watches existing paths only), with their
    inodes."""
    found: Identities = {}
    for name in WATCHED:
        try:
            found[str(root / name)] = (root / name).stat().st_ino
        except OSError:
            continue
    return found


def moved(before: Identities, after: Identities, deleted: set[str]) -> set[str]:
    """The inputs that appeared, vanished or were replaced: a new inode, or a deletion of the
    input itself (a folder deleted and made again may get its old inode back)."""
    differ = {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}
    return differ | (deleted & before.keys())


class InputWatcher:
    """A daemon thread that calls `on_change(paths)` after each debounced burst of changes.

    The callback runs on this thread, so a rebuild never blocks the web server's event loop;
    changes made while it runs are collected and give one more call afterwards.
    """

    def __init__(
        self, root: Path, on_change: Callable[[set[str]], None], site_gone: Callable[[], bool] = lambda: False
    ):
        self.root = root
        self.on_change = on_change
        self.site_gone = site_gone  # asked at each poll: a site deleted under the preview is rebuilt
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self.run, name="scholarsite-watch", daemon=True)

    def start(self) -> None:
        """Start watching."""
        self.thread.start()

    def stop(self) -> None:
        """Stop watching (the thread ends within one poll)."""
        self.stop_event.set()

    def run(self) -> None:
        """The watching loop: one watch after another, until stopped."""
        watched, pending = identities(self.root), set[str]()
        while not self.stop_event.is_set():
            watched, pending = self.watch(watched, pending)

    def watch(self, watched: Identities, pending: set[str]) -> tuple[Identities, set[str]]:
        """Call back for each burst of changes to the `watched` inputs until stopped, or until
        one of them appears, vanishes or is replaced: then return the inputs to watch next and
        the changes to call back for, which the next watch does on its first burst or poll, so
        that the rebuild starts once it is in place and misses nothing."""
        for changes in watchfiles.watch(
            *watched,
            watch_filter=lambda change, path: read_by_build(self.root, path),  # what a build reads
            debounce=DEBOUNCE_MS,
            step=QUIET_MS,
            stop_event=self.stop_event,
            rust_timeout=POLL_MS,
            yield_on_timeout=True,
        ):
            changed = {path for _, path in changes}
            deleted = {path for change, path in changes if change == watchfiles.Change.deleted}
            now = identities(self.root)
            inputs = moved(watched, now, deleted)
            if inputs:
                return now, pending | changed | inputs
            if pending or changed:
                self.on_change(pending | changed)
                pending = set()
            elif self.site_gone():
                self.on_change({str(self.root / "site")})
        return watched, pending

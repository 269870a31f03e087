"""Watch a project's inputs with `watchfiles` (debounced) and call back once per burst of changes."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import watchfiles

WATCHED = ("seeds", "content", "templates", "assets", "site.yaml")
DEBOUNCE_MS = 150  # a burst of saves (an editor writing a backup, then the file) is one change


def watched_paths(root: Path) -> list[Path]:
    """The inputs of a project that exist (watchfiles watches existing paths only)."""
    return [root / name for name in WATCHED if (root / name).exists()]


def relevant(change: watchfiles.Change, path: str) -> bool:
    """Ignore editor swap and backup files."""
    name = Path(path).name
    return not (name.startswith(".#") or name.endswith(("~", ".swp", ".swx")) or name == "4913")


class InputWatcher:
    """A daemon thread that calls `on_change(paths)` after each debounced burst of changes.

    The callback runs on this thread, so a rebuild never blocks the web server's event loop;
    changes made while it runs are collected and give one more call afterwards.
    """

    def __init__(self, root: Path, on_change: Callable[[set[str]], None]):
        self.paths = watched_paths(root)
        self.on_change = on_change
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self.run, name="scholarsite-watch", daemon=True)

    def start(self) -> None:
        """Start watching."""
        self.thread.start()

    def stop(self) -> None:
        """Stop watching (the thread ends within one poll)."""
        self.stop_event.set()

    def run(self) -> None:
        """The watching loop."""
        for changes in watchfiles.watch(
            *self.paths, watch_filter=relevant, debounce=DEBOUNCE_MS, stop_event=self.stop_event
        ):
            self.on_change({path for _, path in changes})

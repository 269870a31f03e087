"""Where the preview's builds run: in this process (`LocalBuilds`), or in a process of their own
(`BuildProcess`, what `serve` uses) so that the web server never waits for the interpreter
while pages are planned and rendered.

Either way a build reports the same two things: the warnings once its pages are in place (the
browsers reload then), and its `Outcome`, the summary or the problems that fail it.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import traceback
from collections.abc import Callable, Iterable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import NamedTuple

from scholarsite import pipeline, write
from scholarsite.errors import BuildError, Diagnostic, Severity, printable
from scholarsite.inputs.config import Overrides
from scholarsite.inputs.watched import WatchedInputs
from scholarsite.lifetime import die_with_parent, thawed_collection

MISSED_ROUNDS = 3  # builds after one when files changed that the watcher did not name
BUILD_NICENESS = 10  # the build process yields the cores to the browser showing its first page
# Pages are in place: the build's warnings, and whether only pages changed (not what they load).
Shown = Callable[[list[str], bool], None]
SUBRESOURCES = (  # files pages load besides themselves: a browser showing a page reloads when one changed
    *(".css", ".js", ".mjs", ".wasm", ".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".ico"),
    *(".woff", ".woff2", ".ttf", ".otf"),
)

REPORT_BUG = (
    "this is a bug in scholarsite, not a problem in your project; please report it, with the "
    "traceback printed in the terminal, at the project's issue tracker"
)


class Outcome(NamedTuple):
    """How a build ended: its summary, or the problems shown on the error page."""

    summary: str
    problems: list[str]


def warnings_of(diagnostics: Iterable[Diagnostic]) -> list[str]:
    """The warnings among `diagnostics`, each once, as printed."""
    return list(dict.fromkeys(d.format() for d in diagnostics if d.severity == Severity.WARNING))


def describe(exc: Exception) -> str:
    """'error: /…/site/x.html: No space left on device' for an OSError, the message otherwise;
    control characters (from a file name, say) are escaped for the terminal."""
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename else ""
        return printable(f"error: {where}{exc.strerror}")
    return printable(f"error: {exc}")


class LocalBuilds:
    """Builds run in this process, with warm caches (parses, derived text, compiled templates)
    and model: the first build takes the one the last build kept (`model.snapshot`), and each
    save merges what it changed into it."""

    def __init__(self, root: Path, overrides: Overrides):
        self.root = root
        self.overrides = overrides
        self.caches = pipeline.Caches.of(root)
        self.inputs = self.caches.inputs = WatchedInputs(root)  # ... and only the files saved are looked at

    def build(self, shown: Shown, opened: str | None = None, changed: Iterable[str] | None = None) -> Outcome:
        """One build, the page at site path `opened` (the one the browser shows) first, of the
        inputs as they are after the watcher's `changed` paths (None: not known, every input
        file is looked at). A change the watcher missed, found once the build is done, is
        built at once. Nothing escapes: a failure of any kind is an outcome with problems."""
        self.inputs.saw(changed)
        outcome = self.attempt(shown, opened)
        for _ in range(MISSED_ROUNDS):  # a file changed all the time is left to the watcher
            if outcome.problems or not self.inputs.verify(self.caches.state):
                break
            outcome = self.attempt(shown, opened)
        return outcome

    def attempt(self, shown: Shown, opened: str | None) -> Outcome:
        """One build of the inputs as the watcher says they are (see `build`)."""

        def pages_in_place(report: write.SyncReport, found: Iterable[Diagnostic]) -> None:
            changed = (*report.written, *report.removed)
            shown(warnings_of(found), not any(path.endswith(SUBRESOURCES) for path in changed))

        try:
            result = pipeline.build(
                self.root, caches=self.caches, overrides=self.overrides, shown=pages_in_place, opened=opened
            )
        except BuildError as exc:
            return Outcome("", [d.format() for d in exc.diagnostics])
        except (write.WriteConflict, OSError) as exc:
            return Outcome("", [describe(exc)])
        except Exception as exc:  # a bug in scholarsite: still the error page, and ask for a report
            traceback.print_exc()
            return Outcome("", [printable(f"error: {type(exc).__name__}: {exc}"), REPORT_BUG])
        finally:
            thawed_collection()  # the last build's model, freed while the browser shows the new pages
        return Outcome(result.summary(), [])

    def close(self) -> None:
        """Nothing to stop."""


def serve_builds(connection: Connection, parent: int, root: Path, overrides: Overrides) -> None:
    """The build process: one build per request (the site path of the page to build first, or
    "", and the paths changed, or None), until the preview sends None or closes the connection."""
    die_with_parent(parent)
    os.nice(BUILD_NICENESS)  # the browser's reload and the web server come first (children too)
    builds = LocalBuilds(root, overrides)
    while True:
        try:
            request = connection.recv()
        except EOFError:
            return
        if request is None:
            return
        opened, changed = request
        outcome = builds.build(lambda *shown: connection.send(("shown", shown)), opened or None, changed)
        connection.send(("done", outcome))


class BuildProcess:
    """Builds run in a process of their own, started once and kept warm between builds."""

    def __init__(self, root: Path, overrides: Overrides):
        self.root = root
        self.overrides = overrides
        self.start()

    def start(self) -> None:
        """Start the build process (spawned: the preview's threads are not copied into it)."""
        context = multiprocessing.get_context("spawn")
        self.connection, theirs = context.Pipe()
        arguments = (theirs, os.getpid(), self.root, self.overrides)
        self.process = context.Process(target=serve_builds, args=arguments, name="scholarsite-build")
        self.process.start()
        theirs.close()

    def build(self, shown: Shown, opened: str | None = None, changed: Iterable[str] | None = None) -> Outcome:
        """One build in the build process (see `LocalBuilds.build`); if that process dies, the
        problem, and a new one for the next build (which looks at every input file)."""
        try:
            self.connection.send((opened or "", None if changed is None else sorted(changed)))
            while True:
                kind, value = self.connection.recv()
                if kind == "shown":
                    shown(*value)
                else:
                    return value
        except (EOFError, OSError):
            self.process.join(timeout=5)
            problem = f"error: the build process ended unexpectedly (exit code {self.process.exitcode})"
            self.start()
            return Outcome("", [problem, REPORT_BUG])

    def close(self) -> None:
        """Ask the build process to end, and end it if it does not."""
        with contextlib.suppress(OSError):
            self.connection.send(None)
        self.process.join(timeout=10)
        if self.process.is_alive():
            self.process.kill()

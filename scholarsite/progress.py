"""Progress of a build on a terminal (stage, count, rate) with `rich`; silent elsewhere."""

from __future__ import annotations

import sys
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

STAGES = {
    "read": "reading seeds",
    "model": "modelling",
    "pages": "writing pages",
    "search": "indexing search",
}


class BuildProgress:
    """A callable `(stage, done, total)` that draws one transient progress line on stderr.

    It draws only on a terminal and not when quiet, and disappears when the build ends, so
    the summary stays one line.
    """

    def __init__(self, quiet: bool = False):
        console = Console(stderr=True)
        self.enabled = not quiet and sys.stderr.isatty() and console.is_terminal
        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self.task: TaskID | None = None

    def __enter__(self) -> BuildProgress:
        if self.enabled:
            self.bar.start()
            self.task = self.bar.add_task("starting", total=None, rate="")
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.enabled:
            self.bar.stop()

    def __call__(self, stage: str, done: int, total: int) -> None:
        """Show the stage, how many outputs are done of how many, and the rate."""
        if self.task is None:
            return
        task = self.bar.tasks[self.task]
        description = STAGES.get(stage, stage)
        if task.description != description:
            self.bar.reset(self.task, total=total or None, description=description, rate="")
        speed = self.bar.tasks[self.task].speed
        rate = f"{speed:,.0f}/s" if speed and total > 1 else ""
        self.bar.update(self.task, completed=done, total=total or None, rate=rate)

"""Progress of a build on a terminal (stage, count, rate) with `rich`; silent elsewhere."""

from __future__ import annotations

import sys
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

STAGES = {
    "read": "reading seeds",
    "model": "modelling",
    "pages": "writing pages",
    "search": "indexing search",
}


class BuildProgress:
    """A callable `(stage, done, total)` that draws one transient progress line on stderr.

    It draws only on a terminal and not when quiet, and disappears when the build ends, so
    the summary stays one line; elsewhere `rich` is not even loaded.
    """

    def __init__(self, quiet: bool = False):
        self.bar: Progress | None = None
        self.task: TaskID | None = None
        if quiet or not sys.stderr.isatty():
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        console = Console(stderr=True)
        if console.is_terminal:
            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                console=console,
                transient=True,
            )

    def __enter__(self) -> BuildProgress:
        if self.bar is not None:
            self.bar.start()
            self.task = self.bar.add_task("starting", total=None, rate="")
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.bar is not None:
            self.bar.stop()

    def __call__(self, stage: str, done: int, total: int) -> None:
        """Show the stage, how many outputs are done of how many, and the rate."""
        if self.task is None or self.bar is None:
            return
        task = self.bar.tasks[self.task]
        description = STAGES.get(stage, stage)
        if task.description != description:
            self.bar.reset(self.task, total=total or None, description=description, rate="")
        speed = self.bar.tasks[self.task].speed
        rate = f"{speed:,.0f}/s" if speed and total > 1 else ""
        self.bar.update(self.task, completed=done, total=total or None, rate=rate)

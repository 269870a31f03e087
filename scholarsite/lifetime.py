"""Child processes: how many the machine gives us, and they never outlive the build (each asks
Linux to kill it when its parent dies); the collector paused while a build or a large read
makes objects that live on.

A build killed with SIGKILL cannot clean up, so its worker processes, the search-index
process and Pagefind's service process each set a parent-death signal as they start.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

PR_SET_PDEATHSIG = 1  # prctl(2)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a build runs (or a large input is read). A
    build makes millions of objects that live until it ends, and the collector's repeated
    passes over them cost a quarter of an edit's CPU at 37,537 papers (74 -> 55 s) for no memory
    saved (1.90 GB either way); what a build leaves behind is collected after it (the preview
    collects between builds). Reading 100,000 entries of sources.yaml, it took a third of the
    CPU.

    What the pause made is then frozen (`gc.freeze`): re-enabled, the collector would walk all
    of it at the next allocation (a second at 37,537 papers, for a one-shot build about to
    end). The next pause thaws it into the oldest generation, which the collector walks only
    when it has grown by a quarter; a process that builds again thaws it before it collects
    (`thawed_collection`)."""
    enabled = gc.isenabled()
    gc.disable()
    if enabled:
        gc.unfreeze()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()
            gc.enable()


def thawed_collection() -> None:
    """Collect everything, what the last pause froze included (the last build's model, freed
    between builds)."""
    gc.unfreeze()
    gc.collect()


def die_with_parent(parent: int) -> None:
    """In a new child of process `parent`: be killed when it dies; exit if it already has."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: children end with their pipes instead
        return
    if os.getppid() != parent:  # the parent died before the request was made
        os._exit(1)


def cores() -> int:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class Workers:
    """Worker processes forked from this one, each running `task` on the arguments it is sent.

    The task (a closure over the build's data, however large) reaches the workers by the fork
    itself, never pickled; only the arguments and results travel. Each worker is killed when
    this process dies and ends on SIGTERM (the preview's own handlers, inherited, would keep a
    worker forked from its watcher thread from ending: shutting the pool down then hung).
    """

    def __init__(self, count: int, task: Callable[..., Any]):
        context = multiprocessing.get_context("fork")
        self.pool = ProcessPoolExecutor(
            count, mp_context=context, initializer=_start_worker, initargs=(os.getpid(), task)
        )

    def submit(self, *args: Any) -> Future[Any]:
        """Run the task on `args` in a worker."""
        return self.pool.submit(_run_task, *args)

    def map(self, items: Iterable[Any]) -> Iterator[Any]:
        """The task's result for each item, in order."""
        return self.pool.map(_run_task, items)

    def shutdown(self, wait: bool = True) -> None:
        """Let the workers exit once their work is done (`wait`: wait for that)."""
        self.pool.shutdown(wait=wait)

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()


_worker_task: Callable[..., Any] | None = None  # set once, at its start, in a forked worker only


def _start_worker(parent: int, task: Callable[..., Any]) -> None:
    """In a new worker: the default signal handlers, killed with its parent; keep the task.
    The garbage collector, paused in a building parent, runs again, over what the worker makes
    only: what it inherited (the build's data) is frozen, never walked (nor copied by a walk)."""
    global _worker_task
    gc.freeze()
    gc.enable()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    die_with_parent(parent)
    _worker_task = task


def _run_task(*args: Any) -> Any:
    """Run the worker's task (in a worker)."""
    assert _worker_task is not None
    return _worker_task(*args)

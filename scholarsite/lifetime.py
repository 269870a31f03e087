"""Child processes: how many the machine gives us, and they never outlive the build (each asks
Linux to kill it when its parent dies).

A build killed with SIGKILL cannot clean up, so its worker processes, the search-index
process and Pagefind's service process each set a parent-death signal as they start.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

PR_SET_PDEATHSIG = 1  # prctl(2)


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


def fork_pool(workers: int, start: Callable[[], None] = lambda: None) -> ProcessPoolExecutor:
    """Worker processes forked from this one, so they inherit its state and nothing is pickled
    in; each runs `start` first, is killed when this process dies, and ends on SIGTERM (the
    preview's own handlers, inherited, would keep a worker forked from its watcher thread from
    ending: shutting the pool down then hung)."""
    context = multiprocessing.get_context("fork")
    return ProcessPoolExecutor(
        workers, mp_context=context, initializer=_start_worker, initargs=(os.getpid(), start)
    )


def _start_worker(parent: int, start: Callable[[], None]) -> None:
    """In a new worker: the default signal handlers, killed with its parent, then `start`."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    die_with_parent(parent)
    start()

"""Child processes: how many the machine gives us, and they never outlive the build (each asks
Linux to kill it when its parent dies).

A build killed with SIGKILL cannot clean up, so its worker processes, the search-index
process and Pagefind's service process each set a parent-death signal as they start.
"""

from __future__ import annotations

import ctypes
import os
import signal

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

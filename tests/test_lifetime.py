"""The collector paused while a build runs: what the build made is frozen, not walked, after
it, and still freed by a collection that thaws it first."""

from __future__ import annotations

import gc
import weakref

from scholarsite.lifetime import collector_paused, thawed_collection


class Node:
    """An object in a reference cycle: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_what_a_pause_made_is_frozen_and_freed_by_a_thawed_collection() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        node = Node()
        gone = weakref.ref(node)
        del node
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0  # not walked by the next young collection
    gc.collect()
    assert gone() is not None  # frozen: a plain collection leaves it
    thawed_collection()
    assert gone() is None
    assert gc.get_freeze_count() == 0


def test_a_pause_within_a_pause_leaves_the_collector_to_the_outer_one() -> None:
    with collector_paused():
        with collector_paused():
            pass
        assert not gc.isenabled()
        assert gc.get_freeze_count() == 0  # nothing frozen until the outer pause ends
    assert gc.isenabled()
    thawed_collection()

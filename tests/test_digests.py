"""Keys of plain data (`inputs.digests.key_of`): values alone decide them."""

from __future__ import annotations

import hashlib
import io
import pickle
import threading
from typing import Any

import pytest

from scholarsite.inputs.digests import DigestedDict, DigestedList, key_of


def fresh_key(*parts: Any) -> str:
    """What `key_of` gives: the sha256 of the parts' pickle in fast mode (no memo)."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=5)
    pickler.fast = True
    pickler.dump(parts)
    return hashlib.sha256(buffer.getvalue()).hexdigest()


DATA = [("title", 2024, ["a", "b"], {"k": "v" * 300}), ("a" * 10_000,), (), (None, 1.5, b"bytes")]


def test_keys_are_the_digests_of_the_values_pickles_however_often_asked() -> None:
    for _ in range(3):
        assert [key_of(*parts) for parts in DATA] == [fresh_key(*parts) for parts in DATA]
    assert key_of("x", "x") == key_of(*["x", "".join(["x"])])  # equal strings, one object or two


def test_a_key_that_fails_leaves_the_next_keys_right() -> None:
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        key_of(lambda: None)
    assert key_of(*DATA[0]) == fresh_key(*DATA[0])


class AskingForAKey:
    """A value whose pickle asks for another key while it is being pickled."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (str, (key_of("inner", 1),))


def test_a_key_asked_for_while_pickling_another_is_right_and_spoils_neither() -> None:
    expected = fresh_key(AskingForAKey(), "outer")  # no key being made: the inner one as any
    assert key_of(AskingForAKey(), "outer") == expected
    assert key_of("after") == fresh_key("after")


def test_threads_key_at_once_without_mixing() -> None:
    found: dict[int, list[str]] = {}

    def keys(thread: int) -> None:
        found[thread] = [key_of(thread, index, "x" * index) for index in range(2000)]

    threads = [threading.Thread(target=keys, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(found[n] == [fresh_key(n, i, "x" * i) for i in range(2000)] for n in range(4))


def test_digested_values_are_written_as_their_digest() -> None:
    card = DigestedDict(title="A paper")
    assert key_of([card], digested=True) == key_of([DigestedDict(title="A paper")], digested=True)
    assert key_of([card], digested=True) != key_of([DigestedDict(title="Another")], digested=True)
    assert key_of([card]) == fresh_key([card]) != key_of([card], digested=True)


def test_a_digested_list_is_keyed_by_its_items_digests_once() -> None:
    cards = [DigestedDict(name="Ada"), DigestedDict(name="Grace")]
    letters = DigestedList([{"letter": "A", "authors": cards}])
    assert letters.digest == key_of([{"letter": "A", "authors": cards}], digested=True)
    again = DigestedList([{"letter": "A", "authors": [DigestedDict(name="Ada"), DigestedDict(name="Grace")]}])
    assert key_of([letters], digested=True) == key_of([again], digested=True)
    renamed = DigestedList([{"letter": "A", "authors": [cards[0], DigestedDict(name="Grace H.")]}])
    assert key_of([renamed], digested=True) != key_of([letters], digested=True)
    assert list(letters) == [{"letter": "A", "authors": cards}]  # still a list to templates

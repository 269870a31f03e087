"""The memo of derived text: kept in SQLite, read entry by entry, by each process its own."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
from collections.abc import Iterable
from multiprocessing.synchronize import Event
from pathlib import Path

import pytest

from scholarsite.inputs import memo as memo_module
from scholarsite.inputs.memo import Memo

FILE = "derived.sqlite"


def counted(calls: list[str]) -> object:
    """str.upper, noting each source it is applied to."""

    def upper(source: str) -> str:
        calls.append(source)
        return source.upper()

    return upper


def saved_memo(path: Path, sources: Iterable[str] = "abc") -> Memo:
    """A memo of `upper` over `sources`, saved at `path`."""
    memo = Memo(path)
    for source in sources:
        memo.text("upper", str.upper, source)
    memo.save()
    return memo


def test_saved_entries_are_read_back_one_by_one_and_not_computed_again(tmp_path: Path) -> None:
    saved_memo(tmp_path / FILE)
    calls: list[str] = []
    again = Memo(tmp_path / FILE)
    assert [again.text("upper", counted(calls), s) for s in "abcd"] == ["A", "B", "C", "D"]
    assert calls == ["d"] and not again.entries.keys() - {again.key("upper", s) for s in "abcd"}


def test_entries_prefetched_at_once_are_those_read_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`prefetch` reads many sources' entries in a few queries (`BATCH` keys each): the same
    texts as one query a source, none computed again, the sources unknown left unknown, the
    entries not text left out."""
    sources = [f"source {n}" for n in range(1200)]
    memo = saved_memo(tmp_path / FILE, sources)
    with sqlite3.connect(tmp_path / FILE) as db:
        db.execute("UPDATE entries SET text = ? WHERE key = ?", (b"\xff", memo.key("upper", "source 7")))
    one_by_one = Memo(tmp_path / FILE)
    expected = {
        key: text for s in [*sources, "new"] if (text := one_by_one.known(key := memo.key("upper", s)))
    }
    prefetched = Memo(tmp_path / FILE)
    prefetched.prefetch("upper", [*sources, "new", "source 1"])
    assert prefetched.entries == expected and len(expected) == len(sources) - 1
    monkeypatch.setattr(Memo, "stored", lambda self, key: pytest.fail("read again one by one"))
    calls: list[str] = []
    assert [prefetched.text("upper", counted(calls), s) for s in sources[:3]] == [
        "SOURCE 0",
        "SOURCE 1",
        "SOURCE 2",
    ]
    assert calls == []


def test_a_save_that_collects_keeps_what_was_used_or_kept_and_one_that_does_not_keeps_all(
    tmp_path: Path,
) -> None:
    saved_memo(tmp_path / FILE, "abcd")
    partial = Memo(tmp_path / FILE)
    partial.text("upper", str.upper, "a")
    partial.keep("upper", lambda: pytest.fail("the sources of a save that keeps all are not asked for"))
    partial.save(collect=False)
    assert all(Memo(tmp_path / FILE).has("upper", s) for s in "abcd")
    whole = Memo(tmp_path / FILE)
    whole.text("upper", str.upper, "a")
    whole.keep("upper", lambda: ["c", "z"])
    whole.save(collect=True)
    after = Memo(tmp_path / FILE)
    assert [after.has("upper", s) for s in "abcdz"] == [True, False, True, False, False]


def test_an_entry_that_is_not_text_is_computed_again(tmp_path: Path) -> None:
    memo = saved_memo(tmp_path / FILE)
    with sqlite3.connect(tmp_path / FILE) as db:
        db.execute("UPDATE entries SET text = ? WHERE key = ?", (b"\xff", memo.key("upper", "b")))
    calls: list[str] = []
    again = Memo(tmp_path / FILE)
    assert [again.text("upper", counted(calls), s) for s in "abc"] == ["A", "B", "C"] and calls == ["b"]


@pytest.mark.parametrize("damage", ["not a database", "another version", "a journal left"])
def test_a_file_that_is_not_this_codes_memo_is_made_anew(tmp_path: Path, damage: str) -> None:
    """A damaged file, one of another version of the code, or a stale journal beside a damaged
    file: nothing of it is used, the entries are computed, and the save makes the file anew."""
    path = tmp_path / FILE
    if damage == "another version":
        saved_memo(path)
        with sqlite3.connect(path) as db:
            db.execute("UPDATE meta SET value = 'other code' WHERE name = 'code'")
    else:
        path.write_bytes(b"\0garbage" * 1000)
    if damage == "a journal left":
        (tmp_path / (FILE + "-journal")).write_bytes(b"\0journal" * 100)
    calls: list[str] = []
    memo = Memo(path)
    assert [memo.text("upper", counted(calls), s) for s in "ab"] == ["A", "B"] and calls == ["a", "b"]
    memo.save()
    assert not (tmp_path / (FILE + "-journal")).exists()
    again = Memo(path)
    assert again.has("upper", "a") and again.has("upper", "b") and not again.has("upper", "c")


def test_a_memo_hands_over_the_entries_computed_since_it_last_did_or_saved(tmp_path: Path) -> None:
    """What a forked worker computed is handed to the building process (`take_added`, `add`),
    which saves it; a process that builds again does not hand over what it saved already."""
    worker, parent = Memo(tmp_path / FILE), Memo(tmp_path / FILE)
    worker.text("upper", str.upper, "a")
    handed = worker.take_added()
    assert handed == {worker.key("upper", "a"): "A"} and worker.take_added() == {}
    parent.add(handed)
    assert parent.has("upper", "a")
    parent.text("upper", str.upper, "b")
    parent.save()
    assert parent.take_added() == {}
    assert Memo(tmp_path / FILE).has("upper", "a") and Memo(tmp_path / FILE).has("upper", "b")


def read_in_child(memo: Memo, sources: str, found: multiprocessing.Queue, done: Event) -> None:
    """In a forked process: what the memo holds of `sources`, and whether it read the file by a
    connection of its own; then it stays, its read transaction open, until told it is done."""
    texts = [memo.text("upper", lambda s: "computed", s) for s in sources]
    found.put((texts, [pid == os.getpid() for pid in memo.file.connections]))
    done.wait(60)


def test_a_forked_process_reads_by_its_own_connection_and_never_holds_up_the_save(tmp_path: Path) -> None:
    """A forked render worker reads the file by a connection it opens (the parent's is closed
    before the fork: SQLite's record of its locks would be the child's too, and the child's
    reads would take no lock); the parent opens its own again and saves while the worker still
    holds its read transaction (the file is in WAL mode: the save does not wait for readers)."""
    saved_memo(tmp_path / FILE, "ab")
    parent = Memo(tmp_path / FILE)
    assert parent.text("upper", str.upper, "a") == "A"
    context = multiprocessing.get_context("fork")
    found: multiprocessing.Queue = context.Queue()
    done = context.Event()
    child = context.Process(target=read_in_child, args=(parent, "abc", found, done))
    child.start()
    try:
        texts, connections = found.get(timeout=30)
        assert texts == ["A", "B", "computed"] and connections == [True]  # its own only
        parent.text("upper", str.upper, "c")
        parent.save()  # a reader's lock would have it wait 30 s, then give up
        assert Memo(tmp_path / FILE).text("upper", lambda s: "again", "c") == "C"
    finally:
        done.set()
        child.join(30)
    assert child.exitcode == 0


def test_the_shards_of_the_layout_before_are_removed_and_nothing_else(tmp_path: Path) -> None:
    before = tmp_path / memo_module.SHARDS_BEFORE
    before.mkdir()
    for name in ("000.json", "3ff.json", "07.json", "notes.txt"):
        (before / name).write_text("{}")
    saved_memo(tmp_path / FILE)
    assert [path.name for path in before.iterdir()] == ["notes.txt"]
    (before / "notes.txt").unlink()
    saved_memo(tmp_path / FILE)
    assert not before.exists()

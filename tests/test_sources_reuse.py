"""A changed sources.yaml read reusing the signed cache's entries of unchanged text (issue 28,
fifth and sixth passes): after random edits (entries added, removed, changed, moved, given
twice, wrong, accented, comments), the read equals a full read field for field, lines and
diagnostics included; the unchanged entries are not read again; a planted or other code's
cache is never reused; nor is a damaged or stale delta."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scholarsite.inputs import sources_cache, sources_reuse, sources_signed, userkey
from scholarsite.inputs.sources import SOURCES_FILE, SourceEntry, Sources, dump_sources, sources_of
from scholarsite.inputs.sources_cache import SOURCES_CACHE, read_sources_kept
from scholarsite.inputs.sources_signed import DELTA_SHARE, keep_signed

from .test_sources_signed import SIGNED, damaged
from .test_sources_yaml import HOSTILE, full_entry

DELTA = SIGNED.with_suffix(".delta")
ENTRY_START = re.compile(r"(?m)^(?=  [^ #:\n])")
KINDS = ["add", "remove", "change", "move", "twice", "wrong", "comment", "accents", "not a date"]
EDITS = st.lists(st.tuples(st.sampled_from(KINDS), st.integers(0, 99)), max_size=6)
Edits = list[tuple[str, int]]


def entries(count: int) -> dict[str, SourceEntry]:
    """`count` entries, full and lean, with hostile titles among them."""
    made: dict[str, SourceEntry] = {}
    for n in range(count):
        title = HOSTILE[n % len(HOSTILE)] if n % 3 == 0 else f"Paper {n}"
        made[f"2025/paper {n}"] = full_entry(n, title) if n % 2 else SourceEntry("found", title=title)
    return made


def split(text: str) -> tuple[str, list[str]]:
    """A written file's header (up to `papers:`) and its entries' texts."""
    parts = ENTRY_START.split(text)
    return parts[0], parts[1:]


def chunk(key: str, entry: SourceEntry) -> str:
    """The text of one entry as link-sources writes it."""
    return split(dump_sources({key: entry}))[1][0]


def edited(chunks: list[str], edits: Edits) -> list[str]:
    """The entries' texts after the edits, each applied at a place (taken modulo their count)."""
    chunks = list(chunks)
    for number, (kind, at) in enumerate(edits):
        place = at % len(chunks) if chunks else 0
        if kind == "add":
            chunks.insert(place, chunk(f"2026/new {number}", full_entry(number, f"New {number}")))
        elif kind == "remove" and chunks:
            chunks.pop(place)
        elif kind == "change" and chunks:
            chunks[place] = chunks[place].replace("status: found", "status: unknown", 1)
        elif kind == "move" and chunks:
            chunks.append(chunks.pop(place))
        elif kind == "twice" and chunks:
            chunks.insert(0, chunks[place])
        elif kind == "wrong" and chunks:
            chunks[place] = chunks[place].replace("status: found", "status: maybe", 1)
        elif kind == "comment":
            chunks.insert(place, "  # a comment\n")
        elif kind == "accents" and chunks:  # characters of 2 to 4 bytes (some make the walk search the text)
            chunks[place] = chunks[place].replace("title: ", "title: Ünï – ’中文🙂 ", 1)
        elif kind == "not a date" and chunks:  # plain: YAML types it as a date that is none
            bad = "status: found\n    updated: 2025-02-30"
            chunks[place] = chunks[place].replace("status: found", bad, 1)
            chunks[place] = chunks[place].replace("    updated: 2025-03-04\n", "", 1)
    return chunks


def same_read(got: tuple[Sources, list[object]], expected: tuple[Sources, list[object]]) -> None:
    """Assert that two reads are the same, field for field, in order, lines and problems."""
    (sources, problems), (full, full_problems) = got, expected
    assert list(sources.entries) == list(full.entries) and sources.lines == full.lines
    for key, entry in full.entries.items():
        again = sources.entries[key]
        assert repr(again) == repr(entry) and list(vars(again)) == list(vars(entry))
    assert problems == full_problems


@contextlib.contextmanager
def missed(calls: list[str]) -> Iterator[None]:
    """Within it, each changed file's walk and each full read is noted in `calls`."""
    spies = {"reused_sources": sources_reuse, "sources_of": sources_cache}  # where each is looked up
    with ExitStack() as stack:
        for name, module in spies.items():
            spy = functools.partial(noted, calls, name, getattr(module, name))
            stack.enter_context(mock.patch.object(module, name, spy))
        yield


def noted(calls: list[str], name: str, real: Callable[..., Any], *args: Any) -> Any:
    """`real(*args)`, noted in `calls` as `name`."""
    calls.append(name)
    return real(*args)


@settings(max_examples=150, deadline=None)
@given(EDITS, st.lists(EDITS, min_size=1, max_size=4), st.sampled_from([0, DELTA_SHARE, 10**9]))
def test_a_changed_file_reads_as_a_full_read(first: Edits, later: list[Edits], share: int) -> None:
    """Edits one after the other, each read through the cache the last kept (a delta on its
    base, or a new base: `share` 0 keeps deltas, 10**9 compacts every time): each read, and
    the read through the cache it kept (a hit when the file had no problem), equal the full
    read of the same bytes."""
    with tempfile.TemporaryDirectory() as folder, mock.patch.object(sources_signed, "DELTA_SHARE", share):
        root = Path(folder)
        header, chunks = split(dump_sources(entries(12)))
        for edits in [first, *later]:
            chunks = edited(chunks, edits)
            data = (header + "".join(chunks)).encode("utf-8")
            (root / SOURCES_FILE).write_bytes(data)
            full = sources_of(data)
            same_read(read_sources_kept(root, root / SOURCES_CACHE), full)
            calls: list[str] = []
            with missed(calls):
                same_read(read_sources_kept(root, root / SOURCES_CACHE), full)  # the cache kept by it
                known = hashlib.sha256(data).digest()  # as the build's look gives it
                same_read(read_sources_kept(root, root / SOURCES_CACHE, known), full)
            assert not calls or full[1] or not full[0].entries


def test_unchanged_entries_are_not_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One entry changed, one added: two entries read, the others from the cache at their new
    lines."""
    header, chunks = split(dump_sources(entries(30)))
    (tmp_path / SOURCES_FILE).write_text(header + "".join(chunks), encoding="utf-8")
    read_sources_kept(tmp_path, tmp_path / SOURCES_CACHE)
    chunks[5] = chunks[5].replace("status: found", "status: unknown", 1)
    data = (header + chunk("2024/first", full_entry(1)) + "".join(chunks)).encode("utf-8")
    (tmp_path / SOURCES_FILE).write_bytes(data)
    read: list[object] = []
    entry_of = sources_reuse.entry_of
    monkeypatch.setattr(sources_reuse, "entry_of", lambda value: read.append(value) or entry_of(value))
    got = read_sources_kept(tmp_path, tmp_path / SOURCES_CACHE)
    assert len(read) == 2
    same_read(got, sources_of(data))


def test_a_key_given_twice_is_an_error_at_its_line(tmp_path: Path) -> None:
    header, chunks = split(dump_sources(entries(4)))
    (tmp_path / SOURCES_FILE).write_text(header + "".join(chunks), encoding="utf-8")
    read_sources_kept(tmp_path, tmp_path / SOURCES_CACHE)
    text = header + "".join([*chunks, chunks[1]])
    (tmp_path / SOURCES_FILE).write_text(text, encoding="utf-8")
    sources, problems = read_sources_kept(tmp_path, tmp_path / SOURCES_CACHE)
    assert [problem.line for problem in problems] == [text.count("\n", 0, text.rindex(chunks[1])) + 1]
    assert (sources, problems) == sources_of(text.encode("utf-8"))


def planted_for(root: Path, key: bytes, sources: Sources, text: str) -> None:
    """A signed cache of `sources` (for other bytes) whose entries are kept by the digests of
    the entries' texts of `text`, signed by `key`."""
    keep_signed(root / SIGNED, "0" * 64, sources, key, [span(each) for each in split(text)[1]])


def span(text: str) -> tuple[bytes, int, int]:
    """The span of an entry's text, as the cache keeps it."""
    data = text.encode("utf-8")
    return hashlib.sha256(data).digest(), len(data), text.count("\n")


def test_a_planted_or_other_codes_cache_is_not_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Entries kept by the digests of the file's texts, but signed by another key, or by this
    user's key for other code: the file's own entries are read."""
    written = entries(4)
    text = dump_sources(written)
    (tmp_path / SOURCES_FILE).write_text(text, encoding="utf-8")
    evil = Sources({key: replace(entry, title="planted") for key, entry in written.items()})
    for key in (b"\0" * userkey.KEY_BYTES, os.urandom(userkey.KEY_BYTES)):
        planted_for(tmp_path, key, evil, text)
        assert read_sources_kept(tmp_path, tmp_path / SOURCES_CACHE)[0].entries == written
    own = userkey.user_key()
    assert own is not None
    with monkeypatch.context() as patched:
        patched.setattr(sources_signed, "code_version", lambda: "another version")
        planted_for(tmp_path, own, evil, text)
    assert read_sources_kept(tmp_path, tmp_path / SOURCES_CACHE)[0].entries == written
    planted_for(tmp_path, own, evil, text)  # this code's: reused (the test's own check)
    reused = read_sources_kept(tmp_path, tmp_path / SOURCES_CACHE)[0]
    assert {entry.title for entry in reused.entries.values()} == {"planted"}


def test_a_damaged_or_stale_delta_is_not_used(tmp_path: Path) -> None:
    """A delta damaged (torn, a byte changed), or left from another base (a build ended
    between writing a new base and removing the delta): not used; the file is read through
    the base alone, as the full read reads it."""
    header, chunks = split(dump_sources(entries(30)))
    second = header + chunk("2024/first", full_entry(1)) + "".join(chunks)
    for text in (header + "".join(chunks), second):
        (tmp_path / SOURCES_FILE).write_text(text, encoding="utf-8")
        read_sources_kept(tmp_path, tmp_path / SOURCES_CACHE)
    delta = (tmp_path / DELTA).read_bytes()
    expected = sources_of(second.encode("utf-8"))
    other = header + "".join(chunks[1:])
    for wrong in damaged(delta):
        read_through_base(tmp_path, wrong, expected)
    key = userkey.user_key()
    assert key is not None
    digest = hashlib.sha256(other.encode("utf-8")).hexdigest()
    keep_signed(tmp_path / SIGNED, digest, sources_of(other.encode("utf-8"))[0], key)  # a new base
    read_through_base(tmp_path, delta, expected)  # the last delta put back


def read_through_base(root: Path, delta: bytes, expected: tuple[Sources, list[object]]) -> None:
    """Assert that with `delta` beside the base, sources.yaml is read as a changed file
    through the base (not a hit), as the full read reads it."""
    (root / DELTA).write_bytes(delta)
    calls: list[str] = []
    with missed(calls):
        same_read(read_sources_kept(root, root / SOURCES_CACHE), expected)
    assert calls == ["reused_sources"]

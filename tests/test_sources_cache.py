"""sources.yaml's entries kept between builds (issue 28.3), for a user without a key: a build
whose sources.yaml did not change reads them from `.scholarsite-cache/sources.json`; a cache of
other bytes, of other code or that does not check is not used; a file with problems is never
kept. (With a key, the cache is the signed one: `test_sources_signed.py`.)"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scholarsite import pipeline
from scholarsite.inputs import sources as sources_module
from scholarsite.inputs import sources_cache
from scholarsite.inputs.digests import key_of
from scholarsite.inputs.openalex_part import REFERENCES_RE, Impact
from scholarsite.inputs.paperlinks import Link
from scholarsite.inputs.sources import SOURCES_FILE, SourceEntry, dump_sources, read_sources
from scholarsite.inputs.sources_cache import SOURCES_CACHE, read_sources_kept

from .conftest import make_project
from .test_sources_yaml import HOSTILE, full_entry

ENTRIES = {
    "2025/a paper": SourceEntry(
        "found",
        title="A paper",
        arxiv_id="2502.19811",
        published="2025-02-27",
        openalex=Impact("found", id="W1", counts=((2024, 3), (2025, 9)), references=("W2", "W3")),
        links=(Link("code", "https://example.org/code"),),
    ),
    "2024/another": SourceEntry("not-found", title="Another", checked="2026-12-01"),
}


@pytest.fixture(autouse=True)
def without_user_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """No user's key: the checked JSON cache."""
    monkeypatch.setattr(sources_cache, "user_key", lambda: None)


def project_with_sources(tmp_path: Path) -> Path:
    """A folder with a sources.yaml of ENTRIES."""
    (tmp_path / SOURCES_FILE).write_text(dump_sources(ENTRIES), encoding="utf-8")
    return tmp_path


def unparsed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any parse of sources.yaml's text fail the test."""

    def refuse(text: str, path: str) -> None:
        raise AssertionError("sources.yaml was parsed again")

    monkeypatch.setattr(sources_module, "parsed", refuse)


def test_an_unchanged_file_is_read_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project_with_sources(tmp_path)
    first, problems = read_sources_kept(root, root / SOURCES_CACHE)
    assert not problems and first.entries == ENTRIES and (root / SOURCES_CACHE).is_file()
    expected = read_sources(root)[0]  # the entries with their lines, as the file gives them
    unparsed(monkeypatch)
    again, problems = read_sources_kept(root, root / SOURCES_CACHE)
    assert not problems and again == first == expected


def test_a_changed_file_is_read_again(tmp_path: Path) -> None:
    root = project_with_sources(tmp_path)
    read_sources_kept(root, root / SOURCES_CACHE)
    (root / SOURCES_FILE).write_text(
        dump_sources({"2024/another": ENTRIES["2024/another"]}), encoding="utf-8"
    )
    changed, _ = read_sources_kept(root, root / SOURCES_CACHE)
    assert list(changed.entries) == ["2024/another"]


def test_a_cache_that_does_not_check_is_not_used(tmp_path: Path) -> None:
    root = project_with_sources(tmp_path)
    read_sources_kept(root, root / SOURCES_CACHE)
    cache = root / SOURCES_CACHE
    saved = json.loads(cache.read_text())
    assert [place for place, _ in saved["whole"]] == [1]  # the entry with links is kept whole
    saved["whole"][0][1]["links"] = [{"kind": "code", "url": "javascript:alert(1)"}]
    cache.write_text(json.dumps(saved))
    read, problems = read_sources_kept(root, cache)
    assert not problems and read.entries == ENTRIES
    for planted in ("not json", "[" * 100_000 + "]" * 100_000, '{"format": 1, "entries": {"abc": 1}}'):
        cache.write_text(planted)
        assert read_sources_kept(root, cache)[0].entries == ENTRIES


def test_a_planted_entry_of_the_wrong_shape_sends_the_read_to_the_file(tmp_path: Path) -> None:
    """A key that is no text or given twice, a line that is no number, a status refused, a
    column too short, an entry kept whole out of place: the cache is not used, and the
    entries are the file's."""
    root = project_with_sources(tmp_path)
    read_sources_kept(root, root / SOURCES_CACHE)
    cache = root / SOURCES_CACHE
    saved = json.loads(cache.read_text())
    key = saved["keys"][1]
    planted = (
        {"keys": [saved["keys"][0], 1]},
        {"keys": [key, key]},
        {"lines": [saved["lines"][0], True]},
        {"entry": {**saved["entry"], "status": ["found", "maybe"]}},
        {"entry": {**saved["entry"], "title": ["A paper"]}},
        {"whole": [[2, saved["whole"][0][1]]]},
        {"whole": [[1, {"status": "found", "title": ["a list"]}]]},
    )
    for wrong in planted:
        cache.write_text(json.dumps({**saved, **wrong}))
        read, problems = read_sources_kept(root, cache)
        assert not problems and read.entries == ENTRIES, wrong


def plain_entry(number: int, title: str = "A Title") -> SourceEntry:
    """An entry with every field the columns hold set (`full_entry` without candidates)."""
    return replace(full_entry(number, title), candidates=())


def kept_form(tmp_path: Path, entries: dict[str, SourceEntry]) -> tuple[Path, Path, dict[str, Any]]:
    """A project with a sources.yaml of `entries`, read once: the root, its cache and the
    cache's JSON."""
    (tmp_path / SOURCES_FILE).write_text(dump_sources(entries), encoding="utf-8")
    read_sources_kept(tmp_path, tmp_path / SOURCES_CACHE)
    return tmp_path, tmp_path / SOURCES_CACHE, json.loads((tmp_path / SOURCES_CACHE).read_text())


@pytest.mark.parametrize("title", HOSTILE)
def test_the_columns_make_the_objects_the_file_makes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, title: str
) -> None:
    """Entries read from the columns (none kept whole) are those read from the file: equal,
    with the same hash, repr, fields in the same order and the same digest in the build's keys."""
    entries = {
        "2025/a": plain_entry(3, title),
        "2025/b": SourceEntry("found"),
        "2025/c": SourceEntry("unknown", title=title, version=1, openalex=Impact("not-found")),
        "2025/d": replace(plain_entry(4), openalex=None, locked=False, authors=()),
    }
    root, cache, saved = kept_form(tmp_path, entries)
    assert saved["whole"] == []
    expected = read_sources(root)[0]
    unparsed(monkeypatch)
    kept, problems = read_sources_kept(root, cache)
    assert not problems and kept == expected and kept.entries == entries
    for key, entry in entries.items():
        again = kept.entries[key]
        assert hash(again) == hash(entry) and repr(again) == repr(entry) and key_of(again) == key_of(entry)
        assert list(vars(again)) == list(vars(entry))
        if entry.openalex is not None:
            assert list(vars(again.openalex)) == list(vars(entry.openalex))  # type: ignore[union-attr]
        with pytest.raises(AttributeError):
            again.title = "changed"  # type: ignore[misc]


def test_a_file_without_openalex_parts_is_kept_without_their_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = {"2025/a": replace(plain_entry(1), openalex=None), "2025/b": SourceEntry("found")}
    root, cache, saved = kept_form(tmp_path, entries)
    assert saved["impact"] is None
    with monkeypatch.context() as patched:
        unparsed(patched)
        kept, problems = read_sources_kept(root, cache)
        assert not problems and kept.entries == entries and kept.entries["2025/a"].openalex is None
    for planted in ("junk", {"status": [None, None]}, []):
        cache.write_text(json.dumps({**saved, "impact": planted}), encoding="utf-8")
        assert read_sources_kept(root, cache)[0].entries == entries


def test_entries_the_columns_would_not_check_are_kept_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Values that `entry_of` takes but the columns' quick checks do not (a version over 2**63,
    a zero-width space in OpenAlex's venue) are kept whole, and the cache still used; a line
    break inside a title is in the columns."""
    entries = {
        "2025/a": replace(plain_entry(1, "Two\nlines"), version=2**64),
        "2025/b": plain_entry(2, "Two\nlines"),
        "2025/c": replace(plain_entry(3), openalex=replace(plain_entry(3).openalex, venue="a\u200bb")),  # type: ignore[type-var]
    }
    root, cache, saved = kept_form(tmp_path, entries)
    assert [place for place, _ in saved["whole"]] == [0, 2]
    unparsed(monkeypatch)
    kept, problems = read_sources_kept(root, cache)
    assert not problems and kept.entries == entries and list(kept.entries) == list(entries)


COLUMN_PLANTS = [
    ("entry", "title", " padded"),
    ("entry", "title", "x" * 10_001),
    ("entry", "title", "a\ud800b"),  # a surrogate: no YAML file holds one, and it would not encode
    ("entry", "title", "bell\x07"),
    ("entry", "title", 5),
    ("entry", "checked", "2025-02-30"),
    ("entry", "arxiv_id", "2502.1981<script>"),
    ("entry", "arxiv_id", "2502.19811\n2502.19812"),
    ("entry", "doi", "10.1145/x y"),
    ("entry", "type", "manifesto"),
    ("entry", "version", 0),
    ("entry", "version", True),
    ("entry", "version", "2"),
    ("entry", "authors", ["Ada", ""]),
    ("entry", "authors", ["Ada", " Bob"]),
    ("entry", "authors", "Ada"),
    ("entry", "authors", [["Ada"]]),
    ("entry", "locked", "yes"),
    ("entry", "status", None),
    ("impact", "status", "maybe"),
    ("impact", "id", "X12"),
    ("impact", "oa_url", "javascript:alert(1)"),
    ("impact", "venue", "two  spaces"),
    ("impact", "venue", "tab\there"),
    ("impact", "published", "2025-13-01"),
    ("impact", "cited_by", -1),
    ("impact", "cited_by", False),
    ("impact", "cited_by", 10**10),
    ("impact", "years", [2025, 2024]),
    ("impact", "years", [2025, 2025]),
    ("impact", "years", [999, 2025]),
    ("impact", "citations", [-1, 2]),
    ("impact", "citations", [1]),
    ("impact", "citations", [1, True]),
    ("impact", "references", "W1  W2"),
    ("impact", "references", " W1"),
    ("impact", "references", "W1 W"),
    ("impact", "references", "W1 WW2"),
    ("impact", "references", "W1 W2x"),
    ("impact", "references", "W1 W1234567890123456"),
    ("impact", "references", "W1\nW2"),
    ("impact", "references", "W1 W２"),
    ("impact", "references", " ".join(f"W{n}" for n in range(2_001))),
    ("impact", "references", ["W1"]),
]


@pytest.mark.parametrize(("part", "name", "value"), COLUMN_PLANTS)
def test_a_planted_column_value_sends_the_read_to_the_file(
    tmp_path: Path, part: str, name: str, value: Any
) -> None:
    """Any value that `entry_of` would refuse or change, planted in a column of the cache: the
    cache is not used, and the entries are the file's."""
    entries = {"2025/a": plain_entry(1), "2025/b": plain_entry(2, "Another")}
    root, cache, saved = kept_form(tmp_path, entries)
    saved[part][name][1] = value
    cache.write_text(json.dumps(saved), encoding="utf-8")
    read, problems = read_sources_kept(root, cache)
    assert not problems and read.entries == entries


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(alphabet="W01 9x\n２", max_size=12), max_size=6))
def test_reference_lists_are_checked_as_references_of_checks_each(references: list[str]) -> None:
    """Checked all at once, the lists of references are refused exactly when one of them is
    not what `references_of` would keep as it is, or holds digits other than ASCII's (which
    `\\d` takes: such an entry is kept whole)."""
    each = all(not text or REFERENCES_RE.fullmatch(text) for text in references)
    try:
        sources_cache.reference_lists(references)
        together = True
    except sources_cache.Refused:
        together = False
    assert together == (each and all(map(str.isascii, references)))


def test_a_file_with_problems_is_never_kept(tmp_path: Path) -> None:
    (tmp_path / SOURCES_FILE).write_text("papers:\n  2025/x:\n    status: maybe\n", encoding="utf-8")
    for _ in range(2):
        read, problems = read_sources_kept(tmp_path, tmp_path / SOURCES_CACHE)
        assert not read.entries and [(p.line, p.message[:9]) for p in problems] == [(2, "'2025/x':")]
    assert not (tmp_path / SOURCES_CACHE).exists()


def test_a_build_keeps_the_entries_a_check_and_a_clean_build_do_not(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    (root / SOURCES_FILE).write_text(dump_sources(ENTRIES), encoding="utf-8")
    pipeline.check(root)
    assert not (root / SOURCES_CACHE).exists()
    pipeline.build(root, caches=pipeline.Caches.empty())
    assert not (root / SOURCES_CACHE).exists()
    (root / "site.yaml").write_text((root / "site.yaml").read_text() + "\n# changed\n", encoding="utf-8")
    pipeline.build(root)
    assert (root / SOURCES_CACHE).is_file()

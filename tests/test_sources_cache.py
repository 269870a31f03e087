"""sources.yaml's entries kept between builds (issue 28.3): a build whose sources.yaml did not
change reads them from `.scholarsite-cache/sources.json`; a cache of other bytes, of other
code or that does not check is not used; a file with problems is never kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scholarsite import pipeline
from scholarsite.inputs import sources as sources_module
from scholarsite.inputs.openalex_part import Impact
from scholarsite.inputs.paperlinks import Link
from scholarsite.inputs.sources import SOURCES_FILE, SourceEntry, dump_sources, read_sources
from scholarsite.inputs.sources_cache import SOURCES_CACHE, read_sources_kept

from .conftest import make_project

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
    saved["entries"][0][2]["links"] = [{"kind": "code", "url": "javascript:alert(1)"}]
    cache.write_text(json.dumps(saved))
    read, problems = read_sources_kept(root, cache)
    assert not problems and read.entries == ENTRIES
    for planted in ("not json", "[" * 100_000 + "]" * 100_000, '{"format": 1, "entries": {"abc": 1}}'):
        cache.write_text(planted)
        assert read_sources_kept(root, cache)[0].entries == ENTRIES


def test_a_planted_entry_of_the_wrong_shape_sends_the_read_to_the_file(tmp_path: Path) -> None:
    """A key that is no text, a line that is no number, a field that does not check: the
    cache is not used, and the entries are the file's."""
    root = project_with_sources(tmp_path)
    read_sources_kept(root, root / SOURCES_CACHE)
    cache = root / SOURCES_CACHE
    saved = json.loads(cache.read_text())
    planted = ([1, 2, {"status": "found"}], ["k", True, {"status": "found"}], ["k", 1, {"status": "maybe"}])
    for wrong in planted:
        cache.write_text(json.dumps({**saved, "entries": [*saved["entries"], wrong]}))
        read, problems = read_sources_kept(root, cache)
        assert not problems and read.entries == ENTRIES, wrong


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

"""The search index in shards: a record's shard is stable, and a change re-keys only the shards
whose records changed (so only those are re-indexed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.corpus import Corpus, make_corpus
from scholarsite import pipeline, write
from scholarsite.errors import Diagnostic
from scholarsite.inputs.project import load_project
from scholarsite.model import urls
from scholarsite.outputs import shards
from scholarsite.outputs.families import search
from scholarsite.outputs.site import in_search

from .conftest import make_project

SHARD_SIZE = 6  # forces 32 shards on the collection below


def shard_keys(project: Path) -> dict[str, str]:
    """The key of every search bundle of the project, by folder (no indexing: keys only)."""
    data, _ = pipeline.site_data(load_project(project))
    return {bundle.folder: bundle.key for bundle in search.outputs(data)}


def search_records(project: Path) -> dict[str, dict[str, Any]]:
    """The project's search records by URL."""
    data, _ = pipeline.site_data(load_project(project))
    return {record["url"]: record for record in search.records(data)}


def changed(before: dict[str, str], after: dict[str, str]) -> set[str]:
    """The folders whose key differs (or that are new or gone)."""
    return {folder for folder in before.keys() | after.keys() if before.get(folder) != after.get(folder)}


@pytest.fixture
def corpus() -> Corpus:
    return make_corpus(40, 150, seed=7)


def project_of(corpus: Corpus, folder: Path, skip: int | None = None) -> Path:
    """A project of the corpus's seeds (without seed number `skip`), in shards of SHARD_SIZE."""
    seeds = folder / "seeds-in"
    corpus.write_seeds(seeds)
    if skip is not None:
        (seeds / corpus.seeds[skip].file_name).unlink()
    return make_project(folder / "project", seeds, f"title: Shards\nsearch_shard_size: {SHARD_SIZE}\n")


def test_shard_count_is_the_smallest_power_of_two_that_fits() -> None:
    counts = [shards.shard_count(n, 2000) for n in (0, 1, 16_000, 16_001, 32_000, 32_001, 37_600, 64_001)]
    assert counts == [1, 1, 16, 16, 16, 32, 32, 64]


def test_a_small_site_is_split_in_up_to_sixteen_shards_of_at_least_100_records() -> None:
    counts = [shards.shard_count(n, 2000) for n in (199, 200, 399, 400, 800, 1599, 1600, 1816, 15_999)]
    assert counts == [1, 2, 2, 4, 8, 8, 16, 16, 16]
    assert [shards.shard_count(n, 40) for n in (60, 190)] == [2, 8]  # a smaller size decides


def test_a_record_keeps_its_shard_or_moves_to_its_twin_when_the_count_doubles() -> None:
    for number in range(500):
        url = f"/papers/2024/paper-{number}/"
        assert shards.shard_of(url, 1) == 0
        for count in (1, 2, 4, 8, 16):
            assert shards.shard_of(url, 2 * count) in (
                shards.shard_of(url, count),
                shards.shard_of(url, count) + count,
            )


def test_shards_are_balanced_sibling_folders(corpus: Corpus, tmp_path: Path) -> None:
    project = project_of(corpus, tmp_path)
    data, _ = pipeline.site_data(load_project(project))
    bundles = list(search.outputs(data))
    assert [b.folder for b in bundles] == [f"pagefind/{i}" for i in range(32)]
    assert len({b.key for b in bundles}) == 32
    found = search.records(data)
    sizes = [len(shard) for shard in shards.split(found, [record["url"] for record in found], 32)]
    assert sum(sizes) == shards.record_count(data.site) and max(sizes) < 4 * SHARD_SIZE


def test_editing_one_abstract_changes_exactly_one_shard(corpus: Corpus, tmp_path: Path) -> None:
    project = project_of(corpus, tmp_path)
    before = shard_keys(project)
    paper = next(p for p in corpus.papers if len(p.authors) == 1)
    seed = project / "seeds" / next(s.file_name for s in corpus.seeds if s.author == paper.authors[0])
    text = seed.read_text(encoding="utf-8")
    assert text.count(paper.abstract) == 1
    seed.write_text(text.replace(paper.abstract, paper.abstract + " Edited once."), encoding="utf-8")
    assert len(changed(before, shard_keys(project))) == 1


def test_adding_a_seed_changes_only_the_shards_of_its_records(corpus: Corpus, tmp_path: Path) -> None:
    added = min(range(len(corpus.seeds)), key=lambda i: len(corpus.seeds[i].papers))
    project = project_of(corpus, tmp_path, skip=added)
    before, records_before = shard_keys(project), search_records(project)
    seed = corpus.seeds[added]
    (project / "seeds" / seed.file_name).write_text(corpus.seed_text(seed), encoding="utf-8")
    after, records_after = shard_keys(project), search_records(project)
    assert before.keys() == after.keys()  # the same shard count
    touched = {
        url
        for url in records_before.keys() | records_after.keys()
        if records_before.get(url) != records_after.get(url)
    }
    expected = {shards.folder(shards.shard_of(url, len(after))) for url in touched}
    assert changed(before, after) == expected
    assert 0 < len(expected) < len(after), (expected, len(after))


def test_one_shard_keeps_a_single_bundle(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    assert list(shard_keys(project)) == ["pagefind/0"]


def test_the_preview_syncs_every_shard_after_the_pages_and_an_edit_one_shard(
    corpus: Corpus, tmp_path: Path
) -> None:
    project = project_of(corpus, tmp_path)
    site = project / "site"
    search_then: list[bool] = []

    def after(report: write.SyncReport, diagnostics: tuple[Diagnostic, ...]) -> None:
        search_then.append((site / "pagefind").exists())

    first = pipeline.build(project, caches=pipeline.Caches.of(project), shown=after)
    assert search_then == [False]  # the pages were in place before any shard
    assert all((site / shards.folder(n) / "pagefind-entry.json").is_file() for n in range(32))
    assert (site / "pagefind/0/pagefind.js").is_file() and not (site / "pagefind/1/pagefind.js").exists()
    top = {p.name for p in (site / "pagefind/0").iterdir() if p.is_file()}
    assert top == {"pagefind.js", "pagefind-worker.js", "wasm.en.pagefind", "pagefind-entry.json"} | {
        name for name in top if name.endswith(".pf_meta")
    }  # no Pagefind UI, highlighter or other language's WebAssembly: the search page never loads them
    assert set(first.report.written) == {
        p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()
    } - {write.MANIFEST, write.STATS}

    paper = next(p for p in corpus.papers if len(p.authors) == 1)
    seed = project / "seeds" / next(s.file_name for s in corpus.seeds if s.author == paper.authors[0])
    seed.write_text(
        seed.read_text(encoding="utf-8").replace(paper.abstract, paper.abstract + " Edited."), "utf-8"
    )
    again = pipeline.build(project, caches=pipeline.Caches.of(project), shown=after)
    rewritten = {path.split("/")[1] for path in again.report.written if in_search(path)}
    assert len(search_then) == 2 and len(rewritten) == 1


def test_a_record_url_is_the_page_as_the_home_page_links_it() -> None:
    paths = ["index.html", "papers/2024/a-b/index.html", "subjects/cs-lg/index.html", "data/papers.json"]
    for path in paths:
        for portable in (False, True):
            linked = urls.relative(urls.HOME, path, portable).removeprefix("./")
            assert shards.url_of(path, portable) == "/" + linked

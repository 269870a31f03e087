"""Parsed seeds are cached by content between builds; stale or damaged caches are harmless."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks.corpus import generate
from scholarsite import pipeline
from scholarsite.inputs import cache as parsecache
from scholarsite.inputs import freshness
from scholarsite.inputs.records import SeedRecord, identity_of
from scholarsite.inputs.unicode import strip_ignorable

from .conftest import make_project


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Paths parsed for real (cache misses)."""
    parsed: list[str] = []
    real = parsecache.parse_seed

    def counting(data: bytes, path: str, *, latest_year: int):
        parsed.append(path)
        return real(data, path, latest_year=latest_year)

    monkeypatch.setattr(parsecache, "parse_seed", counting)
    return parsed


def test_unchanged_seeds_are_not_parsed_again(tmp_path: Path, counted: list[str]) -> None:
    project = make_project(tmp_path / "p")
    pipeline.build(project)
    assert len(counted) == 2
    assert list((project / ".scholarsite-cache/seeds").glob("*.json"))
    pipeline.build(project)
    assert len(counted) == 2
    seed = project / "seeds/000_428d720ed8b996c5.txt"
    seed.write_text(
        seed.read_text(encoding="utf-8").replace("Mesh-Attention", "Mesh Attention"), encoding="utf-8"
    )
    pipeline.build(project)
    assert counted[2:] == ["seeds/000_428d720ed8b996c5.txt"]


def test_damaged_cache_is_rebuilt(tmp_path: Path, counted: list[str]) -> None:
    project = make_project(tmp_path / "p")
    (project / ".scholarsite-cache/seeds").mkdir(parents=True)
    (project / ".scholarsite-cache/seeds/000.json").write_bytes(b"not json")
    assert pipeline.build(project).report.written
    assert len(counted) == 2


def test_new_code_version_invalidates(
    tmp_path: Path, counted: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(tmp_path / "p")
    pipeline.build(project)
    monkeypatch.setattr(parsecache, "code_version", lambda: "another-version")
    monkeypatch.setattr(freshness, "code_version", lambda: "another-version")
    pipeline.build(project)
    assert len(counted) == 4


def test_cache_keeps_only_what_the_last_build_used(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    pipeline.build(project)
    (project / "seeds/001_195b1e5c39d23b83.txt").unlink()
    pipeline.build(project)
    cache = parsecache.ParseCache(project / ".scholarsite-cache/seeds")
    assert [key[0] for key in cache.entries] == ["seeds/000_428d720ed8b996c5.txt"]


PAYLOAD = b"cos\nsystem\n(S'touch /tmp/scholarsite-pwned'\ntR."


@pytest.mark.parametrize(
    "content",
    [
        PAYLOAD,
        b'{"format": %d, "entries": [[["seeds/a.txt", "x", 2027, "v"], {"author": 5, "diagnostics": []}]]}'
        % parsecache.FORMAT,
        b'{"format": %d, "entries": [[["seeds/a.txt"], {}]]}' % parsecache.FORMAT,
        b'{"format": %d, "entries": {}}' % parsecache.FORMAT,
        b"[" * 100_000,
    ],
)
def test_a_planted_cache_is_data_never_code(tmp_path: Path, counted: list[str], content: bytes) -> None:
    Path("/tmp/scholarsite-pwned").unlink(missing_ok=True)
    project = make_project(tmp_path / "p")
    (project / ".scholarsite-cache/seeds").mkdir(parents=True)
    (project / ".scholarsite-cache/seeds/000.json").write_bytes(content)
    (project / ".scholarsite-cache/seeds.pickle").write_bytes(PAYLOAD)  # an old cache is never read
    result = pipeline.build(project)
    assert not Path("/tmp/scholarsite-pwned").exists()
    assert len(counted) == 2
    assert any("parse cache" in d.message for d in result.diagnostics)
    again = pipeline.build(project)
    assert again.report.written == () and not any("parse cache" in d.message for d in again.diagnostics)


def test_a_change_rewrites_only_the_cache_shards_it_touches(tmp_path: Path) -> None:
    """Editing one seed rewrites the shard of its parse, never the whole cache (the derived
    texts are rows of SQLite: `test_memo`)."""
    seeds = tmp_path / "seeds"
    generate(seeds, 40, 200, seed=3)
    project = make_project(tmp_path / "p", seeds=seeds)
    pipeline.build(project)
    shards = sorted((project / ".scholarsite-cache/seeds").glob("*.json"))
    assert len(shards) > 30
    before = {path: path.stat().st_mtime_ns for path in shards}
    seed = sorted(seeds.glob("*.txt"))[0]
    edited = project / "seeds" / seed.name
    edited.write_text(
        edited.read_text(encoding="utf-8").replace(" with ", " with edited ", 1), encoding="utf-8"
    )
    pipeline.build(project)
    rewritten = [path for path in shards if path.stat().st_mtime_ns != before[path]]
    assert len(rewritten) == 1, [p.relative_to(project).as_posix() for p in rewritten]


def test_the_shards_of_the_layout_before_are_removed_at_the_next_write(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    for folder in ("seeds", "derived"):
        (project / ".scholarsite-cache" / folder).mkdir(parents=True)
        (project / ".scholarsite-cache" / folder / "07.json").write_text('{"entries": {}}')
    (project / ".scholarsite-cache/derived/notes.json").write_text("{}")  # not a shard: kept
    pipeline.build(project)
    left = sorted(path.name for path in (project / ".scholarsite-cache").glob("*/*.json"))
    assert "07.json" not in left and "notes.json" in left
    assert [name for name in left if len(name) == len("3ff.json")]  # the shards written now


@pytest.mark.parametrize(
    "abstract",
    ["One line.", "Wrapped\nover  two lines.", "Invisible\u200b joiner\u00ad here.", ""],
)
def test_a_record_keeps_its_identity_in_the_cache(abstract: str) -> None:
    """The model's identity of a record (title normalised, abstract as compared, its key) is
    kept with it and read back as it was; a record changed with `replace` works its own out."""
    record = SeedRecord("arXiv", 2024, "On  Graphs $\\alpha$", abstract, ("cs.DS",), "seeds/a.txt", 3)
    kept = parsecache.record_of(json.loads(json.dumps(parsecache.record_data(record))))
    assert kept == record and "identity" in kept.__dict__  # given, not worked out again
    assert kept.identity == record.identity == identity_of(record.title, abstract)
    assert record.identity.abstract == " ".join(strip_ignorable(abstract).split())
    retitled = replace(kept, title="Other")
    assert retitled.identity.title == "other" and retitled.identity.abstract_key == kept.identity.abstract_key


def test_a_planted_identity_of_the_wrong_shape_throws_the_cache_away() -> None:
    record = SeedRecord("arXiv", 2024, "T", "A.", (), "seeds/a.txt", 3)
    data = parsecache.record_data(record)
    for identity in (None, ["t", None], ["t", 5, "k"], [1, None, "k"]):
        with pytest.raises(parsecache.Invalid):
            parsecache.record_of([*data[:-1], identity])

"""Parsed seeds are cached by content between builds; stale or damaged caches are harmless."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from scholarsite import pipeline
from scholarsite.errors import BuildError
from scholarsite.inputs import cache as parsecache
from scholarsite.inputs import freshness, sqlitefile
from scholarsite.inputs.records import SeedParse, SeedRecord, identity_of
from scholarsite.inputs.seeds import parse_seed
from scholarsite.inputs.unicode import strip_ignorable

from .conftest import make_project


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Paths parsed for real (cache misses)."""
    parsed: list[str] = []
    real = parsecache.parse_seed

    def counting(data: bytes, path: str, *, latest_year: int, **how: Any):
        parsed.append(path)
        return real(data, path, latest_year=latest_year, **how)

    monkeypatch.setattr(parsecache, "parse_seed", counting)
    return parsed


CACHE = ".scholarsite-cache/parses.sqlite"
SEED = "seeds/000_428d720ed8b996c5.txt"


def test_unchanged_seeds_are_not_parsed_again(tmp_path: Path, counted: list[str]) -> None:
    project = make_project(tmp_path / "p")
    pipeline.build(project)
    assert len(counted) == 2
    assert (project / CACHE).is_file()
    pipeline.build(project)
    assert len(counted) == 2
    seed = project / SEED
    seed.write_text(
        seed.read_text(encoding="utf-8").replace("Mesh-Attention", "Mesh Attention"), encoding="utf-8"
    )
    pipeline.build(project)
    assert counted[2:] == [SEED]


def kept_parses(project: Path) -> dict[str, SeedParse]:
    """The parses a new process's cache gives of the project's seeds as they are."""
    seeds = sorted(f"seeds/{path.name}" for path in (project / "seeds").glob("*.txt"))
    digests = {path: hashlib.sha256((project / path).read_bytes()).digest() for path in seeds}
    return parsecache.ParseCache(project).reused(seeds, digests, freshness.latest_possible_year())


def test_a_seed_s_records_are_read_only_when_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kept seed's number and lines come from its head; the first record asked for by place
    is read alone (a kept paper's texts), the whole list once, when another is asked for."""
    project = make_project(tmp_path / "p")
    pipeline.build(project)
    asked: list[str] = []
    for name in ("records_of", "record_at"):
        real = getattr(parsecache.ParseCache, name)
        counting = lambda cache, *args, name=name, real=real: asked.append(name) or real(cache, *args)  # noqa: E731
        monkeypatch.setattr(parsecache.ParseCache, name, counting)
    kept = kept_parses(project)
    author = kept[SEED].author
    assert author is not None and len(author.records) == len(author.lines) > 1 and asked == []
    parsed = parse_seed((project / SEED).read_bytes(), SEED, latest_year=freshness.latest_possible_year())
    last = len(author.lines) - 1
    assert author.records[-1] is author.records[last] and asked == ["record_at"]  # one place, read once
    assert author.records[1] == parsed.author.records[1] and asked == ["record_at", "records_of"]  # type: ignore[union-attr]
    assert kept[SEED] == parsed and author.records[0] == parsed.author.records[0]  # type: ignore[union-attr]
    assert asked == ["record_at", "records_of"]  # another place: all at once, and only once


def test_damaged_cache_is_rebuilt(tmp_path: Path, counted: list[str]) -> None:
    project = make_project(tmp_path / "p")
    (project / CACHE).parent.mkdir(parents=True)
    (project / CACHE).write_bytes(b"not a database")
    result = pipeline.build(project)
    assert result.report.written and len(counted) == 2
    assert any("parse cache" in d.message for d in result.diagnostics)
    again = pipeline.build(project)
    assert len(counted) == 2 and not any("parse cache" in d.message for d in again.diagnostics)


def test_new_code_version_invalidates(
    tmp_path: Path, counted: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(tmp_path / "p")
    pipeline.build(project)
    monkeypatch.setattr(sqlitefile, "code_version", lambda: "another-version")
    monkeypatch.setattr(freshness, "code_version", lambda: "another-version")
    result = pipeline.build(project)
    assert len(counted) == 4 and not any("parse cache" in d.message for d in result.diagnostics)


def test_cache_keeps_only_what_the_last_build_used(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    pipeline.build(project)
    (project / "seeds/001_195b1e5c39d23b83.txt").unlink()
    pipeline.build(project)
    with sqlite3.connect(project / CACHE) as db:
        for table in ("heads", "records"):
            keys = [key.split("\0")[0] for (key,) in db.execute(f"SELECT DISTINCT key FROM {table}")]
            assert keys == [SEED]


PAYLOAD = b"cos\nsystem\n(S'touch /tmp/scholarsite-pwned'\ntR."


def planted(project: Path, table: str, value: bytes, key: str = "") -> None:
    """Replace the values of `table` (heads or records; or only the rows of `key`) in the
    project's cache."""
    with sqlite3.connect(project / CACHE) as db:
        db.execute(
            f"UPDATE {table} SET {table[:-1]} = ?" + (" WHERE key LIKE ?" if key else ""),
            (value, f"{key}%") if key else (value,),
        )


def touched(project: Path) -> None:
    """Change an input that is not a seed (the next build is not skipped)."""
    with (project / "site.yaml").open("a", encoding="utf-8") as settings:
        settings.write("# touched\n")


@pytest.mark.parametrize(
    "head",
    [PAYLOAD, b"[5, []]", b'[["Ada", 1, null, false, ["x"]], []]', b"{}", b"[" * 100_000],
)
def test_a_planted_head_is_data_never_code(tmp_path: Path, counted: list[str], head: bytes) -> None:
    Path("/tmp/scholarsite-pwned").unlink(missing_ok=True)
    project = make_project(tmp_path / "p")
    clean = pipeline.build(project)
    planted(project, "heads", head, SEED)
    (project / ".scholarsite-cache/seeds.pickle").write_bytes(PAYLOAD)  # an old cache is never read
    touched(project)
    result = pipeline.build(project)
    assert not Path("/tmp/scholarsite-pwned").exists()
    assert counted[2:] == sorted({SEED, "seeds/001_195b1e5c39d23b83.txt"})  # thrown away whole
    assert any("parse cache" in d.message for d in result.diagnostics) and clean.report.written
    again = pipeline.build(project)
    assert not any("parse cache" in d.message for d in again.diagnostics) and len(counted) == 4


@pytest.mark.parametrize("records", [PAYLOAD, b"[]", b"[[1]]", b"{}", b"[" * 100_000])
def test_planted_records_are_parsed_again_from_their_seed(tmp_path: Path, records: bytes) -> None:
    project = make_project(tmp_path / "p")
    pipeline.build(project)
    planted(project, "records", records)
    touched(project)
    assert pipeline.build(project).report.written == ()  # the pages made of them are the same
    parsed = parse_seed((project / SEED).read_bytes(), SEED, latest_year=freshness.latest_possible_year())
    assert tuple(kept_parses(project)[SEED].author.records) == parsed.author.records  # type: ignore[union-attr]


def test_a_seed_changed_before_its_records_are_read_is_an_error_not_another_seed_s_records(
    tmp_path: Path,
) -> None:
    project = make_project(tmp_path / "p")
    pipeline.build(project)
    planted(project, "records", b"[]")  # read again from the file...
    kept = kept_parses(project)
    seed = project / SEED
    seed.write_text(
        seed.read_text(encoding="utf-8").replace("Mesh-Attention", "Mesh Attention")
    )  # ...changed
    with pytest.raises(BuildError) as raised:
        tuple(kept[SEED].author.records)  # type: ignore[union-attr]
    assert raised.value.diagnostics[0].path == SEED and "changed" in raised.value.diagnostics[0].message


def test_the_shards_of_the_layouts_before_are_removed_at_the_next_write(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    for folder in ("seeds", "derived"):
        (project / ".scholarsite-cache" / folder).mkdir(parents=True)
        (project / ".scholarsite-cache" / folder / "07.json").write_text('{"entries": {}}')
        (project / ".scholarsite-cache" / folder / "3ff.json").write_text('{"entries": {}}')
    (project / ".scholarsite-cache/derived/notes.json").write_text("{}")  # not a shard: kept
    pipeline.build(project)
    cache = project / ".scholarsite-cache"
    assert [path.name for path in (cache / "derived").iterdir()] == ["notes.json"]
    assert not (project / ".scholarsite-cache/seeds").exists()


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

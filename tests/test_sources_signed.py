"""sources.yaml's entries kept signed (issue 28.3): with the user's key, an unchanged file's
entries come from `.scholarsite-cache/sources.signed` unchecked, equal to the file's field for
field; a cache damaged, planted, signed by another key, or of other bytes or code is a miss,
never a crash or other entries; the key is the user's, made once, outside the project."""

from __future__ import annotations

import hashlib
import marshal
import os
import stat
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from scholarsite import pipeline
from scholarsite.inputs import sources_cache, sources_signed, userkey
from scholarsite.inputs.digests import key_of
from scholarsite.inputs.openalex_part import Impact
from scholarsite.inputs.paperlinks import Link
from scholarsite.inputs.sources import SOURCES_FILE, SourceEntry, Sources, dump_sources, read_sources
from scholarsite.inputs.sources_cache import SOURCES_CACHE, read_sources_kept
from scholarsite.inputs.sources_signed import MAGIC, keep_signed
from scholarsite.inputs.store import replaced_atomically
from scholarsite.inputs.userkey import signed, signed_body, write_signed

from .conftest import make_project
from .test_sources_cache import ENTRIES, unparsed
from .test_sources_yaml import HOSTILE, full_entry

SIGNED = SOURCES_CACHE.with_suffix(".signed")


def project_with(tmp_path: Path, entries: dict[str, SourceEntry]) -> Path:
    """A folder with a sources.yaml of `entries`."""
    (tmp_path / SOURCES_FILE).write_text(dump_sources(entries), encoding="utf-8")
    return tmp_path


def file_digest(root: Path) -> bytes:
    """The sha256 of the project's sources.yaml, as the build's look gives it."""
    return hashlib.sha256((root / SOURCES_FILE).read_bytes()).digest()


def unread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any read of sources.yaml's bytes fail the test."""

    def refuse(root: Path) -> None:
        raise AssertionError("sources.yaml was read")

    monkeypatch.setattr(sources_cache, "sources_bytes", refuse)


def parts_of(entry: SourceEntry) -> list[object]:
    """An entry's OpenAlex part, candidates and links."""
    return [part for part in (entry.openalex, *entry.candidates, *entry.links) if part is not None]


def test_a_cache_hit_is_the_file_read_field_for_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = {
        **ENTRIES,
        **{f"2025/{n}": full_entry(n, title) for n, title in enumerate(HOSTILE)},
        "2025/plain": SourceEntry("found"),
        "2025/locked": replace(full_entry(99), locked=True, version=2**70, openalex=Impact("not-found")),
    }
    root = project_with(tmp_path, entries)
    first, problems = read_sources_kept(root, root / SOURCES_CACHE)
    assert not problems and (root / SIGNED).is_file() and not (root / SOURCES_CACHE).exists()
    expected = read_sources(root)[0]
    unparsed(monkeypatch)
    kept, problems = read_sources_kept(root, root / SOURCES_CACHE)
    assert not problems and kept == first == expected and kept.lines == expected.lines
    for key, entry in expected.entries.items():
        again = kept.entries[key]
        assert hash(again) == hash(entry) and repr(again) == repr(entry) and key_of(again) == key_of(entry)
        assert list(vars(again)) == list(vars(entry))
        for part, original in zip(parts_of(again), parts_of(entry), strict=True):
            assert type(part) is type(original) and list(vars(part)) == list(vars(original))
        with pytest.raises(AttributeError):
            again.title = "changed"  # type: ignore[misc]


def test_with_the_looks_digest_an_unchanged_file_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project_with(tmp_path, ENTRIES)
    first, _ = read_sources_kept(root, root / SOURCES_CACHE)
    known = file_digest(root)
    unread(monkeypatch)
    kept, problems = read_sources_kept(root, root / SOURCES_CACHE, known)
    assert not problems and kept == first


def test_a_changed_file_is_read_again(tmp_path: Path) -> None:
    root = project_with(tmp_path, ENTRIES)
    read_sources_kept(root, root / SOURCES_CACHE)
    project_with(tmp_path, {"2024/another": ENTRIES["2024/another"]})
    for known in (None, file_digest(root)):
        changed, _ = read_sources_kept(root, root / SOURCES_CACHE, known)
        assert list(changed.entries) == ["2024/another"]


def damaged(body: bytes) -> list[bytes]:
    """A signed cache's bytes made wrong in a few ways."""
    flipped = bytearray(body)
    flipped[len(body) // 2] ^= 1
    signature = bytearray(body)
    signature[len(MAGIC)] ^= 1
    return [
        b"",
        b"junk",
        body[:-1],
        body[: len(MAGIC) + 10],
        bytes(flipped),
        bytes(signature),
        b"x" + body[1:],
    ]


def test_a_damaged_cache_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Truncated, a byte changed in the body or the signature, another magic: the file is read
    and the cache written again; `marshal` never reads bytes whose signature fails."""
    root = project_with(tmp_path, ENTRIES)
    expected, _ = read_sources_kept(root, root / SOURCES_CACHE)
    good = (root / SIGNED).read_bytes()
    loads = marshal.loads
    with monkeypatch.context() as patched:
        patched.setattr(sources_signed.marshal, "loads", lambda data: pytest.fail("unsigned bytes loaded"))
        for wrong in damaged(good):
            for known in (None, file_digest(root)):
                (root / SIGNED).write_bytes(wrong)
                read, problems = read_sources_kept(root, root / SOURCES_CACHE, known)
                assert not problems and read == expected
    assert sources_signed.marshal.loads is loads
    unparsed(monkeypatch)  # the cache was written again
    assert read_sources_kept(root, root / SOURCES_CACHE)[0] == expected


def planted(root: Path, key: bytes, sources: Sources) -> None:
    """A signed cache of `sources` for the project's sources.yaml, signed by `key`."""
    keep_signed(root / SIGNED, file_digest(root).hex(), sources, key)


def test_a_cache_signed_by_another_key_is_not_used(tmp_path: Path) -> None:
    """A planted cache (a link to `javascript:` the file could not hold) signed by any key but
    the user's is not used."""
    root = project_with(tmp_path, ENTRIES)
    evil = replace(ENTRIES["2025/a paper"], links=(Link("code", "javascript:alert(1)"),))
    for key in (b"\0" * userkey.KEY_BYTES, os.urandom(userkey.KEY_BYTES), b""):
        planted(root, key, Sources({**ENTRIES, "2025/a paper": evil}))
        read, problems = read_sources_kept(root, root / SOURCES_CACHE, file_digest(root))
        assert not problems and read.entries == ENTRIES


def test_a_cache_of_other_code_or_bytes_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project_with(tmp_path, ENTRIES)
    key = userkey.user_key()
    assert key is not None
    other = Sources({"2024/another": ENTRIES["2024/another"]})
    keep_signed(root / SIGNED, "0" * 64, other, key)  # for other bytes
    assert read_sources_kept(root, root / SOURCES_CACHE)[0].entries == ENTRIES
    with monkeypatch.context() as patched:
        patched.setattr(sources_signed, "code_version", lambda: "another version")
        planted(root, key, other)
    assert read_sources_kept(root, root / SOURCES_CACHE, file_digest(root))[0].entries == ENTRIES
    body = marshal.dumps(("another layout",))  # signed, but not what this code writes
    (root / SIGNED).write_bytes(signed(key, MAGIC, body))
    assert read_sources_kept(root, root / SOURCES_CACHE, file_digest(root))[0].entries == ENTRIES


def test_a_file_with_problems_is_never_kept(tmp_path: Path) -> None:
    (tmp_path / SOURCES_FILE).write_text("papers:\n  2025/x:\n    status: maybe\n", encoding="utf-8")
    for _ in range(2):
        read, problems = read_sources_kept(tmp_path, tmp_path / SOURCES_CACHE)
        assert not read.entries and [p.line for p in problems] == [2]
    assert not (tmp_path / SIGNED).exists()


def test_a_build_keeps_the_entries_signed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build keeps them; the next, after another file changed, loads them by the look's
    digest without reading sources.yaml."""
    root = make_project(tmp_path)
    (root / SOURCES_FILE).write_text(dump_sources(ENTRIES), encoding="utf-8")
    pipeline.build(root)
    assert (root / SIGNED).is_file()
    (root / "site.yaml").write_text((root / "site.yaml").read_text() + "\n# changed\n", encoding="utf-8")
    loaded: list[Sources | None] = []
    load = sources_cache.signed_sources
    monkeypatch.setattr(
        sources_cache, "signed_sources", lambda *args: loaded.append(load(*args)) or loaded[-1]
    )
    unread(monkeypatch)
    pipeline.build(root)
    assert [kept.entries if kept else None for kept in loaded] == [ENTRIES]


def test_the_key_is_made_once_for_the_user_alone(tmp_path: Path) -> None:
    folder = tmp_path / "user" / "scholarsite"
    key = userkey.key_in(folder)
    assert key is not None and len(key) == userkey.KEY_BYTES
    userkey.key_in.cache_clear()
    assert userkey.key_in(folder) == key and os.listdir(folder) == [userkey.KEY_FILE]
    assert stat.S_IMODE((folder / userkey.KEY_FILE).stat().st_mode) == 0o600


def test_a_body_written_in_pieces_is_signed_as_one(tmp_path: Path) -> None:
    """`write_signed` writes the bytes `signed` makes of the pieces joined, the signature first."""
    key, pieces = b"k" * userkey.KEY_BYTES, [b'{"a":1}', b"\n", b"", b"[2,3]", b"x" * 2**20, b"\n", b"y"]
    path = tmp_path / "model.signed"
    with replaced_atomically(path) as handle:
        write_signed(handle, key, MAGIC, iter(pieces))
    assert path.read_bytes() == signed(key, MAGIC, b"".join(pieces))
    assert signed_body(path.read_bytes(), key, MAGIC) == b"".join(pieces)


def test_pieces_are_joined_into_chunks_of_a_size() -> None:
    pieces = [b"ab", b"c", b"", b"defg", b"h"]
    assert list(userkey.chunks_of(pieces, 3)) == [b"abc", b"defg", b"h"]
    assert list(userkey.chunks_of([], 3)) == []


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "model.signed"
    path.write_bytes(b"old")

    def failing() -> Iterator[bytes]:
        yield b"new, then "
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"), replaced_atomically(path) as handle:
        write_signed(handle, b"k" * userkey.KEY_BYTES, MAGIC, failing())
    assert path.read_bytes() == b"old" and os.listdir(tmp_path) == ["model.signed"]


def test_without_a_key_the_json_cache_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A key that cannot be made (a file where its folder would be) or is no key (another
    length): no key, and the checked JSON cache instead."""
    (tmp_path / "blocked").write_text("a file")
    (tmp_path / "short").mkdir()
    (tmp_path / "short" / userkey.KEY_FILE).write_bytes(b"short")
    for folder in (tmp_path / "blocked" / "scholarsite", tmp_path / "short"):
        assert userkey.key_in(folder) is None
    monkeypatch.setattr(userkey, "key_folder", lambda: tmp_path / "short")
    (tmp_path / "project").mkdir()
    root = project_with(tmp_path / "project", ENTRIES)
    read, problems = read_sources_kept(root, root / SOURCES_CACHE)
    assert not problems and read.entries == ENTRIES
    assert (root / SOURCES_CACHE).is_file() and not (root / SIGNED).exists()


def test_no_key_is_made_for_a_project_without_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(userkey, "key_folder", lambda: tmp_path / "user")
    (tmp_path / "project").mkdir()
    read, problems = read_sources_kept(tmp_path / "project", tmp_path / "project" / SOURCES_CACHE)
    assert not read.entries and not problems and not (tmp_path / "user").exists()
    root = project_with(tmp_path / "project", ENTRIES)
    assert read_sources_kept(root, root / SOURCES_CACHE)[0].entries == ENTRIES
    assert (tmp_path / "user" / userkey.KEY_FILE).is_file() and (root / SIGNED).is_file()

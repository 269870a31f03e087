"""Tests for scholarsite.write: incremental, atomic, ownership-aware site sync."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scholarsite import pipeline, write
from scholarsite.errors import BuildError
from scholarsite.outputs.registry import LEGACY_STATS, Output, fixed
from scholarsite.write import (
    MANIFEST,
    CorruptManifest,
    ForeignFileConflict,
    SyncReport,
    WriteConflict,
    produce,
    repair,
    statsrecord,
    survey,
    switch,
)
from scholarsite.write.manifest import UNRECORDED, read_manifest
from scholarsite.write.objecttext import PIECE, object_bytes, object_pieces
from scholarsite.write.produce import HandedOnce, same_file
from tests.conftest import FIXTURES, make_project

REPO = Path(__file__).resolve().parents[1]


def sync(outputs: dict[str, bytes], site: Path, **options: object) -> SyncReport:
    """Sync outputs whose bytes are known (each keyed by its digest)."""
    return write.sync([fixed(path, data) for path, data in outputs.items()], site, **options)  # type: ignore[arg-type]


OUTPUTS = {
    "index.html": b"<h1>home</h1>",
    "authors/ziheng-jiang/index.html": b"<h1>Ziheng</h1>",
    "authors/ada-lovelace/index.html": b"<h1>Ada</h1>",
    "papers/2024/tvm/index.html": b"<h1>TVM</h1>",
    "assets/style.css": b"body{}",
}


def snapshot(site: Path) -> dict[str, tuple[int, bytes]]:
    """Every file and folder under ``site`` with its mtime_ns and content."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(site):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            data = b"" if path.is_dir() else path.read_bytes()
            found[path.relative_to(site).as_posix()] = (path.lstat().st_mtime_ns, data)
    return found


def files_on_disk(site: Path) -> set[str]:
    """Relative paths of every non-folder under ``site``."""
    return {p.relative_to(site).as_posix() for p in site.rglob("*") if not p.is_dir()}


def site_files(site: Path) -> dict[str, bytes]:
    """What a web server serving ``site`` would see (the build's own files aside)."""
    own = {MANIFEST, write.JOURNAL, write.STATS}
    return {
        rel: (site / rel).read_bytes()
        for rel in files_on_disk(site)
        if rel not in own and not rel.startswith(write.STAGING + "/") and ".tmp-" not in rel
    }


def test_first_sync_writes_everything(tmp_path: Path) -> None:
    site = tmp_path / "deep" / "site"
    report = sync(OUTPUTS, site)
    assert report.written == tuple(sorted(OUTPUTS))
    assert report.unchanged == report.removed == report.foreign == ()
    for rel, data in OUTPUTS.items():
        assert (site / rel).read_bytes() == data
    manifest = json.loads((site / MANIFEST).read_bytes())
    assert sorted(manifest["files"]) == sorted(OUTPUTS)


def test_second_sync_writes_nothing_and_keeps_mtimes(tmp_path: Path) -> None:
    site = tmp_path / "site"
    sync(OUTPUTS, site)
    before, root_mtime = snapshot(site), site.stat().st_mtime_ns
    time.sleep(0.01)
    report = sync(dict(OUTPUTS), site)
    assert report.written == () and report.removed == ()
    assert report.unchanged == tuple(sorted(OUTPUTS))
    assert snapshot(site) == before
    assert site.stat().st_mtime_ns == root_mtime


def test_only_changed_file_is_written(tmp_path: Path) -> None:
    site = tmp_path / "site"
    sync(OUTPUTS, site)
    before = snapshot(site)
    changed = dict(OUTPUTS, **{"assets/style.css": b"body{color:red}"})
    report = sync(changed, site)
    assert report.written == ("assets/style.css",)
    after = snapshot(site)
    assert after["assets/style.css"][1] == b"body{color:red}"
    for rel in OUTPUTS:
        if rel != "assets/style.css":
            assert after[rel] == before[rel]
    recorded = json.loads(after[MANIFEST][1])["files"]["assets/style.css"]
    assert recorded[1] == hashlib.sha256(b"body{color:red}").hexdigest()


def test_same_size_change_is_detected(tmp_path: Path) -> None:
    site = tmp_path / "site"
    sync(OUTPUTS, site)
    report = sync(dict(OUTPUTS, **{"index.html": b"<h1>HOME</h1>"}), site)
    assert report.written == ("index.html",)
    assert (site / "index.html").read_bytes() == b"<h1>HOME</h1>"


def test_dropped_output_is_removed_and_empty_folders_pruned(tmp_path: Path) -> None:
    site = tmp_path / "site"
    sync(OUTPUTS, site)
    fewer = {k: v for k, v in OUTPUTS.items() if not k.startswith("papers/")}
    report = sync(fewer, site)
    assert report.removed == ("papers/2024/tvm/index.html",)
    assert not (site / "papers").exists()
    assert sorted(json.loads((site / MANIFEST).read_bytes())["files"]) == sorted(fewer)
    report = sync({}, site)
    assert len(report.removed) == len(fewer)
    assert site.is_dir() and os.listdir(site) == [MANIFEST]


def test_hand_placed_file_survives_and_is_reported(tmp_path: Path) -> None:
    site = tmp_path / "site"
    sync(OUTPUTS, site)
    (site / "authors" / "notes.txt").write_bytes(b"mine")
    (site / "CNAME").write_bytes(b"example.org")
    fewer = {k: v for k, v in OUTPUTS.items() if not k.startswith("authors/")}
    report = sync(fewer, site)
    assert report.foreign == ("CNAME", "authors/notes.txt")
    assert (site / "authors" / "notes.txt").read_bytes() == b"mine"
    assert not (site / "authors" / "ada-lovelace").exists()
    assert report.summary(0.5).endswith("in 0.50 s, 2 not produced by the build")


@pytest.mark.parametrize(
    "hand_placed, wanted",
    [
        ("index.html", "index.html"),  # a file where a file must go
        ("papers", "papers/2024/tvm/index.html"),  # a file where a folder must go
        ("index.html/keep.txt", "index.html"),  # a folder holding a foreign file
    ],
)
def test_foreign_conflict_raises_before_writing(tmp_path: Path, hand_placed: str, wanted: str) -> None:
    site = tmp_path / "site"
    (site / hand_placed).parent.mkdir(parents=True)
    (site / hand_placed).write_bytes(b"hand made")
    (site / ".tmp-leftover").write_bytes(b"x")
    before = snapshot(site)
    with pytest.raises(ForeignFileConflict) as caught:
        sync(OUTPUTS, site)
    assert caught.value.path == hand_placed and hand_placed in str(caught.value)
    assert isinstance(caught.value, WriteConflict)
    assert snapshot(site) == before


def test_identical_hand_placed_file_is_adopted(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_bytes(OUTPUTS["index.html"])
    report = sync(OUTPUTS, site)
    assert "index.html" in report.unchanged and report.foreign == ()


@pytest.mark.parametrize(
    "bad",
    [
        "../x",
        "/etc/x",
        "a/../../b",
        "a\\b",
        "",
        "a//b",
        "a/",
        "./a",
        "a\0b",
        MANIFEST,
        f"{MANIFEST}/x",
        "assets/.tmp-x",
        ".tmp-y",
    ],
)
def test_invalid_paths_rejected_before_writing(tmp_path: Path, bad: str) -> None:
    site = tmp_path / "site"
    outputs = dict(OUTPUTS, **{bad: b"evil"})
    with pytest.raises(ValueError) as caught:
        sync(outputs, site)
    assert repr(bad) in str(caught.value)
    assert not site.exists() and not (tmp_path / "x").exists()


def test_output_that_is_also_a_folder_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="'a'"):
        sync({"a": b"1", "a/b": b"2"}, tmp_path / "site")
    assert not (tmp_path / "site").exists()


def test_non_bytes_rejected(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="index.html"):
        sync({"index.html": "text"}, tmp_path / "site")  # type: ignore[dict-item]


def test_owned_file_and_folder_swap_places(tmp_path: Path) -> None:
    site = tmp_path / "site"
    sync({"a": b"file", "x/y/z": b"deep"}, site)
    report = sync({"a/b": b"now a folder", "x": b"now a file"}, site)
    assert set(report.removed) == {"a", "x/y/z"}
    assert (site / "a" / "b").read_bytes() == b"now a folder"
    assert (site / "x").read_bytes() == b"now a file"
    sync({"a": b"file again"}, site)
    assert (site / "a").read_bytes() == b"file again"
    assert files_on_disk(site) == {"a", MANIFEST, write.STATS}


def test_never_writes_through_symlink(tmp_path: Path) -> None:
    site, outside = tmp_path / "site", tmp_path / "outside"
    outside.mkdir()
    site.mkdir()
    (site / "papers").symlink_to(outside, target_is_directory=True)
    with pytest.raises(WriteConflict, match="symlink"):
        sync(OUTPUTS, site)
    assert list(outside.iterdir()) == [] and not (site / "index.html").exists()


def test_owned_symlink_is_replaced_not_followed(tmp_path: Path) -> None:
    site, outside = tmp_path / "site", tmp_path / "outside.html"
    outside.write_bytes(b"precious")
    sync(OUTPUTS, site)
    (site / "index.html").unlink()
    (site / "index.html").symlink_to(outside)
    assert sync(OUTPUTS, site).written == ("index.html",)
    assert not (site / "index.html").is_symlink() and outside.read_bytes() == b"precious"


def test_the_builds_own_leftover_temporary_file_is_cleaned_and_no_other(tmp_path: Path) -> None:
    """A killed build can leave its journal's temporary file at the root: it is removed. Any
    other `.tmp-` file is someone else's, so it is named and kept."""
    site = tmp_path / "site"
    sync(OUTPUTS, site)
    (site / (write.TMP_PREFIX + write.JOURNAL)).write_bytes(b"half")
    (site / ".tmp-abc").write_bytes(b"mine")
    (site / "authors" / ".tmp-def").write_bytes(b"mine too")
    report = sync(OUTPUTS, site)
    assert report.written == () and report.removed == ()
    assert report.foreign == (".tmp-abc", "authors/.tmp-def")
    assert sorted(p.name for p in site.rglob(".tmp-*")) == [".tmp-abc", ".tmp-def"]


def test_manifest_bytes_deterministic(tmp_path: Path) -> None:
    sync(OUTPUTS, tmp_path / "one")
    sync(dict(reversed(list(OUTPUTS.items()))), tmp_path / "two")
    one = (tmp_path / "one" / MANIFEST).read_bytes()
    assert one == (tmp_path / "two" / MANIFEST).read_bytes()
    assert sorted(json.loads(one)["files"]) == sorted(OUTPUTS)


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b'{"files": ["../../etc/passwd"]}',
        b'{"files": "index.html"}',
        b"[]",
    ],
)
def test_untrustworthy_manifest_refused(tmp_path: Path, content: bytes) -> None:
    site = tmp_path / "site"
    sync(OUTPUTS, site)
    (site / MANIFEST).write_bytes(content)
    before = snapshot(site)
    with pytest.raises(CorruptManifest):
        sync({}, site)
    assert snapshot(site) == before


def test_new_files_are_written_with_default_permissions(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        sync(OUTPUTS, tmp_path / "site")
    finally:
        os.umask(old)
    assert (tmp_path / "site" / "index.html").stat().st_mode & 0o777 == 0o644


def test_summary_format() -> None:
    report = SyncReport(("a",) * 12, ("b",) * 310, ("c",) * 2, ())
    assert report.summary(0.41) == "12 written, 310 unchanged, 2 removed in 0.41 s"


def test_interrupted_sync_leaves_no_stray_ownership(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    sync(OUTPUTS, site)
    real, calls = write.os.replace, []

    def dying(*args: object) -> None:
        calls.append(args)
        if len(calls) == 3:  # dirty manifest, then one page moved in, then "killed"
            raise KeyboardInterrupt
        real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(write.os, "replace", dying)
    new = dict(OUTPUTS, **{"new/a.html": b"a", "new/b.html": b"b"})
    with pytest.raises(KeyboardInterrupt):
        sync(new, site)
    monkeypatch.undo()
    report = sync(OUTPUTS, site)  # the seed that produced new/ was removed meanwhile
    assert report.foreign == () and not (site / "new").exists()
    assert files_on_disk(site) == set(OUTPUTS) | {MANIFEST, write.STATS}


# --- crash safety with SIGKILL --------------------------------------------------

BIG = 256 * 1024


def big_outputs(version: str) -> dict[str, bytes]:
    """Large outputs; "new" changes every shared page, drops some and adds others."""
    pages = range(120) if version == "old" else range(30, 150)
    fill, size = (b"o", BIG) if version == "old" else (b"n", BIG + 4096)
    if version == "final":
        pages, fill, size = range(30, 120), b"f", BIG - 4096
    return {f"pages/{i:03d}/index.html": bytes([i]) + fill * size for i in pages}


CHILD = """
import sys
from pathlib import Path
from tests.test_write import big_outputs, sync
outputs = big_outputs("new")
print("ready", flush=True)
sync(outputs, Path(sys.argv[1]))
print("done", flush=True)
"""


@pytest.mark.parametrize("delay", [0.0, 0.01, 0.03, 0.06, 0.1, 0.2, 0.4])
def test_sigkill_mid_sync_never_truncates_and_next_sync_repairs(tmp_path: Path, delay: float) -> None:
    site = tmp_path / "site"
    old, new, final = big_outputs("old"), big_outputs("new"), big_outputs("final")
    sync(old, site)
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(site)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    assert child.stdout is not None and child.stdout.readline() == b"ready\n"
    time.sleep(delay)
    child.send_signal(signal.SIGKILL)
    child.wait()
    child.stdout.close()
    for rel in files_on_disk(site) - {MANIFEST, write.JOURNAL, write.STATS}:
        if not Path(rel).name.startswith(".tmp-") and not rel.startswith(write.STAGING + "/"):
            assert (site / rel).read_bytes() in (old.get(rel), new.get(rel)), rel  # never torn
    json.loads((site / MANIFEST).read_bytes())
    write.replay(str(site))  # what the next build does first
    assert site_files(site) in (old, new)  # wholly the old site or wholly the new one
    report = sync(final, site)
    assert report.foreign == ()
    assert files_on_disk(site) == set(final) | {MANIFEST, write.STATS}
    assert all((site / rel).read_bytes() == data for rel, data in final.items())


# --- full disk, a read-only disk, site/ removed meanwhile ----------------------


def test_full_disk_while_staging_leaves_the_old_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    sync(OUTPUTS, site)
    before = snapshot(site)
    real, written = produce.write_file, []

    def filling(path: str, data: bytes, mode: int) -> None:
        written.append(path)
        if len(written) == 2:
            raise OSError(28, "No space left on device", path)
        real(path, data, mode)

    monkeypatch.setattr(produce, "write_file", filling)
    with pytest.raises(BuildError) as failure:
        sync({rel: data + b"!" for rel, data in OUTPUTS.items()}, site)
    (problem,) = failure.value.diagnostics
    assert "No space left on device" in problem.message and "site/ is unchanged" in problem.message
    assert snapshot(site) == before


def test_too_little_free_space_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    sync(OUTPUTS, site)
    before = snapshot(site)
    small = os.statvfs_result((4096, 4096, 1000, 10, 10, 1000, 10, 10, 0, 255))
    monkeypatch.setattr(write.os, "statvfs", lambda path: small)
    with pytest.raises(BuildError, match="MiB free"):
        sync({"index.html": b"changed"}, site)
    assert snapshot(site) == before


def test_site_removed_mid_build_still_gets_the_whole_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    real = switch.produce_all

    def removing(*args: object) -> produce.Result:
        import shutil

        shutil.rmtree(site)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(switch, "produce_all", removing)
    sync(OUTPUTS, site)
    assert site_files(site) == OUTPUTS


def test_a_stray_file_in_a_bundle_folder_is_kept_and_named(tmp_path: Path) -> None:
    site = tmp_path / "site"
    bundle = write.Bundle("pagefind", "k1", lambda: {"a.js": b"a", "filter/x.pf": b"x"})
    write.sync([bundle], site)
    (site / "pagefind/filter/stray.pf").write_bytes(b"put there by hand")
    report = write.sync([write.Bundle("pagefind", "k2", lambda: {"a.js": b"a", "filter/x.pf": b"y"})], site)
    assert report.removed == () and report.foreign == ("pagefind/filter/stray.pf",)
    bookkeeping = {MANIFEST, write.STATS}
    assert files_on_disk(site) == {"pagefind/a.js", "pagefind/filter/x.pf", *report.foreign, *bookkeeping}


TMPFS_SIZE = 48 * 2**20


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a small tmpfs needs root")
def test_a_really_full_disk_leaves_the_old_site(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS_SIZE}", "tmpfs", str(disk)])
    if mounted.returncode != 0:
        pytest.skip("this machine does not allow mounting a tmpfs")
    try:
        site = disk / "site"
        sync(OUTPUTS, site)
        before = snapshot(site)
        huge = {f"big/{i}.bin": bytes([i]) * 2**20 for i in range(64)}  # 64 MiB into 48 MiB
        with pytest.raises(BuildError, match="No space left on device"):
            sync({**OUTPUTS, **huge}, site)
        assert snapshot(site) == before
        assert sync({**OUTPUTS, "index.html": b"fits"}, site).written == ("index.html",)
    finally:
        subprocess.run(["umount", str(disk)], check=True)


PAGE = "papers/2024/tvm/index.html"


@pytest.mark.parametrize(
    "placed",
    [
        None,  # the page is where the last sync left it
        (PAGE, None),  # deleted by hand: made again
        (PAGE, "dir"),  # a folder in its place, holding a hand-placed file
        ("papers/2024", b"a file where a folder goes"),
        (PAGE, "link"),  # a symlink in its place
    ],
)
def test_a_sync_of_known_paths_decides_as_a_scoped_sync_of_the_whole_listing(
    tmp_path: Path, placed: tuple[str, bytes | str | None] | None
) -> None:
    """`only` (the preview's first page) looks at its paths one by one instead of listing
    site/; whatever is there, the outcome (written, refused, the site after) is the scoped
    sync's that lists everything."""
    outcomes = []
    for name, options in (("listed", {"scope": lambda path: path == PAGE}), ("looked", {"only": {PAGE}})):
        site = tmp_path / name
        sync(OUTPUTS, site)
        if placed is not None:
            where, what = placed
            target = site / where
            if target.is_dir():
                shutil.rmtree(target)
            else:
                target.unlink()
            if what == "dir":
                target.mkdir()
                (target / "mine.txt").write_bytes(b"mine")
            elif what == "link":
                target.symlink_to(site / "index.html")
            elif isinstance(what, bytes):
                target.write_bytes(what)
        try:
            report = sync({PAGE: b"<h1>TVM, edited</h1>"}, site, **options)
            outcome: object = (report.written, report.unchanged, report.removed)
        except ForeignFileConflict as exc:
            outcome = exc.path
        files = {
            p: v[1] for p, v in snapshot(site).items() if p not in (write.STATS, MANIFEST)
        }  # stats: inodes
        outcomes.append((outcome, files, read_manifest(str(site))))  # as this process's next sync reads it
    assert outcomes[0] == outcomes[1]


def test_pages_written_in_place_are_recorded_by_the_next_sync_or_made_again_after_a_crash(
    tmp_path: Path,
) -> None:
    """The preview's first page is written over in place and its manifest entry left to the
    next sync of the process: that sync records it without writing it again. A process ended
    before then leaves the page's bytes unlike the manifest's: the site is not taken as
    intact, and the next build makes the page again."""
    changed = {**OUTPUTS, PAGE: b"<h1>TVM, retitled</h1>"}
    for crash in (False, True):
        site = tmp_path / f"crash-{crash}"
        sync(OUTPUTS, site, inputs="before")
        manifest = (site / MANIFEST).read_bytes()
        assert sync({PAGE: changed[PAGE]}, site, only={PAGE}).written == (PAGE,)
        assert (site / MANIFEST).read_bytes() == manifest and site_files(site) == changed
        assert write.unchanged(site, "before") is None  # in this process: a page not recorded
        if crash:
            UNRECORDED.clear()
            assert write.unchanged(site, "before") is None  # in the next: a page damaged
        report = sync(changed, site, inputs="after")
        assert report.written == ((PAGE,) if crash else ())
        assert site_files(site) == changed and write.unchanged(site, "after") is not None


def test_a_page_damaged_after_a_sync_of_known_paths_is_written_again(tmp_path: Path) -> None:
    """A sync of a few known paths (the preview's first page) does not record the stats of what
    it wrote; the next sync finds that page damaged all the same, and writes it again."""
    site = tmp_path / "site"
    sync(OUTPUTS, site)
    page = "papers/2024/tvm/index.html"
    changed = {**OUTPUTS, page: b"<h1>TVM, retitled</h1>"}
    sync({page: changed[page]}, site, only={page})
    (site / page).write_bytes(b"<h1>TVM, tampered</h1>")  # the same size: only its bytes tell
    report = sync(changed, site)
    assert report.written == (page,)
    assert site_files(site) == changed


MEMBER_VALUES = st.lists(st.one_of(st.text(max_size=8), st.integers(-(2**63), 2**63)), max_size=5)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.text(min_size=1, max_size=12), MEMBER_VALUES, max_size=20),
    st.integers(min_value=1, max_value=6),
)
def test_object_bytes_are_what_json_writes(members: dict[str, list[str | int]], size: int) -> None:
    """The manifest is written by orjson where that gives the bytes of `json.dumps` (names and
    values in printable ASCII), by `json` otherwise: the same bytes either way (control
    characters, non-ASCII names, integers past 64 bits), whole or in pieces of any size."""
    expected = json.dumps(members, separators=(",", ":"), sort_keys=True).encode()
    assert object_bytes(members) == expected
    assert b"".join(object_pieces(members, size)) == expected


def test_object_bytes_of_a_site_sized_manifest_are_what_json_writes() -> None:
    """A hundred thousand members of hex keys and paths, as a large site's manifest has, in
    pieces of `PIECE` members."""
    members = {f"papers/{n % 97}/p-{n}/index.html": (f"{n:064x}", f"{n * 7:064x}") for n in range(100_000)}
    pieces = list(object_pieces(members))
    assert len(pieces) == 2 + -(-len(members) // PIECE)
    assert b"".join(pieces) == json.dumps(members, separators=(",", ":"), sort_keys=True).encode()


def test_same_file_compares_the_pieces_as_they_come(tmp_path: Path) -> None:
    """Equal bytes in any cut; a file longer, shorter or different, a folder, a link to the same
    bytes or none at all is not the same file."""
    (tmp_path / "file").write_bytes(b"abcdef")
    (tmp_path / "link").symlink_to("file")
    (tmp_path / "folder").mkdir()
    assert same_file(str(tmp_path / "file"), [b"ab", b"", b"cdef"])
    for pieces in ([b"abcde"], [b"abcdef", b"g"], [b"abc", b"xef"], []):
        assert not same_file(str(tmp_path / "file"), pieces)
    for other in ("link", "folder", "missing"):
        assert not same_file(str(tmp_path / other), [b"abcdef"])


def test_a_bundle_made_in_another_process_is_handed_over_once() -> None:
    """Its files are not held once taken (the sync writes them): a second taking is a bug."""
    future: Future[dict[str, bytes]] = Future()
    future.set_result({"pagefind.js": b"js"})
    handed = HandedOnce(future)
    assert handed() == {"pagefind.js": b"js"}
    assert handed.future is None
    with pytest.raises(RuntimeError, match="handed over once"):
        handed()


def test_a_bundle_whose_files_arrived_is_staged_before_the_pages_are_made(tmp_path: Path) -> None:
    """Its files are not held while the pages are made (the highest point of a build that adds
    a seed); one still being made is waited for after them."""
    arrived: Future[dict[str, bytes]] = Future()
    arrived.set_result({"a.js": b"a"})
    pending: Future[dict[str, bytes]] = Future()
    handed, waiting = HandedOnce(arrived), HandedOnce(pending)
    seen: list[tuple[bool, bool]] = []

    def page() -> bytes:
        seen.append((handed.future is None, waiting.future is None))
        pending.set_result({"b.js": b"b"})  # arrives while the pages are made
        return b"page"

    bundles = [write.Bundle("search", "k1", handed), write.Bundle("other", "k2", waiting)]
    report = write.sync([*bundles, Output("index.html", "p", page)], tmp_path / "site")
    assert seen == [(True, False)]
    assert report.written == ("index.html", "other/b.js", "search/a.js")
    assert waiting.future is None


def surveyed(site: Path) -> Future[survey.Survey | None]:
    """A survey of `site` made now, as `survey.start` hands it to the sync."""
    future: Future[survey.Survey | None] = Future()
    future.set_result(survey.survey(str(site.resolve())))
    return future


def test_a_sync_takes_the_survey_made_before_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    sync(OUTPUTS, site)
    (site / "index.html").write_bytes(b"<h1>changed by hand</h1>")
    (site / "papers/2024/tvm/index.html").unlink()
    (site / "notes.txt").write_bytes(b"mine")
    found = surveyed(site)
    monkeypatch.setattr(switch, "scan", lambda root: pytest.fail("the sync listed site/ again"))
    report = sync(OUTPUTS, site, surveyed=found)
    assert sorted(report.written) == ["index.html", "papers/2024/tvm/index.html"]
    assert report.foreign == ("notes.txt",)
    assert {path: (site / path).read_bytes() for path in OUTPUTS} == OUTPUTS


def test_a_sync_leaves_its_listing_to_the_next(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The listing a sync leaves once it has switched (files written and removed, folders
    pruned) is what a listing of site/ finds then; the next sync, of another scope, takes it
    instead of listing site/ again, and still checks the files of its scope."""
    site = tmp_path / "site"
    sync({**OUTPUTS, "search/a.js": b"a", "old/deep/x.html": b"x"}, site)
    (site / "notes.txt").write_bytes(b"mine")
    (site / "search/a.js").write_bytes(b"damaged")
    left: list[survey.Survey] = []
    pages = {**OUTPUTS, "index.html": b"<h1>home, again</h1>", "new/y.html": b"y"}
    report = sync(pages, site, scope=lambda path: not path.startswith("search/"), leave=left.append)
    assert report.removed == ("old/deep/x.html",) and not (site / "old").exists()
    (listing,) = left
    assert listing.disk == switch.scan(str(site.resolve())) and listing.damaged is None
    monkeypatch.setattr(switch, "scan", lambda root: pytest.fail("the sync listed site/ again"))
    found = sync({"search/a.js": b"a"}, site, scope=lambda path: path.startswith("search/"), surveyed=listing)
    assert found.written == ("search/a.js",) and found.foreign == ()
    assert (site / "search/a.js").read_bytes() == b"a"


def test_a_survey_the_site_has_moved_on_from_is_not_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    sync(OUTPUTS, site)
    stale = surveyed(site)
    sync({**OUTPUTS, "extra.html": b"<p>new</p>"}, site)  # another sync: a new manifest
    listed: list[str] = []
    real_scan = switch.scan
    monkeypatch.setattr(switch, "scan", lambda root: listed.append(root) or real_scan(root))
    report = sync(OUTPUTS, site, surveyed=stale)
    assert listed and report.removed == ("extra.html",) and not (site / "extra.html").exists()


def test_a_survey_whose_process_died_leaves_the_sync_to_look_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    sync(OUTPUTS, site)
    (site / "index.html").write_bytes(b"damaged")
    died: Future[survey.Survey | None] = Future()
    died.set_exception(BrokenProcessPool("killed"))
    listed: list[str] = []
    real_scan = switch.scan
    monkeypatch.setattr(switch, "scan", lambda root: listed.append(root) or real_scan(root))
    assert sync(OUTPUTS, site, surveyed=died).written == ("index.html",) and listed


def test_no_survey_while_a_switch_waits_to_be_replayed(tmp_path: Path) -> None:
    site = tmp_path / "site"
    sync(OUTPUTS, site)
    (site / write.JOURNAL).write_text('{"early": [], "moves": [], "late": [], "prune": []}')
    assert survey.survey(str(site)) is None
    assert survey.start(tmp_path / "nothing-built-yet") is None


def test_a_one_shot_build_repairs_what_its_survey_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project(tmp_path / "project", FIXTURES / "golden-project" / "seeds")
    pipeline.build(root, workers=2)
    page = next((root / "site" / "authors").glob("*/index.html"))
    whole = page.read_bytes()
    page.write_bytes(b"damaged")
    monkeypatch.setattr(switch, "scan", lambda root: pytest.fail("the sync listed site/ itself"))
    report = pipeline.build(root, workers=2).report
    assert page.read_bytes() == whole and page.relative_to(root / "site").as_posix() in report.written


def test_a_sync_records_the_stats_of_what_it_wrote_and_removed_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stats record is written row by row: a sync that rewrites one page and drops one
    records those two, not the record of every file again; the record then vouches for every
    file the site holds (none is hashed by the next sync)."""
    site = tmp_path / "site"
    sync(OUTPUTS, site)
    recorded: list[tuple[set[str], set[str]]] = []
    record = statsrecord.record

    def noted(root: str, found: dict[str, statsrecord.Stat], forgotten: Iterable[str] = ()) -> None:
        recorded.append((set(found), set(forgotten)))
        record(root, found, forgotten)

    monkeypatch.setattr(statsrecord, "record", noted)
    changed = {**OUTPUTS, "index.html": b"<h1>home again</h1>"}
    del changed["assets/style.css"]
    sync(changed, site)
    assert recorded == [({"index.html"}, {"assets/style.css"})]
    assert set(statsrecord.read(str(site))) == set(changed)
    monkeypatch.setattr(repair, "sha256_of", lambda path: pytest.fail(f"{path} hashed again"))
    assert sync(changed, site).written == ()


@pytest.mark.parametrize("planted", [b"", b"not a database" * 100, b"SQLite format 3\x00" + bytes(200)])
def test_a_stats_record_that_cannot_be_read_is_taken_as_empty_and_made_anew(
    tmp_path: Path, planted: bytes
) -> None:
    """A damaged or planted record only costs hashing: a file changed by hand is still found
    and written again, and the record is a readable one again afterwards."""
    site = tmp_path / "site"
    sync(OUTPUTS, site)
    (site / write.STATS).write_bytes(planted)
    (site / "index.html").write_bytes(b"<h1>tampered</h1>")
    assert sync(OUTPUTS, site).written == ("index.html",)
    assert site_files(site) == OUTPUTS
    assert set(statsrecord.read(str(site))) == set(OUTPUTS)


def test_an_earlier_versions_json_stats_record_is_neither_foreign_nor_kept(tmp_path: Path) -> None:
    """A site built by an earlier version holds `.scholarsite-stats.json`: the build's own file,
    never reported as foreign, removed when the record is next written."""
    site = tmp_path / "site"
    sync(OUTPUTS, site)
    legacy = site / LEGACY_STATS
    legacy.write_text('{"index.html":[1,2,3,4,"x"]}', encoding="ascii")
    report = sync({**OUTPUTS, "index.html": b"<h1>home again</h1>"}, site)
    assert report.foreign == ()
    assert not legacy.exists()
    assert files_on_disk(site) == set(OUTPUTS) | {MANIFEST, write.STATS}

"""Issue 29, the second hostile sweep: each case a test that failed before the fix.

The table of cases with the test of each is docs/internals/hostile-inputs.md.
"""

from __future__ import annotations

import filecmp
import hashlib
import io
import os
import shutil
import stat
import subprocess
import sys
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from benchmarks.corpus import generate
from scholarsite import pipeline, write
from scholarsite.errors import error
from scholarsite.inputs import files
from scholarsite.inputs.assets import read_static
from scholarsite.inputs.config import Config
from scholarsite.inputs.files import fingerprint_digest, read_by_build
from scholarsite.inputs.project import load_project
from scholarsite.inputs.sources import parse_sources
from scholarsite.inputs.store import write_atomically
from scholarsite.model.identity import slug_for
from scholarsite.outputs import shards
from scholarsite.outputs.families import search
from scholarsite.preview.watch import InputWatcher
from scholarsite.write.manifest import read_manifest
from scholarsite.write.repair import sha256_of
from tools.qa.browser import open_browser
from tools.qa.server import serve

from .conftest import ROOT, make_project


@pytest.fixture
def built(tmp_path: Path, shipped_project: Path) -> Path:
    """A copy of the shipped project, built (so a test may damage its site)."""
    project = tmp_path / "project"
    shutil.copytree(shipped_project, project, symlinks=True)
    assert not pipeline.build(project).report.written  # the copy is complete: nothing to do
    return project


def test_a_defaced_page_and_a_damaged_chunk_are_rewritten_with_unchanged_inputs(built: Path) -> None:
    """Case 2: the no-change build compares the site with the manifest's digests."""
    site = built / "site"
    (site / "index.html").write_text("defaced")
    chunk = sorted((site / "pagefind").rglob("*.pf_fragment"))[0]
    damaged = bytearray(chunk.read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF
    chunk.write_bytes(bytes(damaged))
    report = pipeline.build(built).report
    assert "index.html" in report.written
    entries = write.inventory(site)[0]
    recorded = read_manifest(str(site))[0]
    assert all(sha256_of(str(site / path)) == recorded[path][1] for path in entries)
    assert not pipeline.build(built).report.written


def test_a_same_size_edit_that_keeps_the_mtime_is_still_found(built: Path) -> None:
    """Case 2: `touch -r` after a same-size edit does not hide it (ctime and inode are compared too)."""
    page = built / "site/index.html"
    before = page.stat()
    data = bytearray(page.read_bytes())
    data[-2:-1] = b"X" if data[-2:-1] != b"X" else b"Y"
    page.write_bytes(bytes(data))
    os.utime(page, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert pipeline.build(built).report.written == ("index.html",)


def test_a_touched_but_intact_file_is_hashed_once_and_not_rewritten(built: Path) -> None:
    """Case 2: a file whose stat changed but whose bytes did not is left alone."""
    page = built / "site/index.html"
    os.utime(page, ns=(1, 1))
    assert not pipeline.build(built).report.written
    assert page.stat().st_mtime_ns == 1


def small_project(folder: Path, size: int) -> Path:
    """Three authors' seeds, six papers, in search shards of `size` records."""
    seeds = folder / "seeds-in"
    if not seeds.is_dir():
        generate(seeds, 3, 6, seed=7)
    project = folder / "project"
    if not project.is_dir():
        make_project(project, seeds)
    (project / "site.yaml").write_text(f"title: Shards\nsearch_shard_size: {size}\n")
    return project


def test_no_search_shard_is_empty_or_listed_empty_at_any_size(tmp_path: Path) -> None:
    """Case 3: the shards built and listed are those some record hashes to, at every size."""
    project = small_project(tmp_path, 1)
    data, _ = pipeline.site_data(load_project(project))
    count = len(search.entries(data))
    assert list(shards.record_urls(data.site, False)) == [entry.url for entry in search.entries(data)]
    for size in range(1, count + 2):
        data, _ = pipeline.site_data(load_project(small_project(tmp_path, size)))
        bundles = list(search.outputs(data))
        assert [bundle.folder for bundle in bundles] == shards.folders(data.site, size, False)
        members = [bundle.produce.args[0].args[1] for bundle in bundles]  # type: ignore[attr-defined]
        assert all(members) and sum(map(len, members)) == count, f"an empty shard at size {size}"
        scripts = [bundle.produce.args[2] for bundle in bundles]  # type: ignore[attr-defined]
        assert scripts == [True] + [False] * (len(bundles) - 1)


@pytest.fixture(scope="module")
def browser():
    """One headless Debian Chromium for the module."""
    with open_browser() as context:
        yield context


def answers(browser, site: Path, queries: tuple[str, ...]) -> dict[str, list[str]]:
    """The result titles the search page shows for each query (sorted), or its message."""
    page = browser.new_page()
    found = {}
    try:
        with serve(site, "/scholarsite/") as base:
            for query in queries:
                page.goto(f"{base}search/?q={query}")
                page.wait_for_function(
                    "() => document.querySelector('.search-result') || "
                    "document.body.innerText.includes('could not be loaded')",
                    timeout=30_000,
                )
                titles = page.locator(".search-result h2").all_inner_texts()
                found[query] = sorted(titles) or [page.locator("#search").inner_text()]
    finally:
        page.close()
    return found


@pytest.mark.browser
def test_search_answers_alike_at_every_shard_size_in_chromium(tmp_path: Path, browser) -> None:
    """Case 3: in Chromium, every `search_shard_size` from 1 up finds what one shard finds."""
    queries = ("robust", "latency", "Dijkstra", "quantum")
    project = small_project(tmp_path, 1000)
    pipeline.build(project)
    expected = answers(browser, project / "site", queries)
    assert all(titles and "could not" not in titles[0] for titles in expected.values()), expected
    data, _ = pipeline.site_data(load_project(project))
    for size in range(1, len(search.entries(data)) + 1):
        pipeline.build(small_project(tmp_path, size))
        assert answers(browser, project / "site", queries) == expected, f"search_shard_size: {size}"


def test_a_file_name_with_a_newline_cannot_print_a_line_of_its_own(tmp_path: Path) -> None:
    """Case 10: a seed named to forge a diagnostic is printed with its line feed escaped."""
    project = make_project(tmp_path / "p")
    (project / "seeds/bad\nsite.yaml:1: error: forged.txt").write_text("Someone\n\nnot a record\n")
    done = run_build(project)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    lines = (done.stdout + done.stderr).splitlines()
    assert not [line for line in lines if line.startswith("site.yaml:1: error: forged")]
    assert any(line.startswith("seeds/bad\\x0asite.yaml:1: error: forged.txt:3: error:") for line in lines)


def test_a_message_cannot_start_a_line_but_a_hint_still_does() -> None:
    """Case 10: a line feed in a message is escaped unless it starts the indented hint."""
    shown = error("seeds/a.txt", 3, "found 'x\nsite.yaml:1: error: y'", "write it so").format()
    assert shown == "seeds/a.txt:3: error: found 'x\\x0asite.yaml:1: error: y'\n    hint: write it so"


def test_a_file_rewritten_atomically_keeps_its_mode(tmp_path: Path) -> None:
    """Case 13: import and link-sources rewrite files through a temporary file, keeping the mode."""
    umask = os.umask(0o022)
    try:
        kept, new = tmp_path / "sources.yaml", tmp_path / "seeds/new.txt"
        kept.write_text("old\n")
        kept.chmod(0o644)
        write_atomically(kept, b"new\n")
        write_atomically(new, b"new\n")
    finally:
        os.umask(umask)
    assert kept.read_bytes() == b"new\n"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o644 and stat.S_IMODE(new.stat().st_mode) == 0o644


STATIC_NAMES = ("notes~", "data.swp", "4913", ".#notes", ".notes.swp", ".well-known/security.txt", "a/.b/c")


def test_the_preview_watches_exactly_the_files_the_build_reads(tmp_path: Path) -> None:
    """Case 14: one filter decides what the build reads and what the preview watches."""
    project = make_project(tmp_path / "p")
    for name in STATIC_NAMES:
        (project / "static" / name).parent.mkdir(parents=True, exist_ok=True)
        (project / "static" / name).write_text(name)
    read = read_static(project)[0]
    assert {"notes~", "data.swp", "4913", ".well-known/security.txt"} <= read.keys()
    for name in STATIC_NAMES:
        assert read_by_build(project, str(project / "static" / name)) == (name in read), name


def test_an_edit_to_a_backup_named_static_file_rebuilds_the_preview(tmp_path: Path) -> None:
    """Case 14: `static/notes~` is published, so editing it is a change the preview sees."""
    project = make_project(tmp_path / "p")
    (project / "static").mkdir()
    (project / "static/notes~").write_text("one")
    seen: list[set[str]] = []
    watcher = InputWatcher(project, seen.append)
    watcher.start()
    try:
        time.sleep(1.0)
        (project / "static/notes~").write_text("two")
        deadline = time.monotonic() + 20
        while not seen and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        watcher.stop()
    assert any(str(project / "static/notes~") in paths for paths in seen)


def run_build(project: Path) -> subprocess.CompletedProcess[str]:
    """`build.py build` on the project, its output captured."""
    command = [sys.executable, str(ROOT / "build.py"), "--project", str(project), "build"]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def test_an_author_page_claiming_one_of_two_namesakes_is_an_error_naming_both(tmp_path: Path) -> None:
    """Case 9: two outputs for one path come from the inputs; the error names them all."""
    project = make_project(tmp_path / "p")
    shutil.copy(ROOT / "seeds/000_428d720ed8b996c5.txt", project / "seeds/twin.txt")  # a namesake
    (project / "content/authors").mkdir(exist_ok=True)
    (project / "content/authors/ziheng-jiang.md").write_text("---\nseeds: [twin.txt]\n---\nBio.\n")
    done = run_build(project)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert (
        "seeds/000_428d720ed8b996c5.txt: error: 'Ziheng Jiang' would have the page authors/ziheng-jiang/, "
        "which content/authors/ziheng-jiang.md gives to seeds/twin.txt"
    ) in done.stdout + done.stderr


HUGE = "9" * 5000
HUGE_INTEGERS = {
    "site.yaml": ("site.yaml", f"title: x\nlatest_papers: {HUGE}\n", 2),
    "sources.yaml": ("sources.yaml", f"x:\n  arxiv: {HUGE}\n", 2),
    "front matter": ("content/about.md", f"---\ntitle: About\nweight: {HUGE}\n---\nhi\n", 3),
}


@pytest.mark.parametrize("where", sorted(HUGE_INTEGERS))
def test_a_5000_digit_integer_is_an_error_at_its_line(tmp_path: Path, where: str) -> None:
    """Case 8: no `Exceeds the limit (4300 digits)` traceback."""
    name, text, line = HUGE_INTEGERS[where]
    project = make_project(tmp_path / "p")
    (project / name).write_text(text)
    done = run_build(project)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    message = f"{name}:{line}: error: an integer of 5000 characters: expected at most 30"
    assert message in done.stdout + done.stderr


def test_a_static_file_over_the_limit_is_an_error_naming_it_and_is_not_read(tmp_path: Path) -> None:
    """Case 7: static/'s size limit is a setting; a larger file is refused unread, no MemoryError."""
    project = make_project(tmp_path / "p", site_yaml="title: x\nstatic_file_mb: 2\n")
    (project / "static").mkdir()
    with open(project / "static/video.bin", "wb") as big:
        big.truncate(3 * 2**20)
    done = run_build(project)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "static/video.bin: error: 3 MiB: over the 2 MiB a file of static/ may have" in done.stderr
    assert Config().static_file_mb == 512


class CountedReads(io.BufferedReader):
    """A file that remembers the size of every read."""

    sizes: list[int] = []

    def read(self, size: int | None = -1) -> bytes:
        self.sizes.append(-1 if size is None else size)
        return super().read(size)


def test_the_fingerprint_hashes_a_file_in_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Case 7: the no-change check never holds a static file whole."""
    data = os.urandom(3 * 4096 + 5)
    (tmp_path / "big.bin").write_bytes(data)
    monkeypatch.setattr(files, "CHUNK", 4096)
    monkeypatch.setattr(files.os, "fdopen", lambda handle, mode: CountedReads(io.FileIO(handle, "r")))
    assert fingerprint_digest(tmp_path / "big.bin", tmp_path) == hashlib.sha256(data).digest()
    assert CountedReads.sizes and all(0 < size <= 4096 for size in CountedReads.sizes)


@pytest.mark.parametrize("name", ["con", "nul", "aux", "prn", "com1", "lpt1", "lpt9"])
def test_a_slug_windows_reserves_gets_a_suffix(name: str) -> None:
    """Minor: no folder of the site is one Windows cannot check out (`con`, `nul`, `com1`...)."""
    slug = slug_for(name, "author")
    assert slug.startswith(f"{name}-") and slug != slug_for(f"{name} x") and slug_for("console") == "console"


COMET = "2025/comet fine grained computation communication overlapping for mixture of experts"
SOURCE_FIELDS = {
    "openalex published not a date": "openalex: {status: found, published: not-a-date}",
    "published not a date": "published: not-a-date",
    "5 MB venue": f"openalex: {{status: found, venue: {'v' * 5 * 2**20}}}",
}


@pytest.mark.parametrize("case", sorted(SOURCE_FIELDS))
def test_a_bad_date_or_an_unbounded_field_of_sources_yaml_is_an_error_at_its_entry(case: str) -> None:
    """Minor: `published: not-a-date` was ignored silently, a 5 MB venue copied into the page."""
    text = f"papers:\n  {COMET}:\n    status: found\n    {SOURCE_FIELDS[case]}\n"
    entries, problems = parse_sources(text, "sources.yaml")
    assert not entries and [(p.path, p.line) for p in problems] == [("sources.yaml", 2)]  # the entry's line
    assert (
        "must be a date such as 2025-02-27" in problems[0].message or "at most 2,000" in problems[0].message
    )


def test_an_openalex_part_without_an_id_gives_no_empty_link(tmp_path: Path) -> None:
    """Minor: a cited-by count without an OpenAlex id is shown without `<a href="">`."""
    project = make_project(tmp_path / "p")
    text = f"papers:\n  {COMET}:\n    status: found\n    openalex: {{status: found, cited_by: 7}}\n"
    (project / "sources.yaml").write_text(text)
    pipeline.build(project)
    pages = [page.read_text() for page in (project / "site/papers").rglob("index.html")]
    shown = [page for page in pages if "Cited by" in page]
    assert len(shown) == 1 and "(OpenAlex" in shown[0]
    assert not [page for page in pages if 'href=""' in page]


@pytest.mark.parametrize("char", ["\u202e", "\u200b", "\u2066"])
def test_a_base_url_with_a_bidi_or_invisible_control_is_an_error_at_its_line(
    tmp_path: Path, char: str
) -> None:
    """Minor: `base_url` with U+202E was written raw into every canonical link."""
    project = make_project(
        tmp_path / "p", site_yaml=f'title: x\nbase_url: "https://example.org/{char}gro/"\n'
    )
    done = run_build(project)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    expected = "expected no invisible or bidirectional control character in the URL"
    assert f"site.yaml:2: error: 'base_url': {expected} (U+{ord(char):04X})" in done.stderr
    assert char not in done.stderr + done.stdout


def test_a_folder_in_content_is_named_in_a_note(tmp_path: Path) -> None:
    """Minor: `content/blog/post.md` was ignored without a word."""
    project = make_project(tmp_path / "p")
    (project / "content/blog").mkdir()
    (project / "content/blog/post.md").write_text("# A post\n")
    (project / "content/authors/old").mkdir(parents=True)
    diagnostics = pipeline.build(project).diagnostics
    notes = [(d.path, d.severity.value, d.message) for d in diagnostics if d.path.startswith("content/")]
    assert notes == [
        ("content/authors/old/", "note", "a folder in content/ is not read: no page is built from it"),
        ("content/blog/", "note", "a folder in content/ is not read: no page is built from it"),
    ]


def test_a_large_static_file_is_hashed_and_copied_in_chunks_never_held_whole(tmp_path: Path) -> None:
    """Case 7: a 64 MiB file of static/ costs the build less memory than a quarter of itself."""
    project = make_project(tmp_path / "p")
    big = project / "static/video.bin"
    big.parent.mkdir(exist_ok=True)
    with big.open("wb") as file:
        for block in range(64):
            file.write(bytes([block]) * 2**20)
    tracemalloc.start()
    try:  # one process (workers=1) so every allocation is traced, on a thread with no event loop
        with ThreadPoolExecutor(1) as thread:
            thread.submit(pipeline.build, project, workers=1).result()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert filecmp.cmp(big, project / "site/video.bin", shallow=False)
    assert peak < 16 * 2**20, f"{peak / 2**20:.0f} MiB at the peak"
    with big.open("r+b") as file:  # edited in place: copied again
        file.seek(2**25)
        file.write(b"edited")
    with ThreadPoolExecutor(1) as thread:
        assert "video.bin" in thread.submit(pipeline.build, project, workers=1).result().report.written
    assert filecmp.cmp(big, project / "site/video.bin", shallow=False)


DEEP_JSON = "[" * 100_000 + "]" * 100_000  # more nesting than Python's JSON decoder takes
PLANTED = {  # the file, and whether the inputs change (a build with none reads no cache)
    "lineage.txt line": ("lineage.txt", True),
    "last build record": (".scholarsite-cache/last-build.json", False),
    "parse cache shard": (".scholarsite-cache/seeds/000.json", True),
    "site manifest": ("site/.scholarsite-manifest.json", False),
    "site stats record": ("site/.scholarsite-stats.sqlite", False),
    "site manifest entry": ("site/.scholarsite-manifest.json", False),
    "earlier versions' site stats record": ("site/.scholarsite-stats.json", False),
}
DEEP_ENTRIES = {  # files whose outside is as it should be, one entry nested
    "site manifest entry": '{"files":{"index.html":' + DEEP_JSON + '},"format":2,"inputs":""}',
}


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_json_nested_too_deeply_is_damage_not_a_traceback(tmp_path: Path, name: str) -> None:
    """A file the build reads back as JSON (committed, cached, or in site/) holding 100,000
    nested brackets: the decoder's RecursionError once ended the build with a traceback. Now
    a damaged cache or record is thrown away, a damaged site manifest and lineage.txt are
    errors naming the file."""
    project = make_project(tmp_path / "p")
    command = [sys.executable, "-m", "scholarsite", "build", "--project", str(project)]
    subprocess.run(command, capture_output=True, check=True)
    path, change = PLANTED[name]
    planted = project / path
    planted.parent.mkdir(parents=True, exist_ok=True)
    if path == "lineage.txt":  # a line of its own
        planted.write_text(planted.read_text(encoding="utf-8") + DEEP_JSON + "\n", encoding="utf-8")
    elif name in DEEP_ENTRIES:
        planted.write_text(DEEP_ENTRIES[name], encoding="utf-8")
    else:
        planted.write_text(DEEP_JSON, encoding="utf-8")
    if change:
        (project / "content/about.md").write_text("# About\n\nChanged.\n", encoding="utf-8")
    done = subprocess.run(command, capture_output=True, text=True)
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr, done.stderr[-2000:]
    if name == "lineage.txt line":
        assert done.returncode == 1 and "lineage.txt:" in done.stderr
    elif name.startswith("site manifest"):
        assert done.returncode != 0 and ".scholarsite-manifest.json is damaged" in done.stderr
    else:
        assert done.returncode == 0, done.stderr[-2000:]

"""Benchmark reading and writing `sources.yaml` at collection size.

Usage: python benchmarks/bench_sources.py [--papers N] [--shape full|lean] [--repeats R]
       [--skip-python] [--skip-yaml] [--collector-paused] [--no-key]
Writes a sources.yaml of N entries as link-sources writes them (`full`: arXiv metadata with
six authors, an OpenAlex part with counts per year and twenty references; `lean`: status,
title, checked date and arXiv id), then times: writing it (`dump_sources`, libyaml's dumper),
reading it as a build without a cache does (`read_sources`: the quick block reader), as a build
does when the file did not change since the last (`read_sources_kept`: the entries from
`.scholarsite-cache/sources.signed`, signed by a key made for the run, or with `--no-key` from
`sources.json`, checked again; then as a build passes the look's digest of the file, which is
not read then), after a change (one entry's status changed by hand; 100 entries added spread
over the file, as link-sources adds papers) through the unchanged file's cache (its files
put back before each run; each run reads the file and keeps a cache again; then the changed file
again, through the cache it kept), reading it as YAML
(libyaml's composer, what every read cost before the quick reader) and through the checking
Python loader alone. With
`--collector-paused`, every read runs with Python's cyclic collector off, as in a build (the
readers pause it themselves since issue 28's second pass). Prints the median wall and CPU
seconds of each with the file's size and the load average (other work on the machine inflates
wall time); asserts nothing.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import itertools
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scholarsite.inputs import sources_cache, userkey, yamlmap
from scholarsite.inputs.blockyaml import ENTRY_START_RE
from scholarsite.inputs.openalex_part import Impact
from scholarsite.inputs.sources import SOURCES_FILE, SourceEntry, carefully_parsed, dump_sources, read_sources
from scholarsite.inputs.sources_cache import SOURCES_CACHE, read_sources_kept


def entry(number: int, shape: str) -> SourceEntry:
    """One entry of the given shape."""
    title = f"A Study of Topic {number}: Methods and Results"
    if shape == "lean":
        return SourceEntry(
            "found", title=title, checked="2026-12-01", arxiv_id=f"{2001 + number % 25}.{number % 99999:05d}"
        )
    return SourceEntry(
        "found",
        title=title,
        checked="2026-12-01",
        arxiv_id=f"2502.{number % 99999:05d}",
        version=2,
        doi=f"10.1145/3620666.{number}",
        journal_ref="Proc. MLSys 2025",
        primary_category="cs.DC",
        published="2025-02-27",
        updated="2025-03-04",
        authors=tuple(f"Author {number % 977} {k}" for k in range(6)),
        openalex=Impact(
            "found",
            "2026-12-01",
            f"W{4392345678 + number}",
            f"10.48550/arxiv.2502.{number % 99999:05d}",
            17,
            "arXiv (Cornell University)",
            f"https://arxiv.org/pdf/2502.{number % 99999:05d}",
            "2025-02-27",
            counts=((2024, 3), (2025, 9), (2026, 5)),
            references=tuple(f"W{4392345678 + (number * 7 + k) % 100_000}" for k in range(20)),
        ),
    )


PAUSED = False  # --collector-paused


def timed(
    run: Callable[[], Any], repeats: int, before: Callable[[], Any] = lambda: None
) -> tuple[float, float, Any]:
    """Median wall and CPU seconds of `repeats` runs (each after `before`, not timed), and the
    last result."""
    walls, cpus, result = [], [], None
    for _ in range(repeats):
        result = None  # the last result is freed before the next run, not during it
        before()
        if PAUSED:
            gc.disable()
        wall, cpu = time.perf_counter(), time.process_time()
        result = run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        gc.enable()
    return statistics.median(walls), statistics.median(cpus), result


def entry_starts(text: str) -> list[int]:
    """The offset of each entry's key line."""
    return [found.start() + 1 for found in ENTRY_START_RE.finditer(text)]


def one_changed(text: str) -> str:
    """The file's text with the status of the entry in the middle changed, as by hand."""
    starts = entry_starts(text)
    at = text.index("status: found", starts[len(starts) // 2])
    return text[:at] + "status: unknown" + text[at + len("status: found") :]


def added(text: str, count: int, shape: str) -> str:
    """The file's text with `count` new entries spread over it, as link-sources adds papers."""
    new = dump_sources({f"2026/new paper {n}": entry(10**7 + n, shape) for n in range(count)})
    texts = [new[start:end] for start, end in itertools.pairwise([*entry_starts(new), len(new)])]
    starts = entry_starts(text)
    places = starts[:: max(1, len(starts) // count)][:count]
    pieces = zip(texts, places, [*places[1:], len(text)], strict=True)
    return text[: places[0]] + "".join(piece + text[place:end] for piece, place, end in pieces)


def changed_reads(root: Path, text: str, shape: str, repeats: int) -> None:
    """Time reading the file after each change through the cache of the unchanged file (the
    cache put back before each run: each run reads and keeps), then reading it again through
    the cache that read kept."""
    cached = root / SOURCES_CACHE
    (root / SOURCES_FILE).write_text(text, encoding="utf-8")
    read_sources_kept(root, cached)
    kept = {file: file.read_bytes() for file in cached.parent.iterdir()}

    def restore() -> None:
        for file in cached.parent.iterdir():
            file.unlink()
        for file, data in kept.items():
            file.write_bytes(data)

    runs = f"(median of {repeats})"
    changes = {"one entry changed": one_changed(text), "100 entries added": added(text, 100, shape)}
    for name, changed in changes.items():
        (root / SOURCES_FILE).write_text(changed, encoding="utf-8")
        count = len(entry_starts(changed))
        wall, cpu, (read, problems) = timed(lambda: read_sources_kept(root, cached), repeats, restore)
        assert not problems and len(read.entries) == count
        print(f"  read (read_sources_kept, {name}): {wall:.2f} s wall, {cpu:.2f} s CPU {runs}")
        wall, cpu, (again, _) = timed(lambda: read_sources_kept(root, cached), repeats)
        assert again == read
        print(f"  read (read_sources_kept, {name}, again): {wall:.2f} s wall, {cpu:.2f} s CPU {runs}")


def checked_only(text: str) -> None:
    """Read the text through the checking Python loader (the fast one switched off)."""
    fast = yamlmap.CLoader
    yamlmap.CLoader = None
    try:
        yamlmap.read_settings(text, SOURCES_FILE)
    finally:
        yamlmap.CLoader = fast


def main() -> None:
    """Write, then read a sources.yaml; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--shape", choices=("full", "lean"), default="full")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-python", action="store_true", help="do not time the Python loader")
    parser.add_argument("--skip-yaml", action="store_true", help="do not time the libyaml reading")
    parser.add_argument("--collector-paused", action="store_true", help="read with the collector off")
    parser.add_argument("--no-key", action="store_true", help="as a user without a key (the JSON cache)")
    args = parser.parse_args()
    global PAUSED
    PAUSED = args.collector_paused
    entries = {
        f"{2001 + n % 25}/a study of topic {n} methods and results": entry(n, args.shape)
        for n in range(args.papers)
    }
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        key = None if args.no_key else userkey.key_in(root / "user-cache")  # not the user's own
        sources_cache.user_key = lambda: key
        wall, cpu, text = timed(lambda: dump_sources(entries), 1)
        (root / SOURCES_FILE).write_text(text, encoding="utf-8")
        size = len(text.encode()) / 2**20
        print(f"{args.papers} entries ({args.shape}), {size:.1f} MB, libyaml {yamlmap.CLoader is not None}")
        print(f"  write: {wall:.2f} s wall, {cpu:.2f} s CPU")
        runs = f"(median of {args.repeats})"
        wall, cpu, (read, problems) = timed(lambda: read_sources(root), args.repeats)
        assert not problems and len(read.entries) == args.papers
        print(f"  read (read_sources, quick reader): {wall:.2f} s wall, {cpu:.2f} s CPU {runs}")
        read_sources_kept(root, root / SOURCES_CACHE)  # writes the cache
        wall, cpu, (kept, _) = timed(lambda: read_sources_kept(root, root / SOURCES_CACHE), args.repeats)
        assert kept == read
        print(f"  read (read_sources_kept, unchanged file): {wall:.2f} s wall, {cpu:.2f} s CPU {runs}")
        known = hashlib.sha256((root / SOURCES_FILE).read_bytes()).digest()
        cached = root / SOURCES_CACHE
        wall, cpu, (kept, _) = timed(lambda: read_sources_kept(root, cached, known), args.repeats)
        assert kept == read
        print(f"  read (read_sources_kept, the look's digest): {wall:.2f} s wall, {cpu:.2f} s CPU {runs}")
        changed_reads(root, text, args.shape, args.repeats)
        assert yamlmap.plain(text), "the file should take libyaml's path"
        if not args.skip_yaml:
            wall, cpu, _ = timed(lambda: carefully_parsed(text, SOURCES_FILE), args.repeats)
            print(f"  read (as YAML, libyaml): {wall:.2f} s wall, {cpu:.2f} s CPU {runs}")
        if not args.skip_python:
            wall, cpu, _ = timed(lambda: checked_only(text), 1)
            print(f"  read (Python loader, settings only): {wall:.2f} s wall, {cpu:.2f} s CPU")
    print(f"  load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

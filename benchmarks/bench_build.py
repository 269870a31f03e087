"""Build benchmark: cold build, no-change rebuild and rebuild after adding one seed.

    python benchmarks/bench_build.py --authors 2000 --papers 10000 --repeats 3

Each build runs as its own process (`python build.py`), so figures include start-up, and
peak memory is that process's maximum resident set. Prints medians; asserts nothing.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import generate  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXTRA = """arXiv subjects

Benchmark Newcomer

Publications and source records attributed to Benchmark Newcomer.

1 records

arXiv2026

A Brand New Paper on Scalable Benchmarks

We measure how long a rebuild takes after adding one seed.

cs.DC↗
"""


def timed_build(project: Path) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak resident MB) of one `python build.py` run.

    CPU time (user + system, the build and its workers) is steadier than wall time on a
    shared machine; both are printed.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, str(ROOT / "build.py"), "--project", str(project)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu, after.ru_maxrss / 1024


def folder_size(folder: Path) -> tuple[int, float, float]:
    """(files, total MB, largest HTML page in KB)."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    largest = max((p.stat().st_size for p in files if p.suffix == ".html"), default=0)
    return len(files), sum(p.stat().st_size for p in files) / 1e6, largest / 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--authors", type=int, default=2000)
    parser.add_argument("--papers", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="scholarsite-bench-") as tmp:
        project = Path(tmp) / "project"
        for part in ("content", "templates", "assets"):
            shutil.copytree(ROOT / part, project / part)
        (project / "site.yaml").write_text("title: Benchmark\nbase_url: https://example.org/bench/\n")
        generate(project / "seeds", args.authors, args.papers)
        cold, warm, added = [], [], []
        for _ in range(args.repeats):
            shutil.rmtree(project / "site", ignore_errors=True)
            shutil.rmtree(project / ".scholarsite-cache", ignore_errors=True)
            (project / "seeds/zz_extra.txt").unlink(missing_ok=True)
            cold.append(timed_build(project))
            warm.append(timed_build(project))
            (project / "seeds/zz_extra.txt").write_text(EXTRA, encoding="utf-8")
            added.append(timed_build(project))
        files, megabytes, largest = folder_size(project / "site")
    print(
        f"corpus: {args.authors} authors, {args.papers} papers; site: {files} files, "
        f"{megabytes:.0f} MB, largest page {largest:.0f} KB"
    )
    for name, runs in (
        ("cold build", cold),
        ("rebuild, no change", warm),
        ("rebuild, one seed added", added),
    ):
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        print(
            f"{name:26} median {wall:7.2f} s wall, {cpu:7.2f} s CPU over {len(runs)}"
            f"   peak RSS {max(r[2] for r in runs):6.0f} MB"
        )


if __name__ == "__main__":
    main()

"""Scaling benchmark (issue 29): N seeds that each list one shared paper and one of their own,
built cold with `--jobs 1` (one process: its CPU time and peak are the whole build's).

    python benchmarks/bench_sharing.py [--seeds 1000 2000 4000]

Prints, for each N, the build's wall and CPU time, peak memory (resident set), the site's size
and its largest file; linear scaling shows as CPU time and size per seed that stay flat. How
fast is this script's figure, never a test's assertion.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = "A Paper Every Seed Lists"


def seed(number: int) -> str:
    """Seed `number`: its owner, the shared paper and one paper of its own."""
    papers = [
        (SHARED, "Everyone in this collection lists this paper."),
        (f"Own result number {number}", f"The abstract of result {number}."),
    ]
    entries = "".join(f"arXiv2024\n\n{title}\n\n{abstract}\n\ncs.LG↗\n\n" for title, abstract in papers)
    return (
        f"arXiv subjects\n\nPerson{number} Family{number}\n\n"
        f"Publications and source records attributed to Person{number} Family{number}.\n\n"
        f"At least 2 recordsLinked to original sources\n\n{entries}"
    )


def build(seeds: int, folder: Path) -> str:
    """Make and build a project of `seeds` seeds; its figures as one line."""
    project = folder / f"sharing-{seeds}"
    python = [sys.executable, "-m", "scholarsite"]
    subprocess.run([*python, "new", str(project)], check=True, capture_output=True, cwd=ROOT)
    for old in (project / "seeds").iterdir():
        old.unlink()
    for number in range(seeds):
        (project / "seeds" / f"{number:06d}.txt").write_text(seed(number), encoding="utf-8")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [*python, "--project", str(project), "build", "--jobs", "1"], capture_output=True, cwd=ROOT
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    files = [path for path in (project / "site").rglob("*") if path.is_file()]
    size = sum(path.stat().st_size for path in files) / 2**20
    largest = max(files, key=lambda path: path.stat().st_size)
    return (
        f"{seeds:>6,} seeds: exit {done.returncode}, {wall:.1f} s wall, {cpu:.1f} s CPU "
        f"({cpu / seeds * 1000:.2f} ms a seed), {after.ru_maxrss / 1024:.0f} MiB peak RSS so far, "
        f"site {size:.1f} MiB in {len(files):,} files, largest {largest.relative_to(project / 'site')} "
        f"{largest.stat().st_size / 2**20:.2f} MiB"
    )


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1_000, 2_000, 4_000])
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for seeds in options.seeds:
            print(build(seeds, Path(folder)), flush=True)


if __name__ == "__main__":
    main()

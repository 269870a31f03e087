"""Benchmark scholarsite.write.sync: cold, unchanged and 1%-changed syncs.

Usage: python benchmarks/bench_write.py [--files N] [--repeats R]
Prints the median wall time of each phase; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from scholarsite.write import sync


def make_outputs(count: int, version: int = 0, changed: int = 0) -> dict[str, bytes]:
    """``count`` pages of a few KB; the first ``changed`` carry ``version``."""
    outputs = {}
    for i in range(count):
        stamp = version if i < changed else 0
        body = f"<h1>Paper {i}</h1><p>revision {stamp}</p>".encode() * 60
        outputs[f"papers/{i % 500:03d}/{i}/index.html"] = body
    return outputs


def timed(outputs: dict[str, bytes], site: Path) -> float:
    """Seconds taken by one sync."""
    start = time.perf_counter()
    sync(outputs, site)
    return time.perf_counter() - start


def main() -> None:
    """Run the phases ``--repeats`` times each and print medians."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    base = make_outputs(args.files)
    phases: dict[str, list[float]] = {"cold": [], "unchanged": [], "1% changed": []}
    for repeat in range(args.repeats):
        with tempfile.TemporaryDirectory() as scratch:
            site = Path(scratch, "site")
            phases["cold"].append(timed(base, site))
            phases["unchanged"].append(timed(base, site))
            edited = make_outputs(args.files, repeat + 1, max(1, args.files // 100))
            phases["1% changed"].append(timed(edited, site))
    print(f"sync of {args.files} files, median of {args.repeats} runs")
    for name, seconds in phases.items():
        print(f"  {name:<11} {statistics.median(seconds):8.3f} s")


if __name__ == "__main__":
    main()

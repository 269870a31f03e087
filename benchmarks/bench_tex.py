"""TeX benchmark: how long the emitters take on the shipped abstracts and on pathological input.

    python benchmarks/bench_tex.py [--repeats 10]

Prints the median seconds per shipped abstract (HTML and plain text, parse cache cleared each
round) and, for each pathological input of `tests/test_tex.py`, the seconds its three emitters
take. The tests check that such input is handled; how fast is this script's figure, never a
test's assertion (machines here are shared and noisy).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scholarsite.tex.parse import parse  # noqa: E402
from scholarsite.tex.render import tex_problems, tex_to_html, tex_to_plain  # noqa: E402
from tests.test_tex import PATHOLOGICAL, SEED_ABSTRACTS  # noqa: E402


def per_abstract(repeats: int) -> float:
    """Median seconds per shipped abstract over `repeats` rounds."""
    rounds = []
    for _ in range(repeats):
        parse.cache_clear()
        start = time.perf_counter()
        for abstract in SEED_ABSTRACTS:
            tex_to_html(abstract)
            tex_to_plain(abstract)
        rounds.append((time.perf_counter() - start) / len(SEED_ABSTRACTS))
    return statistics.median(rounds)


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    print(
        f"{len(SEED_ABSTRACTS)} shipped abstracts: {per_abstract(args.repeats) * 1000:.2f} ms each (median)"
    )
    for text in PATHOLOGICAL:
        parse.cache_clear()
        start = time.perf_counter()
        tex_to_html(text)
        tex_to_plain(text)
        tex_problems(text)
        print(f"{text[:12]!r:>16} x{len(text):<8} {time.perf_counter() - start:8.3f} s")


if __name__ == "__main__":
    main()

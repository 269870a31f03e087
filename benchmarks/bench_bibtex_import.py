"""BibTeX import benchmark (issue 29, case 11): a file of ENTRIES entries sharing one
AUTHORS-author `@string`, imported with `import --dry-run` into a new project.

    python benchmarks/bench_bibtex_import.py [--entries 5000] [--authors 3000]

Prints the file's size, the wall and CPU time (CPU: what a shared machine's load does not
inflate), the peak memory (resident set of the import process)
and its exit code. How fast is this script's figure, never a test's assertion.
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


def bibtex(entries: int, authors: int) -> str:
    """The file: one `@string` of every author, then the entries naming it."""
    names = " and ".join(f"Author{n} Family{n}" for n in range(authors))
    body = "".join(
        f"@article{{e{n}, title = {{Paper number {n}}}, author = many, journal = {{J}}, year = 2020}}\n"
        for n in range(entries)
    )
    return f"@string{{many = {{Ada Lovelace and {names}}}}}\n{body}"


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=5_000)
    parser.add_argument("--authors", type=int, default=3_000)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        project, bib = Path(folder) / "project", Path(folder) / "big.bib"
        bib.write_text(bibtex(options.entries, options.authors), encoding="utf-8")
        python = [sys.executable, "-m", "scholarsite"]
        subprocess.run([*python, "new", str(project)], check=True, capture_output=True, cwd=ROOT)
        command = [*python, "--project", str(project), "import", "--bibtex", str(bib)]
        started = time.perf_counter()
        done = subprocess.run(
            [*command, "--author", "Ada Lovelace", "--dry-run"], capture_output=True, text=True, cwd=ROOT
        )
        seconds = time.perf_counter() - started
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # `new` is small beside the import
        peak, cpu = usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime
        size = bib.stat().st_size / 2**20
    print(f"{options.entries:,} entries sharing a {options.authors:,}-author @string ({size:.1f} MiB)")
    print(
        f"import --dry-run: exit {done.returncode}, {seconds:.1f} s wall, {cpu:.1f} s CPU "
        f"(new and import), peak {peak:.0f} MiB resident"
    )
    print(*(done.stdout.splitlines()[:3] + done.stderr.splitlines()[-2:]), sep="\n")


if __name__ == "__main__":
    main()

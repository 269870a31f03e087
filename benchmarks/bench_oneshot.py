"""One-shot builds after one change, on a collection shaped like real arXiv records.

    python benchmarks/bench_oneshot.py --authors 15175 --papers 37537 --repeats 3 [--workdir DIR]
                                       [--profile N] [--against CHECKOUT]

Makes a project of `benchmarks/realworld.py` seeds (or reuses the one `--workdir` holds from
an earlier run), builds it, then times `python build.py --project DIR build` as fresh
processes (wall, CPU, peak RSS: `bench_build.measure`) after each change, every change undone
by the next so that each round starts from the same inputs:

- edit one abstract: a sentence appended to the first abstract of the first seed (and removed);
- add one seed: a new author listing a new paper and the first paper of the second seed;
- remove that seed.

With `--against CHECKOUT` (another scholarsite checkout: its `build.py`), a copy of the project
is built by that checkout's, the two alternating change by change (each on its own copy, since
each code version keeps caches of its own), and the table gives both and their ratio: the
machine's speed drifts by a third within a day here, so only builds interleaved in one run
compare two versions.

With `--profile N`, one more edit and one more added seed are built in this process under
cProfile, and the N functions of most cumulative time are printed for each: the profile of
issue 26 ("no step linear in the collection"). Prints Markdown and asserts nothing.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import io
import pstats
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_build import Run, measure  # noqa: E402
from benchmarks.bench_preview import make_project  # noqa: E402
from scholarsite.cli import main as scholarsite_main  # noqa: E402
from scholarsite.inputs.seeds import SeedRecord, parse_seed  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ADDED = "zz-bench-added.txt"  # the seed the benchmark adds, last in path order
SENTENCE = " We also measure one more thing."


def seeds(project: Path) -> list[Path]:
    """The project's seed files in path order, the benchmark's own left out."""
    return sorted(path for path in (project / "seeds").glob("*.txt") if path.name != ADDED)


def first_record(seed: Path) -> SeedRecord:
    """The first record of a seed file."""
    parsed = parse_seed(seed.read_bytes(), seed.name, latest_year=datetime.date.today().year + 1)
    assert parsed.author is not None, parsed.diagnostics
    return parsed.author.records[0]


def toggle_edit(project: Path) -> None:
    """Append `SENTENCE` to the first abstract of the first seed, or take it away again."""
    seed = seeds(project)[0]
    text, abstract = seed.read_text(encoding="utf-8"), first_record(seed).abstract
    if abstract.endswith(SENTENCE):
        changed = text.replace(abstract, abstract[: -len(SENTENCE)], 1)
    else:
        changed = text.replace(abstract, abstract + SENTENCE, 1)
    seed.write_text(changed, encoding="utf-8")


def added_seed(project: Path) -> str:
    """A seed of a new author: a new paper, and the first paper of the second seed."""
    listed = first_record(seeds(project)[1])
    records = [
        ("arXiv", 2025, "A Wholly New Paper on Adding Seeds", "We add one seed and measure.", ("cs.DC",)),
        (listed.source, listed.year, listed.title, listed.abstract, listed.subjects),
    ]
    name = "Zed Q. Benchmark"
    head = f"arXiv subjects\n\n{name}\n\nPublications and source records attributed to {name}.\n\n"
    body = "".join(
        f"{source}{year}\n\n{title}\n\n{abstract}\n\n{' '.join(s + '↗' for s in subjects)}\n\n"
        for source, year, title, abstract, subjects in records
    )
    return f"{head}{len(records)} recordsLinked to original sources\n\n{body}"


def toggle_seed(project: Path) -> None:
    """Add the benchmark's seed, or remove it."""
    path = project / "seeds" / ADDED
    if path.exists():
        path.unlink()
    else:
        path.write_text(added_seed(project), encoding="utf-8")


def build_command(project: Path, checkout: Path = ROOT) -> list[str]:
    """The one-shot build of `project` by a checkout's `build.py`, as a user runs it."""
    return [sys.executable, str(checkout / "build.py"), "--project", str(project), "--quiet", "build"]


Runs = dict[str, list[Run]]  # by scenario
STEPS: list[tuple[str, Callable[[Path], None]]] = [
    ("edit one abstract", toggle_edit),
    ("edit one abstract", toggle_edit),
    ("add one seed", toggle_seed),
    ("remove that seed", toggle_seed),
]


def rounds(builds: list[tuple[Path, Path]], repeats: int, logs: Path) -> list[Runs]:
    """Each change's builds, `repeats` rounds, for each (checkout, project) in turn."""
    found: list[Runs] = [{scenario: [] for scenario, _ in STEPS} for _ in builds]
    for number in range(repeats):
        for step, (scenario, change) in enumerate(STEPS):
            for which, (checkout, project) in enumerate(builds):
                change(project)
                log = logs / f"round{number}-{step}-{which}.log"
                found[which][scenario].append(measure(build_command(project, checkout), log))
    return found


def spread(runs: list[Run]) -> str:
    """Median, min and max wall seconds."""
    walls = [run.wall for run in runs]
    return f"{statistics.median(walls):.2f} ({min(walls):.2f}-{max(walls):.2f})"


def table(runs: Runs) -> str:
    """Median, min and max of each scenario's wall seconds, with CPU and peak RSS medians."""
    lines = [
        "| scenario | wall s median (min-max) | CPU s | peak RSS MB | n |",
        "|---|---:|---:|---:|---:|",
    ]
    for scenario, found in runs.items():
        cpu = statistics.median(run.cpu for run in found)
        rss = statistics.median(run.rss_mb for run in found)
        lines.append(f"| {scenario} | {spread(found)} | {cpu:.2f} | {rss:.0f} | {len(found)} |")
    return "\n".join(lines)


def compared(runs: Runs, against: Runs) -> str:
    """Each scenario's wall seconds for this checkout and the other, with the ratio of medians
    and both peak RSS medians."""
    lines = [
        "| scenario | this checkout: wall s (min-max) | the other | ratio | peak RSS MB (this / other) | n |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for scenario, found in runs.items():
        other = against[scenario]
        ratio = statistics.median(r.wall for r in found) / statistics.median(r.wall for r in other)
        rss = " / ".join(f"{statistics.median(r.rss_mb for r in side):.0f}" for side in (found, other))
        lines.append(
            f"| {scenario} | {spread(found)} | {spread(other)} | {ratio:.2f} | {rss} | {len(found)} |"
        )
    return "\n".join(lines)


def profiled(project: Path, change: Callable[[Path], None], top: int) -> str:
    """The `top` functions of most cumulative time of one build after `change`, in process
    (the change is undone after, unbuilt: the next build sees the inputs it started from)."""
    change(project)
    profile = cProfile.Profile()
    profile.runcall(scholarsite_main, ["--project", str(project), "--quiet", "build"])
    change(project)
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(top)
    return out.getvalue()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--authors", type=int, default=300)
    parser.add_argument("--papers", type=int, default=1800)
    parser.add_argument("--repeats", type=int, default=3, help="rounds of every change")
    parser.add_argument("--workdir", type=Path, help="keep the project here (reused when it is there)")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="print cProfile's top N")
    parser.add_argument("--against", type=Path, metavar="CHECKOUT", help="alternate with its build.py")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.workdir or Path(tmp)
        project, logs = work / "project", work / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        if not project.is_dir():
            make_project(project, args.authors, args.papers, realworld=True)
        builds = [(ROOT, project)]
        if args.against:
            copy = work / "against"
            if not copy.is_dir():
                shutil.copytree(project, copy, symlinks=True)
            builds.append((args.against.resolve(), copy))
        colds = [measure(build_command(p, c), logs / f"first-{n}.log") for n, (c, p) in enumerate(builds)]
        firsts = " / ".join(f"{cold.wall:.1f} s" for cold in colds)
        print(f"{args.authors} authors, {args.papers} papers (realworld); first builds {firsts}")
        found = rounds(builds, args.repeats, logs)
        print(compared(*found) if args.against else table(found[0]))
        for scenario, change in (("edit one abstract", toggle_edit), ("add one seed", toggle_seed)):
            if args.profile:
                print(f"\n### cProfile: {scenario}\n\n```\n{profiled(project, change, args.profile)}```")
    return 0


if __name__ == "__main__":
    sys.exit(main())

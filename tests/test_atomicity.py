"""A build killed at any moment leaves `site/` wholly old or wholly new, and nothing running.

The kill loop builds a ~1,500-paper corpus, changes every page, then kills the rebuild with
SIGKILL at random moments (a fixed random seed, so runs are repeatable). After each kill,
`write.replay` does what the next build does before anything else; the site must then be
exactly the old site or exactly the new one, no process of the build may be left running,
and no temporary folder may be left behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.corpus import generate
from scholarsite import pipeline, write

from .conftest import ROOT, make_project

KILLS = 4
SEARCH = "pagefind/"  # Pagefind's file names are not deterministic (upstream): compared apart


def served(site: Path) -> dict[str, bytes]:
    """What a web server would serve from `site`, the build's own files and the search aside."""
    found = {}
    for path in site.rglob("*"):
        rel = path.relative_to(site).as_posix()
        if path.is_file() and not rel.startswith((".", SEARCH)) and ".tmp-" not in rel:
            found[rel] = path.read_bytes()
    return found


def search_intact(site: Path) -> bool:
    """Every search file the manifest lists is there, and no other."""
    listed = {p for p in json.loads((site / write.MANIFEST).read_bytes())["files"] if p.startswith(SEARCH)}
    present = {p.relative_to(site).as_posix() for p in (site / SEARCH).rglob("*") if p.is_file()}
    return listed == present


def processes_of(project: Path) -> set[str]:
    """Process ids started for `project`: its path is in their command line (the build and
    its workers) or is their working folder (Pagefind's service, started from the build's)."""
    found = set()
    for proc in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError):
            if (
                str(project).encode() in (proc / "cmdline").read_bytes()
                or Path(os.readlink(proc / "cwd")) == project
            ):
                found.add(proc.name)
    return found


def leftovers(project: Path, deadline: float = 5.0) -> set[str]:
    """Processes of a killed build (workers, the search indexer, Pagefind) still running."""
    end = time.monotonic() + deadline
    while True:
        found = processes_of(project)
        if not found or time.monotonic() > end:
            return found
        time.sleep(0.1)


def test_killed_builds_leave_the_old_or_the_new_site(tmp_path: Path) -> None:
    generate(tmp_path / "seeds", authors=250, papers=1500)
    project = make_project(tmp_path / "project", seeds=tmp_path / "seeds")
    pipeline.build(project)
    site = project / "site"
    old = served(site)
    saved = tmp_path / "saved"
    shutil.copytree(site, saved, symlinks=True)
    footer = project / "templates/base.html"
    footer.write_text(footer.read_text(encoding="utf-8").replace("</footer>", "New footer.</footer>"))
    reference = tmp_path / "reference"
    shutil.copytree(project, reference, ignore=shutil.ignore_patterns("site", ".scholarsite-cache"))
    started = time.monotonic()
    pipeline.build(reference)
    duration = time.monotonic() - started
    new = served(reference / "site")
    assert new != old
    rng = random.Random(20261201)
    temporary = tmp_path / "tmp"  # the builds' TMPDIR: what they leave there outlives them
    temporary.mkdir()
    command = [sys.executable, str(ROOT / "build.py"), "--project", str(project), "--quiet"]
    outcomes = []
    for _ in range(KILLS):
        shutil.rmtree(site)
        shutil.copytree(saved, site, symlinks=True)
        build = subprocess.Popen(
            command,
            cwd=project,
            env={**os.environ, "TMPDIR": str(temporary)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0.3, 0.4 + duration * 1.5))
        build.send_signal(signal.SIGKILL)
        build.wait()
        assert not leftovers(project), "a killed build left processes behind"
        write.replay(str(site))
        now = served(site)
        assert now in (old, new), "after a kill the site is neither the old one nor the new one"
        assert search_intact(site)
        outcomes.append("new" if now == new else "old")
    assert not list(temporary.iterdir()), "a killed build left temporary files behind"
    pipeline.build(project)
    assert served(site) == new and search_intact(site)
    print("outcomes after each kill:", outcomes)

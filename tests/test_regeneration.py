"""Regeneration: incremental writes, pruning, hand-placed files, failures leave site/ alone."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scholarsite import pipeline
from scholarsite.errors import BuildError
from scholarsite.outputs.families import pages as views

from .conftest import ROOT, make_project

EXTRA_SEED = """arXiv subjects

Ada Lovelace

Publications and source records attributed to Ada Lovelace.

2 records

arXiv2025

Comet: Fine-grained Computation-communication Overlapping for Mixture-of-Experts

A different scrape of the same paper.

cs.DC↗

arXiv2018

Notes on the Analytical Engine

The engine weaves algebraic patterns.

math.HO↗
"""


def snapshot(site: Path) -> dict[str, tuple[bytes, int]]:
    """Every file's bytes and modification time."""
    return {
        p.relative_to(site).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(site.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A fresh copy of the shipped project, built once."""
    root = make_project(tmp_path / "project")
    pipeline.build(root)
    return root


def test_second_build_writes_nothing_and_keeps_mtimes(project: Path) -> None:
    before = snapshot(project / "site")
    report = pipeline.build(project).report
    assert report.written == () and report.removed == ()
    assert snapshot(project / "site") == before


def test_adding_a_seed_merges_and_updates_only_what_shows_it(project: Path) -> None:
    (project / "seeds/002_ada.txt").write_text(EXTRA_SEED, encoding="utf-8")
    report = pipeline.build(project).report
    written = set(report.written)
    assert "authors/ada-lovelace/index.html" in written
    comet = "papers/2025/comet-fine-grained-computation-communication-overlapping-for-mixture-of-experts/"
    comet += "index.html"
    assert comet in written
    assert "Ada Lovelace" in (project / "site" / comet).read_text()
    assert "authors/ziheng-jiang/index.html" in written  # co-author list changed
    assert "subjects/math-ho/index.html" in written and "years/2018/index.html" in written
    for untouched in ("years/2019/index.html", "years/2020/index.html", "subjects/eess-iv/index.html"):
        assert untouched not in written and (project / "site" / untouched).is_file()
    assert all(p.startswith("pagefind/") for p in report.removed)  # renamed index chunks


def test_editing_one_seed_rewrites_only_pages_showing_its_data(project: Path) -> None:
    seed = project / "seeds/001_195b1e5c39d23b83.txt"
    text = seed.read_text(encoding="utf-8")
    seed.write_text(
        text.replace("Large-scale", "Large-Scale", 1).replace(
            "URSA: Precise Capacity Planning", "URSA: Precise capacity planning"
        ),
        encoding="utf-8",
    )
    written = set(pipeline.build(project).report.written)
    html = {p for p in written if p.endswith(".html")}
    assert any(p.startswith("papers/2019/ursa") for p in html)
    assert not any(p.startswith("papers/2026/mesh-attention") for p in written)  # Jiang only
    assert "years/2020/index.html" not in written


def test_removing_a_seed_prunes_what_only_it_produced(project: Path) -> None:
    (project / "seeds/001_195b1e5c39d23b83.txt").unlink()
    report = pipeline.build(project).report
    removed = set(report.removed)
    assert "authors/ningxin-zheng/index.html" in removed
    assert "subjects/eess-iv/index.html" in removed
    assert not (project / "site/authors/ningxin-zheng").exists()
    assert (project / "site/authors/ziheng-jiang/index.html").is_file()


def test_hand_placed_file_survives_and_is_reported(project: Path) -> None:
    keep = project / "site/authors/my-notes.txt"
    keep.write_text("mine", encoding="utf-8")
    (project / "seeds/001_195b1e5c39d23b83.txt").unlink()
    report = pipeline.build(project).report
    assert keep.read_text() == "mine"
    assert "authors/my-notes.txt" in report.foreign


def test_bad_seed_leaves_site_byte_identical(project: Path) -> None:
    before = snapshot(project / "site")
    (project / "seeds/003_bad.txt").write_text(
        "arXiv subjects\n\nPublications and source records attributed to X.\n"
    )
    with pytest.raises(BuildError) as failure:
        pipeline.build(project)
    assert any(d.path == "seeds/003_bad.txt" and d.line == 3 for d in failure.value.diagnostics)
    assert snapshot(project / "site") == before


def test_exception_mid_render_leaves_site_byte_identical(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = snapshot(project / "site")
    original = views.Planner.paper
    calls = {"n": 0}

    def failing_paper(self, paper):  # the first paper page planned (after the site's own pages)
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("injected failure")
        return original(self, paper)

    monkeypatch.setattr(views.Planner, "paper", failing_paper)
    (project / "seeds/002_ada.txt").write_text(EXTRA_SEED, encoding="utf-8")
    with pytest.raises(RuntimeError, match="injected"):
        pipeline.build(project)
    assert snapshot(project / "site") == before


def test_template_error_names_the_template_and_leaves_site_alone(project: Path) -> None:
    before = snapshot(project / "site")
    template = project / "templates/paper.html"
    template.write_text(template.read_text().replace("{{ paper.year }}</a>", "{{ paper.yeer }}</a>", 1))
    with pytest.raises(BuildError) as failure:
        pipeline.build(project)
    (problem,) = [d for d in failure.value.diagnostics if d.severity.value == "error"]
    assert problem.path == "templates/paper.html" and problem.line > 0
    assert "yeer" in problem.message
    assert snapshot(project / "site") == before


def orphans_of(project: Path, wait: float = 5.0) -> list[str]:
    """Build processes (workers of a killed build) still running on `project` after `wait`."""
    deadline = time.monotonic() + wait
    while True:
        found = []
        for status in Path("/proc").glob("[0-9]*/cmdline"):
            with contextlib.suppress(OSError):
                words = status.read_bytes().split(b"\0")
                if str(project).encode() in words and any(w.endswith(b"build.py") for w in words):
                    found.append(status.parent.name)
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def test_build_killed_mid_write_leaves_no_truncated_file(project: Path) -> None:
    site = project / "site"
    old = {p: b for p, (b, _) in snapshot(site).items()}
    (project / "seeds/002_ada.txt").write_text(EXTRA_SEED, encoding="utf-8")
    fresh = make_project(project.parent / "reference")
    shutil.copy(project / "seeds/002_ada.txt", fresh / "seeds/")
    pipeline.build(fresh)
    new = {p: b for p, (b, _) in snapshot(fresh / "site").items()}
    command = [sys.executable, str(ROOT / "build.py"), "--project", str(project)]
    for delay in (0.3, 0.6, 0.9, 1.2):
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert not orphans_of(project), "a killed build left processes behind"
        for path, (data, _) in snapshot(site).items():
            if path.startswith(("pagefind/", ".")) or os.path.basename(path).startswith(".tmp-"):
                continue
            assert data in (old.get(path), new.get(path)), f"{path} is neither old nor new"
    pipeline.build(project)
    repaired = snapshot(site)
    assert {p: b for p, (b, _) in repaired.items() if not p.startswith(("pagefind/", "."))} == {
        p: b for p, b in new.items() if not p.startswith(("pagefind/", "."))
    }

"""The golden site: a fixture project of its own (`tests/fixtures/golden-project/`: seeds and
content as shipped once, a fixed `site.yaml`, the built-in theme) built and compared file by
file with `tests/fixtures/golden/` (Pelican's habit), so editing the demo project changes no
golden file. Any change to what the build writes shows here as a
diff to review, page by page.

After an intended change, regenerate it and review the diff of the folder:

    SCHOLARSITE_REGENERATE=1 python -m pytest tests/test_golden.py

The search index (Pagefind writes its filter files in an arbitrary order, upstream issue #638)
and the build's own bookkeeping are left out; the search has tests of its own.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from scholarsite import pipeline
from scholarsite.write import MANIFEST, STATS

from .conftest import FIXTURES

GOLDEN = FIXTURES / "golden"
PROJECT = FIXTURES / "golden-project"
LEFT_OUT = ("pagefind/", MANIFEST, STATS)
REGENERATE = "SCHOLARSITE_REGENERATE=1 python -m pytest tests/test_golden.py"


def site_files(site: Path) -> dict[str, bytes]:
    """Every file of a site by path, but the search index and the bookkeeping."""
    return {
        path.relative_to(site).as_posix(): path.read_bytes()
        for path in sorted(site.rglob("*"))
        if path.is_file() and not path.relative_to(site).as_posix().startswith(LEFT_OUT)
    }


def test_the_build_gives_the_golden_site(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    pipeline.build(project, tmp_path / "site", caches=pipeline.Caches.empty())
    built = site_files(tmp_path / "site")
    if os.environ.get("SCHOLARSITE_REGENERATE") == "1":
        shutil.rmtree(GOLDEN, ignore_errors=True)
        for path, data in built.items():
            (GOLDEN / path).parent.mkdir(parents=True, exist_ok=True)
            (GOLDEN / path).write_bytes(data)
    golden = site_files(GOLDEN)
    assert sorted(built.keys() - golden.keys()) == [], f"new files; if intended: {REGENERATE}"
    assert sorted(golden.keys() - built.keys()) == [], f"files gone; if intended: {REGENERATE}"
    differing = [path for path in golden if golden[path] != built[path]]
    assert differing == [], f"files differ; if intended: {REGENERATE}"

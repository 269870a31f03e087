"""Shared fixtures: project folders copied from the repository, built into temporary folders."""

from __future__ import annotations

import html
import json
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from scholarsite import pipeline
from scholarsite.inputs import userkey
from scholarsite.outputs import downloads
from scholarsite.outputs.families import exports

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
PROJECT_PARTS = ("seeds", "content", "templates", "assets")


def make_project(target: Path, seeds: Path | None = None, site_yaml: str | None = None) -> Path:
    """A project folder: the repository's content, templates and assets, with given seeds."""
    target.mkdir(parents=True, exist_ok=True)
    for part in PROJECT_PARTS:
        source = seeds if part == "seeds" and seeds is not None else ROOT / part
        shutil.copytree(source, target / part)
    (target / "site.yaml").write_text(
        site_yaml if site_yaml is not None else (ROOT / "site.yaml").read_text()
    )
    return target


def adopt_example(project: Path) -> Path:
    """The example seed of a new project made a real one (renamed, so that it is built), as a
    maintainer who edits it into a profile would: Ada Lovelace's two papers."""
    seed = project / "seeds/ada-lovelace.txt"
    (project / "seeds/example.txt").rename(seed)
    return seed


BASE_URL_YAML = "title: Test records\nbase_url: https://example.org/scholarsite/\n"


@pytest.fixture(scope="session", autouse=True)
def user_key_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Where this session's builds keep the user's cache key (`inputs.userkey`): a folder of
    the session's, not the home folder's (processes the tests start use the home folder's)."""
    folder = tmp_path_factory.mktemp("user-cache") / "scholarsite"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(userkey, "key_folder", lambda: folder)
        yield folder


@pytest.fixture(scope="session")
def shipped_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped seeds with base_url set (feeds and sitemap on), built once."""
    project = make_project(tmp_path_factory.mktemp("shipped"), site_yaml=BASE_URL_YAML)
    pipeline.build(project)
    return project


@pytest.fixture(scope="session")
def shipped_site(shipped_project: Path) -> Path:
    """The built site/ folder of the shipped seeds."""
    return shipped_project / "site"


def start_preview(project: Path, *options: str) -> tuple[subprocess.Popen[str], int]:
    """`python build.py serve` on a free port; returns once the server accepts connections."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [
        sys.executable,
        str(ROOT / "build.py"),
        "--project",
        str(project),
        "serve",
        "--port",
        str(port),
    ]
    process = subprocess.Popen(
        [*command, *options], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    wait_for_port(port)
    return process, port


def wait_for_port(port: int, seconds: float = 60) -> None:
    """Return once something accepts connections on 127.0.0.1:`port` (or the time is up)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)


CITATION_DATA = re.compile(r'<script type="application/json" id="citation-data">(.*?)</script>', re.S)
ABSTRACT_BLOCK = re.compile(r'<div class="abstract-text">(.*?)</div>\s*</section>', re.S)
TITLE_META = re.compile(r'<meta name="citation_title" content="([^"]*)">')
CANONICAL = re.compile(r'<link rel="canonical" href="([^"]*)">')
BIBTEX_BLOCK = re.compile(r'<pre id="bibtex"[^>]*><code>(.*?)</code></pre>', re.S)


def author_bib(site: Path, slug: str) -> str:
    """The BibTeX an author's page saves: their entries, cut from the part of the authors'
    BibTeX that holds them (as `assets/site.js` cuts them)."""
    for part in sorted(site.glob("data/bibtex/authors-*.bib")):
        found = exports.author_entries(part.read_text(encoding="utf-8"), slug)
        if found is not None:
            return found
    raise AssertionError(f"no part of the authors' BibTeX holds {slug}")


def page_downloads(folder: Path) -> dict[str, str]:
    """The citation downloads the page in `folder` offers, by extension (bib, ris, json): made
    from the page as `assets/cite.js` makes them (the browser test checks the script agrees)."""
    page = (folder / "index.html").read_text(encoding="utf-8")
    data = json.loads(CITATION_DATA.search(page)[1])
    shown = ABSTRACT_BLOCK.search(page)
    canonical = CANONICAL.search(page)
    return downloads.texts(
        data,
        {
            "abstract": shown[1] if shown else "",
            "bibtex": html.unescape(BIBTEX_BLOCK.search(page)[1]),
            "title": html.unescape(TITLE_META.search(page)[1]),
            "canonical": html.unescape(canonical[1]) if canonical else "",
        },
    )

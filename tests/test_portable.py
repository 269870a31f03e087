"""`build --portable`: a site that works opened from disk (`file://`), checked in Chromium."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tools.qa.browser import open_browser

from .conftest import ROOT, make_project

pytestmark = pytest.mark.browser
FOLDER_LINK = re.compile(r'href="(?![a-z]+:)(?!#)[^"]*/"')


def test_a_portable_site_works_from_disk(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    command = [sys.executable, str(ROOT / "build.py"), "--project", str(project), "build", "--quiet"]
    subprocess.run([*command, "--portable"], check=True, capture_output=True)
    site = project / "site"
    pages = list(site.rglob("*.html"))
    assert not [p for p in pages if FOLDER_LINK.search(p.read_text(encoding="utf-8"))]
    with open_browser() as browser:
        page = browser.new_page()
        page.goto((site / "index.html").as_uri())
        page.click("a[href='authors/index.html']")
        page.wait_for_load_state()
        assert page.url.endswith("/authors/index.html") and page.title().startswith("Authors")
        page.click("main a[href$='/index.html'] >> nth=0")  # an author's page, one folder deeper
        page.wait_for_load_state()
        assert re.search(r"/authors/[^/]+/index\.html$", page.url) and page.locator("main h1").count() == 1
        page.goto((site / "search/index.html").as_uri())
        assert "needs the site to be served" in page.inner_text("main")
    subprocess.run(command, check=True, capture_output=True)  # without --portable: folder links again
    assert FOLDER_LINK.search((site / "index.html").read_text(encoding="utf-8"))

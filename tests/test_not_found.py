"""The 404 page works at any depth, as GitHub Pages serves it, with or without `base_url`.

Chromium is pointed at `user.github.io` (a host-resolver rule maps it to a local server that
answers a missing path with `404.html`, as GitHub Pages does), for a project site at `/lab/`.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import pytest

from scholarsite import pipeline
from tools.qa.browser import open_browser

from .conftest import make_project
from .test_author_identity import ADA

pytestmark = pytest.mark.browser
HOST = "user.github.io"


class PagesLike(http.server.SimpleHTTPRequestHandler):
    """The site under /lab/; a missing path gets 404.html with status 404."""

    def send_head(self):  # type: ignore[no-untyped-def]
        path = self.path.split("?")[0]
        inside = path.removeprefix("/lab")
        target = Path(self.directory, inside.lstrip("/"))
        if path.startswith("/lab/") and (target.is_file() or (target / "index.html").is_file()):
            self.path = inside
            return super().send_head()
        body = Path(self.directory, "404.html").read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return None

    def log_message(self, format: str, *args: object) -> None:
        return


@contextmanager
def pages_server(site: Path) -> Iterator[int]:
    """A GitHub-Pages-like server of `site` on a free port."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(PagesLike, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()


@pytest.mark.parametrize("base_url", [None, f"https://{HOST}/lab/"])
def test_the_404_page_links_work_at_any_depth(tmp_path: Path, base_url: str | None) -> None:
    site_yaml = f"base_url: {base_url}\n" if base_url else "title: Lab\n"
    project = make_project(tmp_path / "p", site_yaml=site_yaml)
    pipeline.build(project, workers=1)
    with (
        pages_server(project / "site") as port,
        open_browser(f"--host-resolver-rules=MAP {HOST} 127.0.0.1") as browser,
    ):
        page = browser.new_page()
        for missing in ("/lab/nope", "/lab/papers/2099/nope/", "/lab/a/b/c/d/"):
            url = f"http://{HOST}:{port}{missing}"
            response = page.goto(url)
            assert response is not None and response.status == 404
            hrefs = page.eval_on_selector_all(".index-links a", "links => links.map(a => a.href)")
            expected_root = base_url if base_url else f"http://{HOST}:{port}/lab/"
            assert hrefs and all(h.startswith(expected_root) for h in hrefs), (missing, hrefs)
            if not base_url:
                page.click(".index-links a[href$='authors/']")
                page.wait_for_load_state()
                assert page.url == f"http://{HOST}:{port}/lab/authors/"
                assert page.title().startswith("Authors")
        page.close()


@pytest.mark.parametrize("base_url", [None, f"https://{HOST}/lab/"])
def test_a_papers_address_under_the_slug_rule_before_goes_on_to_its_page(
    tmp_path: Path, base_url: str | None
) -> None:
    site_yaml = f"base_url: {base_url}\n" if base_url else "title: Lab\n"
    project = make_project(tmp_path / "p", site_yaml=site_yaml)
    for seed in (project / "seeds").iterdir():
        seed.unlink()
    text = ADA.format(name="Ada Lovelace", title=r"Compiling $\mathcal{O}(n \log n)$ Programs", year=2021)
    (project / "seeds/ada.txt").write_text(text, encoding="utf-8")
    pipeline.build(project, workers=1)
    (page,) = (project / "site/papers/2021").iterdir()
    with (
        pages_server(project / "site") as port,
        open_browser(f"--host-resolver-rules=MAP {HOST} 127.0.0.1") as browser,
    ):
        tab = browser.new_page()
        for old in ("compiling-mathcal-o-n-log-n-programs/", "compiling-mathcal-o-n-log-n-programs"):
            tab.goto(f"http://{HOST}:{port}/lab/papers/2021/{old}")
            tab.wait_for_url(f"http://{HOST}:{port}/lab/papers/2021/{page.name}/")
            assert tab.title().startswith("Compiling")
        tab.goto(f"http://{HOST}:{port}/lab/papers/2021/never-there/")
        tab.wait_for_load_state("networkidle")
        assert tab.url.endswith("/never-there/") and tab.title().startswith("Page not found")
        tab.close()

"""The quality gate runs the real checkers: it passes a clean scratch site and catches defects."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import BinaryIO
from urllib.error import HTTPError
from urllib.request import urlopen

import pytest

from scholarsite.tex.render import tex_to_html
from tools import qa
from tools.qa import core, links
from tools.qa.__main__ import main

pytestmark = pytest.mark.qa

BASE = "https://example.org/scholarsite/"

CSS = """\
:root { color-scheme: light dark; --fg: #1a1a1a; --bg: #ffffff; --link: #0645ad; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e8e8e8; --bg: #121212; --link: #8ab4f8; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 48rem; padding: 1rem; font: 16px/1.5 sans-serif;
       color: var(--fg); background: var(--bg); }
a { color: var(--link); }
"""

JSONLD = {
    "@context": "https://schema.org",
    "@type": "ScholarlyArticle",
    "headline": "Paper one",
    "author": {"@type": "Person", "name": "Ada Example"},
}

FEED = f"""\
<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>{BASE}</id>
  <title>Ada Example: publications</title>
  <updated>2024-05-01T00:00:00Z</updated>
  <author><name>Ada Example</name></author>
  <link rel="self" href="{BASE}feed.xml"/>
  <entry>
    <id>{BASE}publications/paper-one/</id>
    <title>Paper one</title>
    <updated>2024-05-01T00:00:00Z</updated>
    <link href="{BASE}publications/paper-one/"/>
  </entry>
</feed>
"""

PAGES = {
    "index.html": (
        "Ada Example",
        f"""
        <h1 id="intro">Ada Example</h1>
        <p>Research on examples. <a href="#intro">Back to the introduction</a>.</p>
        <p><img src="portrait.svg" alt="Portrait of Ada Example" width="80" height="80"></p>
        <script type="application/ld+json">{json.dumps(JSONLD)}</script>""",
    ),
    "publications/index.html": (
        "Publications",
        """
        <h1>Publications</h1>
        <ul><li><a href="paper-one/">Paper one</a> (2024)</li></ul>""",
    ),
    "publications/paper-one/index.html": (
        "Paper one",
        f"""
        <h1>Paper one</h1>
        <p>By Ada Example. <a href="../../about/#contact">Contact the author</a>.</p>
        <script type="application/ld+json">{json.dumps(JSONLD)}</script>""",
    ),
    "about/index.html": (
        "About",
        """
        <h1>About</h1>
        <h2 id="contact">Contact</h2>
        <p>Write to ada@example.org.</p>""",
    ),
    "404.html": (
        "Not found",
        """
        <h1>Page not found</h1>
        <p>Try the <a href="./">home page</a>.</p>""",
    ),
}


def render(rel: str, title: str, body: str) -> str:
    """A complete, valid HTML5 page with relative links to the shared assets."""
    root = "../" * rel.count("/")
    return textwrap.dedent(f"""\
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{title}</title>
        <link rel="icon" href="{root}favicon.svg" type="image/svg+xml">
        <link rel="stylesheet" href="{root}style.css">
        <link rel="alternate" type="application/atom+xml" href="{root}feed.xml" title="Feed">
        </head>
        <body>
        <header><nav aria-label="Site"><a href="{root}index.html">Home</a>
        <a href="{root}publications/">Publications</a>
        <a href="{root}about/">About</a></nav></header>
        <main>{textwrap.dedent(body)}
        </main>
        </body>
        </html>
        """)


def sitemap(locs: list[str]) -> str:
    """A sitemaps.org urlset listing the given locations."""
    urls = "".join(f"<url><loc>{loc}</loc></url>" for loc in locs)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns='
        f'"http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>\n'
    )


def build_site(site: Path) -> Path:
    """Write the clean scratch site into SITE."""
    for rel, (title, body) in PAGES.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(render(rel, title, body), encoding="utf-8")
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8">'
        '<circle cx="4" cy="4" r="4" fill="#0645ad"/></svg>'
    )
    (site / "favicon.svg").write_text(svg)
    (site / "portrait.svg").write_text(svg)
    (site / "style.css").write_text(CSS)
    (site / "feed.xml").write_text(FEED)
    pages = [rel.removesuffix("index.html") for rel in PAGES if rel != "404.html"]
    (site / "sitemap.xml").write_text(sitemap([BASE + p for p in pages]))
    return site


@pytest.fixture(scope="module", autouse=True)
def tools() -> None:
    """Fail (never skip) when the checkers are not installed."""
    missing = qa.missing_tools()
    if missing:
        pytest.fail(f"QA tools missing ({', '.join(missing)}): run `bash .ci/install-qa.sh`", pytrace=False)


@pytest.fixture(scope="module")
def clean_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The clean scratch site, shared read-only by the tests."""
    return build_site(tmp_path_factory.mktemp("clean") / "site")


@pytest.fixture
def site(clean_site: Path, tmp_path: Path) -> Path:
    """A scratch copy of the clean site, for planting one defect."""
    return Path(shutil.copytree(clean_site, tmp_path / "site"))


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One Chromium shared by the browser tests."""
    with qa.open_browser() as context:
        yield context


def edit(path: Path, old: str, new: str) -> None:
    """Plant a defect by replacing text in a file of the scratch site."""
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def problems_of(result: qa.CheckResult) -> str:
    """All problems of a failed check as one string, for assertions."""
    assert not result.ok, f"{result.name} passed but should have caught the defect"
    return "\n".join(result.problems)


# -- the clean site ------------------------------------------------------------------------------

CHECKS = ["html", "links", "anchors", "paths", "a11y", "layout", "sitemap", "jsonld", "feeds"]


def test_whole_gate_passes_clean_site(
    clean_site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main([str(clean_site), "--screenshots", str(tmp_path / "shots")])
    report = capsys.readouterr().out
    assert status == 0, report
    lines = report.splitlines()
    assert [line.split()[:2] for line in lines[:-1]] == [[name, "ok"] for name in CHECKS]
    assert lines[-1] == f"qa: all {len(CHECKS)} checks ok"
    assert len(list((tmp_path / "shots").glob("*.png"))) == 2 * len(qa.sample_pages(clean_site))


def test_cli_fails_on_a_defect(site: Path, tmp_path: Path) -> None:
    edit(site / "about/index.html", 'id="contact"', 'id="kontakt"')
    command = [
        sys.executable,
        "-m",
        "tools.qa",
        str(site),
        "--base-path",
        "/scholarsite",
        "--screenshots",
        str(tmp_path / "shots"),
        "--pages",
        "about/",
    ]
    root = Path(__file__).resolve().parent.parent  # tools/ is not installed: run it from the checkout
    proc = subprocess.run(command, check=False, capture_output=True, text=True, timeout=300, cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "anchors  FAIL    1 problems" in proc.stdout
    assert proc.stdout.splitlines()[-1] == f"qa: 1 of {len(CHECKS)} checks FAILED (anchors)"


def test_missing_tool_names_the_install_script(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, clean_site: Path
) -> None:
    monkeypatch.setattr(core, "_node_modules_candidates", lambda: [tmp_path])
    assert "node_modules/vnu-jar/build/dist/vnu.jar" in qa.missing_tools()
    with pytest.raises(qa.ToolMissingError, match=r"run `bash \.ci/install-qa\.sh`"):
        qa.check_html(clean_site)


def test_sample_has_one_page_per_kind(clean_site: Path) -> None:
    assert qa.sample_pages(clean_site) == [
        "index.html",
        "404.html",
        "about/index.html",
        "publications/index.html",
        "publications/paper-one/index.html",
    ]


def test_server_exposes_only_the_base_path(clean_site: Path) -> None:
    with qa.serve(clean_site, "/scholarsite/") as url:
        assert urlopen(url).status == 200
        assert urlopen(url.rstrip("/")).url == url  # redirected to the trailing slash
        with pytest.raises(HTTPError) as above:
            urlopen(url.removesuffix("scholarsite/") + "index.html")
        assert above.value.code == 404


@contextmanager
def hang_up_once(site: Path, path: str) -> Iterator[tuple[str, list[str]]]:
    """Serve SITE at the root, closing the first connection that asks for PATH unanswered.

    Yields the base URL and the list of requests hung up on.
    """
    hung_up: list[str] = []

    class HangUpOnce(SimpleHTTPRequestHandler):
        def send_head(self) -> BinaryIO | None:
            if self.path == path and not hung_up:
                hung_up.append(self.path)
                return None  # do_GET/do_HEAD then send nothing and the connection closes
            return super().send_head()

        def log_message(self, format: str, *args: object) -> None:
            """Keep the test quiet."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(HangUpOnce, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", hung_up
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_links_retry_a_request_left_unanswered(clean_site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with hang_up_once(clean_site, "/about/") as (url, hung_up):
        assert qa.check_links(clean_site, base_url=url).ok
    assert hung_up == ["/about/"]
    monkeypatch.setattr(links, "CRAWL_FLAGS", [])  # without the retries the hang-up is a broken link
    with hang_up_once(clean_site, "/about/") as (url, hung_up):
        assert "/about/ (HTTP 0)" in problems_of(qa.check_links(clean_site, base_url=url))


# -- planted defects ------------------------------------------------------------------------------


def test_html_catches_invalid_markup(site: Path) -> None:
    edit(site / "about/index.html", "<h1>About</h1>", "<h1>About</h2><div><span></div>")
    assert "about/index.html" in problems_of(qa.check_html(site))


def test_links_catch_broken_link(site: Path) -> None:
    edit(site / "publications/index.html", 'href="paper-one/"', 'href="paper-two/"')
    assert "paper-two/ (HTTP 404)" in problems_of(qa.check_links(site))


def test_links_catch_broken_same_page_fragment(site: Path) -> None:
    edit(site / "index.html", 'id="intro"', 'id="introduction"')
    assert "/scholarsite/#intro (missing fragment)" in problems_of(qa.check_links(site))


def test_anchors_catch_broken_fragment_on_other_page(site: Path) -> None:
    # linkinator misses this one: about/ is already fetched when paper-one/ links to #contact.
    edit(site / "about/index.html", 'id="contact"', 'id="kontakt"')
    found = problems_of(qa.check_fragments(site))
    assert 'publications/paper-one/index.html: <a href="../../about/#contact">' in found


def test_link_above_sub_path_caught_by_crawl_and_paths(site: Path) -> None:
    edit(site / "about/index.html", "<h1>About</h1>", '<h1>About</h1><a href="/x/">x</a>')
    assert "/x/ (HTTP 404)" in problems_of(qa.check_links(site))
    assert 'about/index.html: <a href="/x/">' in problems_of(qa.check_root_relative(site))


def test_a11y_catches_missing_alt(site: Path, browser: object) -> None:
    edit(site / "index.html", ' alt="Portrait of Ada Example"', "")
    found = problems_of(qa.check_accessibility(site, ["/scholarsite/"], browser=browser))
    assert "index.html [light] image-alt" in found


def test_a11y_catches_low_contrast(site: Path, browser: object) -> None:
    edit(site / "about/index.html", "<p>Write", '<p style="color: #bbbbbb">Write')
    found = problems_of(qa.check_accessibility(site, ["about/"], browser=browser))
    assert "about/index.html [light] color-contrast" in found


def test_a11y_checks_dark_scheme_too(site: Path, browser: object) -> None:
    edit(site / "style.css", "--link: #8ab4f8;", "--link: #1a2a5a;")
    found = problems_of(qa.check_accessibility(site, ["about/"], browser=browser))
    assert "[dark] color-contrast" in found and "[light]" not in found


def test_sitemap_catches_schema_violation(site: Path) -> None:
    edit(site / "sitemap.xml", "</loc></url>", "</loc><priority>high</priority></url>")
    assert "priority" in problems_of(qa.check_sitemap(site))


def test_sitemap_catches_relative_loc(site: Path) -> None:
    (site / "sitemap.xml").write_text(sitemap(["about/"]))
    assert "not absolute: 'about/'" in problems_of(qa.check_sitemap(site))


def test_sitemap_catches_malformed_xml(site: Path) -> None:
    edit(site / "sitemap.xml", "</loc>", "")
    assert "sitemap.xml: not well-formed" in problems_of(qa.check_sitemap(site))


def test_jsonld_catches_broken_json(site: Path) -> None:
    edit(site / "publications/paper-one/index.html", '"Ada Example"}', '"Ada Example",}')
    found = problems_of(qa.check_jsonld(site))
    assert "publications/paper-one/index.html: JSON-LD block 1" in found


def test_feeds_catch_missing_required_element(site: Path) -> None:
    edit(site / "feed.xml", "<updated>2024-05-01T00:00:00Z</updated>\n    <link", "<link")
    assert "feed.xml: entry 1 lacks <updated>" in problems_of(qa.check_feeds(site))


def test_feeds_catch_malformed_xml(site: Path) -> None:
    edit(site / "feed.xml", "</title>", "</titel>")
    assert "feed.xml: not well-formed" in problems_of(qa.check_feeds(site))


def test_layout_catches_horizontal_overflow(site: Path, browser: object, tmp_path: Path) -> None:
    edit(
        site / "about/index.html",
        "<h1>About</h1>",
        '<h1>About</h1><div class="wide" style="width: 900px">Wide box</div>',
    )
    found = problems_of(qa.check_layout(site, ["about/"], screenshots=tmp_path / "shots", browser=browser))
    assert "about/index.html @390px horizontal overflow" in found and "div.wide" in found
    assert "@1280px" not in found


def test_layout_catches_overlapping_text(site: Path, browser: object, tmp_path: Path) -> None:
    edit(
        site / "about/index.html",
        "<h1>About</h1>",
        '<h1>About</h1><p style="margin-top: -3.5rem">Covering text</p>',
    )
    found = problems_of(qa.check_layout(site, ["about/"], screenshots=tmp_path / "shots", browser=browser))
    assert "text overlaps" in found and "Covering text" in found


# MathML as the site renders it: accents and bars (mover/munder) drawn over or under their base.
ACCENTS = tex_to_html(
    r"We estimate $\hat{x}$ and $\hat{\theta}$ from $\bar{x}$, $\vec{v}$, $\tilde{x}$, $\overline{AB}$"
    r" and $\underline{y}$, with $\sum_{i=1}^{n} \hat{x}_i^2$ in text that wraps at 390 px."
    r" $$\hat{\theta} = \frac{1}{n}\sum_{i=1}^{n} \bar{x}_i + \overline{AB} + \vec{v}$$"
)


@pytest.mark.browser
def test_layout_accepts_mathml_accents(site: Path, browser: object, tmp_path: Path) -> None:
    edit(site / "about/index.html", "<p>Write", f"<p>{ACCENTS}</p><p>Write")
    result = qa.check_layout(site, ["about/"], screenshots=tmp_path / "shots", browser=browser)
    assert result.ok, result.problems


@pytest.mark.browser
def test_layout_catches_text_over_a_formula(site: Path, browser: object, tmp_path: Path) -> None:
    edit(
        site / "about/index.html",
        "<p>Write",
        f'<p>{ACCENTS}</p><p style="margin-top: -4rem">Covering text</p><p>Write',
    )
    found = problems_of(qa.check_layout(site, ["about/"], screenshots=tmp_path / "shots", browser=browser))
    assert "Covering text" in found and re.search(r'\bm[io] "', found), found

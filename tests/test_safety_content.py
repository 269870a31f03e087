"""Content pages are safe by default: raw HTML and javascript:/vbscript:/data: links in
`content/*.md` and author bios never reach a page (a warning names the file and line);
`unsafe_html: true` keeps raw HTML but not those links; every page carries a
Content-Security-Policy that the whole site passes in Chromium."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from scholarsite import pipeline
from scholarsite.errors import Diagnostic
from scholarsite.inputs.project import load_project

from .conftest import make_project, start_preview

AUTHOR = "ziheng-jiang"
HOSTILE = {  # what a hostile author writes, and what must not be in the page
    "script": ("<script>alert('script')</script>", "alert('script')"),
    "img onerror": ('<img src="x.png" onerror="alert(\'img\')">', "onerror"),
    "javascript link": ("[click](javascript:alert('link'))", "javascript:"),
    "iframe": ('<iframe src="https://evil.example/"></iframe>', "<iframe"),
    "onclick": ("<p onclick=\"alert('p')\">text</p>", "onclick"),
    "data link": ("[file](data:text/html;base64,PHNjcmlwdD4=)", "data:text/html"),
    "vbscript link": ("[vb](vbscript:msgbox)", "vbscript:"),
}


def hostile_body() -> str:
    """A Markdown body with every hostile form, one per paragraph (lines 4, 6, 8, ...)."""
    return "".join(f"{source}\n\n" for source, _ in HOSTILE.values()) + "Plain *text* stays; $x^2$ too.\n"


def write_pages(project: Path, body: str) -> None:
    """`content/hostile.md` and the bio of Ziheng Jiang, both with `body` after front matter."""
    (project / "content/hostile.md").write_text(f"---\ntitle: Hostile\n---\n{body}", encoding="utf-8")
    (project / "content/authors").mkdir(exist_ok=True)
    (project / f"content/authors/{AUTHOR}.md").write_text(
        f"---\naffiliation: Example Lab\n---\n{body}", encoding="utf-8"
    )


def built(tmp_path: Path, site_yaml: str = "title: Test\n") -> tuple[Path, list[Diagnostic]]:
    """A project of the shipped seeds with the hostile pages, built; (site/, diagnostics)."""
    project = make_project(tmp_path / "p", site_yaml=site_yaml)
    write_pages(project, hostile_body())
    result = pipeline.build(project)
    return project / "site", list(result.diagnostics)


def main_of(page: Path) -> str:
    """The `<main>` element of a built page (the theme's own scripts are outside it)."""
    match = re.search(r"<main.*</main>", page.read_text(encoding="utf-8"), re.S)
    assert match
    return match[0]


PAGES = {"content page": "hostile/index.html", "author bio": f"authors/{AUTHOR}/index.html"}


@pytest.fixture(scope="module")
def safe_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Diagnostic]]:
    """The hostile pages built with the default settings."""
    return built(tmp_path_factory.mktemp("safe"))


@pytest.mark.parametrize("where", PAGES)
@pytest.mark.parametrize("form", HOSTILE)
def test_hostile_html_is_absent_from_the_page(safe_build, where: str, form: str) -> None:
    site, _ = safe_build
    html = main_of(site / PAGES[where])
    assert HOSTILE[form][1] not in html
    assert "<em>text</em>" in html and "<math" in html  # the rest of the page is intact


@pytest.mark.parametrize("path", ["content/hostile.md", f"content/authors/{AUTHOR}.md"])
def test_a_warning_names_the_file_and_line_of_each_dropped_form(safe_build, path: str) -> None:
    _, diagnostics = safe_build
    dropped = [(d.line, d.message) for d in diagnostics if d.path == path and "dropped" in d.message]
    lines = [line for line, _ in dropped]
    assert lines == sorted(lines) and set(lines) == {4 + 2 * n for n in range(len(HOSTILE))}
    text = " ".join(message for _, message in dropped)
    for name in ("<script>", "'onerror'", "javascript:", "<iframe>", "'onclick'", "data:", "vbscript:"):
        assert name in text
    assert all(d.severity.value == "warning" for d in diagnostics if d.path == path)


def test_unsafe_html_keeps_raw_html_but_never_dangerous_links(tmp_path: Path) -> None:
    site, diagnostics = built(tmp_path, "title: Test\nunsafe_html: true\n")
    for page in PAGES.values():
        html = main_of(site / page)
        assert "<script>alert('script')</script>" in html
        assert '<iframe src="https://evil.example/"></iframe>' in html
        assert "onclick=" in html and "onerror=" in html
        assert "javascript:" not in html and "vbscript:" not in html and "data:text/html" not in html
    warned = {d.message for d in diagnostics if d.path == "content/hostile.md"}
    assert any("javascript:" in message for message in warned)
    assert not any("<script>" in message for message in warned)


def test_unsafe_html_must_be_true_or_false(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", site_yaml="unsafe_html: yes please\n")
    problems = [d for d in load_project(project).diagnostics if d.path == "site.yaml"]
    assert any("'unsafe_html': expected true or false" in d.message for d in problems)


def test_markdown_output_is_kept_whole(tmp_path: Path) -> None:
    body = (
        '# Title {: #top }\n\nA [link](https://example.org/?a=1&b=2 "t"), ![logo](logo.png), '
        "`<code>` and a note[^1].\n\n| a | b |\n|:-|-:|\n| 1 | 2 |\n\n*[HTML]: HyperText\n\n"
        "HTML\n\n```python\nx < y\n```\n\n[^1]: The note.\n"
    )
    project = make_project(tmp_path / "p", site_yaml="title: Test\n")
    write_pages(project, body)
    result = pipeline.build(project)
    assert not [d for d in result.diagnostics if d.path.startswith("content/")]
    html = main_of(project / "site/hostile/index.html")
    for kept in (
        '<h1 id="top">Title</h1>',
        '<a href="https://example.org/?a=1&amp;b=2" title="t">link</a>',
        '<img alt="logo" src="logo.png">',
        "<code>&lt;code&gt;</code>",
        '<th class="align-left">a</th>',
        '<abbr title="HyperText">HTML</abbr>',
        '<code class="language-python">x &lt; y',
        'class="footnote-backref"',
    ):
        assert kept in html


# --- Content-Security-Policy, checked in Chromium -------------------------------------------

VIOLATIONS_JS = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
  e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile + ':' + e.lineNumber));
"""
EVERY_KIND = {
    "home": "",
    "author": f"authors/{AUTHOR}/",
    "authors": "authors/",
    "co-author network": "authors/_network/",
    "paper": None,  # found in the built site
    "papers": "papers/",
    "subject": "subjects/cs.DC/",
    "subjects": "subjects/",
    "year": "years/2025/",
    "years": "years/",
    "content page": "about/",
    "404, two folders deep": "no/such/page/",
}


class Violations:
    """CSP violations seen in a browser context: events on the page and console reports."""

    def __init__(self, context) -> None:
        self.console: list[str] = []
        self.context = context
        context.add_init_script(VIOLATIONS_JS)
        context.on("console", self.heard)

    def heard(self, message) -> None:
        """Keep console messages about the policy."""
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            self.console.append(message.text)

    def of(self, page) -> list[str]:
        """Every violation so far: the page's events and the console's reports."""
        return [*page.evaluate("() => window.__csp"), *self.console]


@pytest.fixture(scope="module")
def browser():
    """One headless Debian Chromium for the module."""
    from tools.qa.browser import open_browser

    with open_browser() as context:
        yield context


@pytest.fixture(scope="module")
def csp_preview(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """`serve` on the shipped project (no base_url, so the 404 page finds its root by script)
    with an author bio holding a table, math and a hostile paragraph."""
    project = make_project(tmp_path_factory.mktemp("csp") / "p")
    (project / "content/authors").mkdir(exist_ok=True)
    (project / f"content/authors/{AUTHOR}.md").write_text(
        "---\naffiliation: Lab\n---\nCost $O(n^2)$.\n\n| a | b |\n|:-|-:|\n| 1 | 2 |\n\n"
        '<p onclick="alert(1)" style="color:red">hi</p><script>alert(2)</script>\n',
        encoding="utf-8",
    )
    process, port = start_preview(project, "--base-path", "/scholarsite/")
    try:
        yield project, f"http://127.0.0.1:{port}/scholarsite/"
    finally:
        process.terminate()
        process.wait(timeout=10)


def a_paper(site: Path) -> str:
    """The address of one paper page."""
    return next(site.glob("papers/*/*/index.html")).parent.relative_to(site).as_posix() + "/"


def policy_of(page) -> str:
    """The page's Content-Security-Policy meta."""
    return page.locator('meta[http-equiv="Content-Security-Policy"]').get_attribute("content")


@pytest.mark.browser
def test_every_page_kind_passes_its_content_security_policy(csp_preview, browser) -> None:
    project, base = csp_preview
    violations = Violations(browser)
    page = browser.new_page()
    try:
        for kind, path in EVERY_KIND.items():
            page.goto(base + (path if path is not None else a_paper(project / "site")))
            page.wait_for_load_state("load")
            assert "script-src 'self' 'wasm-unsafe-eval'" in policy_of(page), kind
            assert violations.of(page) == [], kind
            if kind.startswith("404"):  # the hashed inline script set <base>, the inline style applied
                assert page.evaluate("() => document.baseURI") == base.removesuffix("scholarsite/")
                assert page.evaluate("() => getComputedStyle(document.body).margin") != "8px"
            if kind == "paper":  # the citations are made in the page and saved under their key
                key = page.evaluate(
                    "() => Object.fromEntries(JSON.parse("
                    "document.getElementById('citation-data').textContent).csl).id"
                )
                with page.expect_download() as download:
                    page.locator("button[data-cite='bib']").click()
                assert download.value.suggested_filename == f"{key}.bib"
                assert violations.of(page) == [], kind
        page.goto(base)
        page.fill("#site-search", "MoE")
        page.press("#site-search", "Enter")
        page.wait_for_selector(".search-result", timeout=30_000)  # Pagefind's WebAssembly ran
        assert violations.of(page) == []
        page.goto(base + f"authors/{AUTHOR}/")
        assert page.locator("main math").count() >= 1
        assert page.locator("main svg").count() >= 1  # the inline SVG chart
        assert page.locator("main [onclick], main script").count() == 0
        page.locator("details.abstract summary").first.click()  # fetched from the paper's page
        page.locator("details.abstract div.abstract-text").first.wait_for()
        assert violations.of(page) == []
    finally:
        page.close()


@pytest.mark.browser
def test_the_preview_still_reloads_under_the_policy(csp_preview, browser) -> None:
    project, base = csp_preview
    violations = Violations(browser)
    page = browser.new_page()
    try:
        page.goto(base + "about/")
        page.wait_for_function("() => window.scholarsiteLive === true", timeout=30_000)  # connected
        about = project / "content/about.md"
        edited = about.read_text(encoding="utf-8") + "\nReloaded under the policy.\n"
        about.write_text(edited, encoding="utf-8")
        page.wait_for_function(
            "() => document.body.innerText.includes('Reloaded under the policy')", timeout=60_000
        )
        assert violations.of(page) == []
    finally:
        page.close()

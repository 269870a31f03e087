"""Nothing from a seed can inject markup: hostile titles, abstracts and names show as text."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import bibtexparser
import pytest

from scholarsite import pipeline
from tools.qa.pages import scan_page

from .conftest import BASE_URL_YAML, FIXTURES, make_project, page_downloads

TITLE = "<script>alert('title')</script> & <think>Quotes \"double\" and 'single'</think>"
NAME = 'Eve "<b>Mallory</b>" O\'Hara & Co'


class Elements(HTMLParser):
    """Every start tag and attribute of a page, as the browser's tokenizer would see them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = make_project(tmp_path_factory.mktemp("hostile"), FIXTURES / "hostile/seeds", BASE_URL_YAML)
    pipeline.build(project)
    return project / "site"


def parsed(page: Path) -> Elements:
    """The tags and text of a page."""
    elements = Elements()
    elements.feed(page.read_text(encoding="utf-8"))
    return elements


def test_no_injected_elements_or_handlers_on_any_page(hostile_site: Path) -> None:
    pages = sorted(hostile_site.rglob("*.html"))
    assert len(pages) > 10
    for page in pages:
        for tag, attrs in parsed(page).tags:
            assert tag not in {"think", "img", "b", "textarea"}, (page, tag)
            assert not any(name.startswith("on") for name in attrs), (page, tag, attrs)
            if tag == "script":
                assert attrs.get("type") in {"application/ld+json", "application/json", "module", None}
                finds_root = page == hostile_site / "404.html"  # the template's own <base> script
                data = attrs.get("type") in {"application/ld+json", "application/json"}
                assert attrs.get("src") or data or finds_root, (page, attrs)


def test_hostile_text_is_shown_as_text(hostile_site: Path) -> None:
    paper = next((hostile_site / "papers/2025").glob("*/index.html"))
    elements = parsed(paper)
    text = "".join(elements.text)
    assert TITLE in text
    assert 'alert("abstract")' in text and "<think> tag" in text
    assert "</textarea><img src=x onerror=alert(1)>" in text
    heads = [attrs for tag, attrs in elements.tags if tag == "meta"]
    og_title = next(a["content"] for a in heads if a.get("property") == "og:title")
    assert og_title == TITLE
    pages = (hostile_site / "authors").glob("*/index.html")
    author = parsed(next(p for p in pages if not p.parent.name.startswith("_")))  # not the network
    assert NAME in "".join(author.text)


def test_math_text_cannot_carry_markup(hostile_site: Path) -> None:
    paper = next((hostile_site / "papers/2025").glob("*/index.html"))
    html = paper.read_text()
    assert "<script>alert(2)" not in html
    assert re.search(r"<math[^>]*>.*?&lt;script&gt;alert\(2\)", html, re.S)


def test_jsonld_survives_script_closing_text(hostile_site: Path) -> None:
    for page in hostile_site.rglob("*.html"):
        raw = page.read_text()
        for block in scan_page(page).jsonld:
            assert "</script" not in block.lower()
            json.loads(block)
        assert raw.count("<script") == raw.count("</script>")
    second = next((hostile_site / "papers/2024").glob("*/index.html"))
    article = next(json.loads(b) for b in scan_page(second).jsonld if '"ScholarlyArticle"' in b)
    assert article["headline"] == "Second paper </title><script>alert(3)</script>"
    assert "abstract" not in article  # shown on the page, and in the citation files:
    (csl,) = json.loads(page_downloads(second.parent)["json"])
    assert '"}]</script><script>alert(4)</script>' in csl["abstract"]


def test_exports_keep_the_text(hostile_site: Path) -> None:
    paper_dir = next((hostile_site / "papers/2025").glob("*/"))
    library = bibtexparser.parse_string(page_downloads(paper_dir)["bib"])
    assert not library.failed_blocks
    title = library.entries[0]["title"]
    assert "<script>" in title and "<think>" in title
    csl = json.loads(page_downloads(paper_dir)["json"])
    assert csl[0]["title"] == TITLE
    feed = (hostile_site / "feed.xml").read_text()
    assert "<script>" not in feed and "&lt;script&gt;" in feed


def test_slugs_stay_inside_site(hostile_site: Path) -> None:
    for path in hostile_site.rglob("*"):
        assert path.resolve().is_relative_to(hostile_site.resolve())
        assert re.fullmatch(r"[A-Za-z0-9._-]+", path.name), path


class Anchors(HTMLParser):
    """The href of every link of a page, and whether any link opens inside another."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []
        self.open = 0
        self.nested = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.nested |= self.open > 0
            self.open += 1
            self.hrefs.append(dict(attrs).get("href") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self.open = max(0, self.open - 1)


LINKED_SEED = r"""arXiv subjects

Ann Linker

Publications and source records attributed to Ann Linker.

1 recordsLinked to original sources

arXiv2025

Tool \href{https://x.org/"onclick="alert(5)}{X} and \href{javascript:alert(6)}{Y} and $\url{https://z.org}$

Code at \href{https://github.com/a-b/c}{\href{https://nested.org}{here}}
and \href{javascript:alert(7)}{there}, $\href{https://m.org/a-b}{math}$.

cs.CR↗
"""


@pytest.fixture(scope="module")
def linked_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    seeds = tmp_path_factory.mktemp("linked-seeds")
    (seeds / "linker.txt").write_text(LINKED_SEED, encoding="utf-8")
    project = make_project(tmp_path_factory.mktemp("linked"), seeds, BASE_URL_YAML)
    pipeline.build(project)
    return project / "site"


def test_tex_links_are_links_only_in_abstracts(linked_site: Path) -> None:
    paper = next((linked_site / "papers/2025").glob("*/index.html"))
    anchors = Anchors()
    anchors.feed(paper.read_text(encoding="utf-8"))
    assert "https://github.com/a-b/c" in anchors.hrefs and "https://m.org/a-b" in anchors.hrefs
    # no link from the title (shown inside links) nor from inside a link's text
    assert not [h for h in anchors.hrefs if h.startswith(("https://x.org", "https://nested.org"))]


@pytest.mark.parametrize("site", ["hostile_site", "linked_site"])
def test_links_never_nest_and_never_run_script(site: str, request: pytest.FixtureRequest) -> None:
    for page in request.getfixturevalue(site).rglob("*.html"):
        anchors = Anchors()
        anchors.feed(page.read_text(encoding="utf-8"))
        assert not anchors.nested, page
        scripts = r"\s*(javascript:|vbscript:|data:text/html)"
        assert not [href for href in anchors.hrefs if re.match(scripts, href, re.I)], page

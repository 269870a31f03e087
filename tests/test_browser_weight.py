"""What issue 27 moved into the browser, in Chromium: citation downloads made by `assets/cite.js`
are byte for byte the texts of the citation exports and parse (BibTeX with bibtexparser, RIS
with rispy, CSL-JSON against its schema), hostile records too (quotes, `</script>`, markup in
titles and abstracts); a listing row's abstract, stored on the paper's page, shows in the row
when its toggle is opened."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import bibtexparser
import jsonschema
import pytest
import rispy

from scholarsite import pipeline
from scholarsite.outputs import citations
from scholarsite.outputs.families import exports
from tools.qa.browser import open_browser
from tools.qa.server import serve

from .conftest import BASE_URL_YAML, FIXTURES, author_bib, make_project

pytestmark = pytest.mark.browser
CSL_SCHEMA = json.loads((Path(__file__).parent / "data/csl-data.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module", params=["shipped", "hostile"])
def project(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    seeds = FIXTURES / "hostile/seeds" if request.param == "hostile" else None
    project = make_project(tmp_path_factory.mktemp(request.param), seeds, BASE_URL_YAML)
    pipeline.build(project)
    return project


def expected(record: citations.CitationRecord) -> dict[str, bytes]:
    """What the citation files held, by extension (the BibTeX without its abstract)."""
    bibtex = citations.to_bibtex(replace(record, abstract_plain=""))
    texts = {"bib": bibtex, "ris": citations.to_ris(record), "json": citations.csl_json_file([record])}
    return {ext: text.encode("utf-8") for ext, text in texts.items()}


def test_downloads_made_in_the_browser_are_the_citation_files(project: Path) -> None:
    data = pipeline.check(project).data
    papers = data.site.papers[:6]
    with open_browser() as browser, serve(project / "site", "/scholarsite/") as base:
        tab = browser.new_page()
        for paper in papers:
            record = data.records[paper.key]
            tab.goto(base + data.cards.paper(paper)["path"].removesuffix("index.html"))
            tab.wait_for_selector(".downloads button[data-cite]")
            made = {}
            for ext in ("bib", "ris", "json"):
                with tab.expect_download() as info:
                    tab.click(f'button[data-cite="{ext}"]')
                download = info.value
                assert download.suggested_filename == f"{record.key}.{ext}"
                made[ext] = Path(download.path()).read_bytes()
            assert made == expected(record), paper.key

            library = bibtexparser.parse_string(made["bib"].decode())
            assert not library.failed_blocks and library.entries[0].key == record.key
            (entry,) = rispy.loads(made["ris"].decode())
            assert entry["id"] == record.key
            items = json.loads(made["json"])
            jsonschema.Draft3Validator(CSL_SCHEMA).validate(items)
            (item,) = items
            assert item["id"] == record.key
            assert entry.get("abstract") == item.get("abstract")


def test_a_listing_row_shows_its_abstract_when_opened(project: Path) -> None:
    data = pipeline.check(project).data
    author = data.site.authors[0]
    paper = next(p for p in author.papers if data.cards.paper(p)["abstract_plain"])
    folder = data.cards.paper(paper)["path"].removesuffix("index.html")
    with open_browser() as browser, serve(project / "site", "/scholarsite/") as base:
        tab = browser.new_page()
        tab.goto(base + folder)
        abstract = tab.locator(".paper-page .abstract-text").inner_text()
        tab.goto(base + data.cards.author(author)["path"].removesuffix("index.html"))
        row = tab.locator("ol.rows > li", has=tab.locator(f'h3 > a[href$="{folder.split("/", 1)[1]}"]'))
        toggle = row.locator("details.abstract")  # the script's: without it, the title is the way
        toggle.locator("summary").click()
        shown = toggle.locator("div.abstract-text")
        shown.wait_for()
        assert shown.inner_text() == abstract and abstract
        assert toggle.locator("a[href$='#abstract']").count() == 0


def test_an_author_s_bibtex_link_saves_their_entries(project: Path) -> None:
    """The link points at the part of the authors' BibTeX holding the author's (without
    JavaScript, that file); the script saves the author's own entries, cut from it."""
    data = pipeline.check(project).data
    site = project / "site"
    with open_browser() as browser, serve(site, "/scholarsite/") as base:
        tab = browser.new_page()
        for author in data.site.authors[:3]:
            tab.goto(base + data.cards.author(author)["path"].removesuffix("index.html"))
            link = tab.locator(f'a[data-bibtex="{author.slug}"]')
            part = exports.author_bibtex_part(author.slug, len(data.site.authors))
            assert link.get_attribute("href").endswith(part)
            with tab.expect_download() as info:
                link.click()
            download = info.value
            assert download.suggested_filename == f"{author.slug}.bib"
            made = Path(download.path()).read_text(encoding="utf-8")
            assert made == author_bib(site, author.slug)
            expected = exports.bibliography(data, [data.records[p.key] for p in author.papers]).decode()
            assert made == expected and made
            library = bibtexparser.parse_string(made)
            assert not library.failed_blocks and len(library.entries) == len(author.papers)

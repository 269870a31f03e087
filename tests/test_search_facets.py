"""Search facets count papers: a subject's own page is never counted in them. Authors have no
records of their own (issue 27: a record is a file); the search page links the authors a query
names, from the author facet and the `people` of their papers."""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

from scholarsite import pipeline
from scholarsite.inputs.project import load_project
from scholarsite.model.checks import model_of
from scholarsite.model.model import Site
from scholarsite.outputs.families import search
from tools.qa.browser import open_browser
from tools.qa.server import serve

FACETS = """async () => {
  const box = document.getElementById('search');
  const first = box.dataset.shards.split(' ')[0];
  const pagefind = await import(new URL(box.dataset.root + first + 'pagefind.js', document.baseURI).href);
  return await pagefind.filters();
}"""


def expected_facets(site: Site) -> dict[str, dict[str, int]]:
    """What each facet should count: the papers of each author, subject and year, and the
    records of each kind."""
    return {
        "author": {a.name: len(a.papers) for a in site.authors},
        "subject": {s.code: len(s.papers) for s in site.subjects},
        "year": {str(y.year): len(y.papers) for y in site.years},
        "kind": {"Paper": len(site.papers), "Subject": len(site.subjects)},
    }


def test_only_paper_records_carry_author_subject_and_year_filters(shipped_project: Path) -> None:
    data, _ = pipeline.site_data(load_project(shipped_project))
    counted: dict[str, Counter[str]] = {}
    for record in search.records(data):
        if record["filters"]["kind"] != ["Paper"]:
            assert set(record["filters"]) == {"kind"}
        for facet, values in record["filters"].items():
            counted.setdefault(facet, Counter()).update(values)
    assert {facet: dict(counts) for facet, counts in counted.items()} == expected_facets(data.site)


@pytest.mark.browser
def test_pagefind_facet_counts_equal_paper_counts(shipped_project: Path) -> None:
    """The counts Pagefind itself gives the search page's filter menus (cs.DC: its papers)."""
    site = model_of(load_project(shipped_project))[0]
    with serve(shipped_project / "site", "/scholarsite/") as base, open_browser() as browser:
        page = browser.new_page()
        page.goto(base + "search/")
        page.wait_for_selector("#filter-subject")
        facets = page.evaluate(FACETS)
        menu = page.locator("#filter-subject option").all_inner_texts()
    expected = expected_facets(site)
    assert facets == expected
    dc = next(s for s in site.subjects if s.code == "cs.DC")
    assert f"cs.DC ({len(dc.papers)})" in menu and len(dc.papers) > 1


def test_a_paper_record_links_its_authors(shipped_project: Path) -> None:
    data, _ = pipeline.site_data(load_project(shipped_project))
    for record in search.records(data):
        if record["filters"]["kind"] == ["Paper"]:
            people = json.loads(record["meta"]["people"])
            assert [name for name, _ in people] == record["filters"]["author"]
            assert all(url.startswith("/authors/") for _, url in people)


@pytest.mark.browser
def test_a_query_naming_an_author_links_their_page(shipped_project: Path) -> None:
    """Typed without accents or case, the words of an author's name list them (with their
    papers' count) above the results, linked to their page."""
    site = model_of(load_project(shipped_project))[0]
    author = max(site.authors, key=lambda a: (len(a.papers), a.key))
    words = author.name.split()
    query = (
        unicodedata.normalize("NFD", f"{words[0][:3]} {words[-1]}").encode("ascii", "ignore").decode().upper()
    )
    with serve(shipped_project / "site", "/scholarsite/") as base, open_browser() as browser:
        page = browser.new_page()
        page.goto(base + "search/?q=" + query)
        link = page.locator(".search-authors a", has_text=author.name)
        link.wait_for()
        item = page.locator(".search-authors li", has_text=author.name).inner_text()
        assert f"({len(author.papers)} paper" in item
        link.click()
        page.wait_for_load_state()
        assert page.locator("h1").inner_text() == author.name

"""What only a browser can show: search under a sub-path, and the live preview reloading."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.corpus import generate
from scholarsite import pipeline
from tools.qa.browser import open_browser
from tools.qa.server import serve

from .conftest import make_project, start_preview

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser():
    """One headless Debian Chromium for the module."""
    with open_browser() as context:
        yield context


@pytest.fixture
def page(browser):
    """A fresh tab."""
    tab = browser.new_page()
    yield tab
    tab.close()


def result_titles(page) -> list[str]:
    """Titles of the search results shown."""
    return page.locator(".search-result h2").all_inner_texts()


def test_search_under_a_sub_path(shipped_site: Path, page) -> None:
    with serve(shipped_site, "/scholarsite/") as base:
        page.goto(base)
        page.fill("#site-search", "MoE")
        page.press("#site-search", "Enter")
        page.wait_for_url(re.compile(r"/scholarsite/search/\?q=MoE"))
        page.wait_for_selector(".search-result")
        titles = result_titles(page)
        assert any(t.startswith("Comet") for t in titles)
        assert any(t.startswith("MegaScale-MoE") for t in titles)
        everything = len(titles)

        page.select_option("#filter-subject", "cs.DC")
        page.wait_for_function(
            "() => { const t = [...document.querySelectorAll('.search-result h2')].map(h => h.innerText);"
            " return t.length > 0 && !t.some(x => x.startsWith('DisagMoE')); }",
            timeout=30_000,
        )
        narrowed = result_titles(page)
        assert 0 < len(narrowed) < everything
        assert any(t.startswith("Comet") for t in narrowed)

        page.select_option("#filter-subject", "")
        page.fill("#search-query", "Ziheng")
        link = page.locator(".search-authors a", has_text="Ziheng Jiang")  # authors: no records
        link.wait_for(timeout=30_000)
        link.click()
        page.wait_for_url(base + "authors/ziheng-jiang/")


def test_search_page_without_javascript_lists_the_indexes(shipped_site: Path, browser) -> None:
    context = browser.browser.new_context(java_script_enabled=False) if browser.browser else None
    if context is None:
        pytest.skip("persistent context has no browser handle")
    tab = context.new_page()
    with serve(shipped_site, "/scholarsite/") as base:
        tab.goto(base + "search/")
        assert tab.locator(".index-links a").count() == 4
    context.close()


@pytest.fixture
def preview(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """`python build.py serve` on a copy of the shipped project, under a sub-path."""
    project = make_project(tmp_path / "project")
    process, port = start_preview(project, "--base-path", "/scholarsite/")
    try:
        yield project, f"http://127.0.0.1:{port}/scholarsite/"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_preview_reloads_on_edit_shows_errors_and_recovers(preview, page) -> None:
    project, url = preview
    seed = project / "seeds/000_428d720ed8b996c5.txt"
    original = seed.read_text(encoding="utf-8")
    page.goto(url + "authors/ziheng-jiang/")
    assert page.locator("h1").inner_text() == "Ziheng Jiang"

    seed.write_text(
        original.replace("Mesh-Attention: A New", "Mesh-Attention Reloaded: A New"), encoding="utf-8"
    )
    page.wait_for_function(
        "() => document.body.innerText.includes('Mesh-Attention Reloaded')", timeout=30_000
    )

    seed.write_text(original.replace("arXiv2026", "arXiv2999", 1), encoding="utf-8")
    page.wait_for_selector("#build-failed", timeout=30_000)
    assert "impossible year 2999" in page.locator("body").inner_text()
    assert "Mesh-Attention Reloaded" in (project / "site/authors/ziheng-jiang/index.html").read_text()

    seed.write_text(original, encoding="utf-8")
    page.wait_for_function(
        "() => document.querySelector('h1') && document.querySelector('h1').innerText === 'Ziheng Jiang'",
        timeout=30_000,
    )
    assert "Reloaded" not in page.locator("body").inner_text()


def test_preview_shows_a_saved_page_in_place_and_reloads_for_a_stylesheet(preview, page) -> None:
    """A build that changed only pages: the open page's new body is put in place (the document
    is the same, scrolled where it was, its scripts run again on the new body); a stylesheet
    saved: the page reloads."""
    project, url = preview
    seed = project / "seeds/000_428d720ed8b996c5.txt"
    said: list[str] = []
    page.on("console", lambda message: said.append(message.text))
    page.set_viewport_size({"width": 800, "height": 400})
    page.goto(url + "authors/ziheng-jiang/")
    page.wait_for_selector("details.abstract")  # site.js made the rows' abstract toggles
    page.wait_for_function("() => window.scholarsiteLive === true", timeout=30_000)  # connected
    page.evaluate("() => { window.sameDocument = true; window.scrollTo(0, 600); }")
    original = seed.read_text(encoding="utf-8")
    seed.write_text(
        original.replace("Mesh-Attention: A New", "Mesh-Attention In Place: A New"), encoding="utf-8"
    )
    page.wait_for_function(
        "() => document.body.innerText.includes('Mesh-Attention In Place')", timeout=30_000
    )
    assert page.evaluate("() => window.sameDocument === true && window.scrollY > 0")
    page.wait_for_selector(
        "details.abstract", timeout=10_000
    )  # site.js runs again on the new body (loaded anew)
    assert page.locator("script[src$='site.js']").count() == 1
    assert not [text for text in said if "Content Security Policy" in text]

    style = project / "assets/style.css"
    style.write_text(
        style.read_text(encoding="utf-8") + "\nh1 { letter-spacing: 0.01em; }\n", encoding="utf-8"
    )
    page.wait_for_function("() => window.sameDocument === undefined", timeout=30_000)  # reloaded
    assert page.locator("h1").inner_text() == "Ziheng Jiang"


SHARD_QUERIES: list[tuple[str | None, dict[str, str]]] = [
    ("federated", {}),
    ("photonic lattice", {}),
    ("quantum", {"kind": "Paper"}),
    ("memory", {"year": "2020"}),
    ("Lovelace", {}),
    (None, {"kind": "Subject"}),
    (None, {"subject": "cs.DC"}),
]
EVERYTHING = """async ([queries]) => {
  const box = document.getElementById('search');
  const first = box.dataset.shards.split(' ')[0];
  const pagefind = await import(new URL(box.dataset.root + first + 'pagefind.js', document.baseURI).href);
  const found = [];
  for (const [query, filters] of queries) {
    const search = await pagefind.search(query, { filters });
    const urls = await Promise.all(search.results.map(r => r.data().then(d => d.url)));
    found.push({ urls: urls.sort(), filters: search.filters, total: search.totalFilters,
                 unfiltered: search.unfilteredResultCount });
  }
  return { shards: box.dataset.shards, filters: await pagefind.filters(), found };
}"""


def search_everything(page, site: Path) -> dict:
    """What the search page's Pagefind (as search.js set it up) answers to SHARD_QUERIES, with
    the filter menus the page shows."""
    with serve(site, "/scholarsite/") as base:
        page.goto(base + "search/?q=memory")
        page.wait_for_selector(".search-result", timeout=30_000)
        answers = page.evaluate(EVERYTHING, [SHARD_QUERIES])
        links = page.eval_on_selector_all(".search-result h2 a", "links => links.map(a => a.href)")
        page_link = re.compile(re.escape(base) + r"(authors|papers|subjects)/[^:]+/")
        assert links and all(page_link.fullmatch(link) for link in links)
        answers["menus"] = {
            name: page.locator(f"#filter-{name} option").all_inner_texts()
            for name in ("kind", "subject", "year", "author")
        }
    return answers


def test_a_sharded_index_answers_as_one_index(tmp_path: Path, page) -> None:
    generate(tmp_path / "seeds", 40, 150, seed=7)
    sites = []
    for name, setting in (("one", ""), ("sharded", "search_shard_size: 40\n")):
        project = make_project(tmp_path / name, tmp_path / "seeds", f"title: Shards\n{setting}")
        pipeline.build(project)
        sites.append(project / "site")
    one, sharded = (search_everything(page, site) for site in sites)
    assert one["shards"] == "pagefind/0/" and len(sharded["shards"].split()) == 8
    assert all(found["urls"] for found in one["found"])
    assert sharded["found"] == one["found"]
    assert sharded["filters"] == one["filters"] and sharded["menus"] == one["menus"]
    assert len(one["menus"]["author"]) == 41  # "Any" and every author

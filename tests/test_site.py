"""End to end: the site built from the shipped seeds, crawled and inspected."""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from scholarsite import pipeline
from scholarsite.write import MANIFEST, STATS
from tools.qa.pages import scan_page

from .conftest import ROOT, make_project


def html_pages(site: Path) -> list[Path]:
    """Every HTML file of a site."""
    return sorted(site.rglob("*.html"))


def page_dirs(site: Path, folder: str) -> list[Path]:
    """Pages directly below a folder (authors/x/index.html), excluding pagination and the site's
    own pages there (`_network`: no slug starts with "_")."""
    return sorted(
        p
        for p in (site / folder).glob("*/index.html")
        if p.parent.name != "page" and not p.parent.name.startswith("_")
    )


def test_page_counts(shipped_site: Path) -> None:
    assert len(page_dirs(shipped_site, "authors")) == 2
    assert len(list((shipped_site / "papers").glob("*/*/index.html"))) == 30
    assert len(page_dirs(shipped_site, "subjects")) == 8
    assert len(page_dirs(shipped_site, "years")) == 8
    for index in (
        "index.html",
        "authors/index.html",
        "authors/_network/index.html",
        "papers/index.html",
        "subjects/index.html",
        "years/index.html",
        "about/index.html",
        "search/index.html",
        "404.html",
    ):
        assert (shipped_site / index).is_file(), index
    for extra in (
        ".nojekyll",
        "robots.txt",
        "sitemap.xml",
        "feed.xml",
        "assets/favicon.svg",
        "data/papers.json",
        "data/authors.json",
        "llms.txt",
    ):
        assert (shipped_site / extra).is_file(), extra


def test_shared_papers_link_both_authors(shipped_site: Path) -> None:
    papers = json.loads((shipped_site / "data/papers.json").read_text())["papers"]
    shared = [p for p in papers if len(p["authors"]) > 1]
    assert len(shared) == 6
    for paper in shared:
        html = (shipped_site / paper["page"]).read_text()
        assert 'href="../../../authors/ziheng-jiang/"' in html
        assert 'href="../../../authors/ningxin-zheng/"' in html


def test_author_pages_list_each_other_with_six_shared_papers(shipped_site: Path) -> None:
    for slug, other, name in (
        ("ziheng-jiang", "ningxin-zheng", "Ningxin Zheng"),
        ("ningxin-zheng", "ziheng-jiang", "Ziheng Jiang"),
    ):
        html = (shipped_site / f"authors/{slug}/index.html").read_text()
        assert f'<a href="../{other}/">{name}</a> <span>6</span>' in html
        assert '<h2 id="coauthors">Co-authors <span class="unit">shared papers</span></h2>' in html
    page = (shipped_site / "authors/ziheng-jiang/index.html").read_text()
    assert "18 papers here; the profile lists at least 19." in page


def resolve(page: str, href: str, base: str) -> str | None:
    """The site-relative path an href on `page` points to when the site lives at `base`."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or href.startswith(("mailto:", "data:")):
        return None
    if not parts.path:
        return page
    target = posixpath.normpath(posixpath.join(posixpath.dirname(base + page), unquote(parts.path)))
    if not (target + "/").startswith(base):
        return "ESCAPES " + target
    inside = target[len(base) :] if target != base.rstrip("/") else ""
    return inside + ("/" if parts.path.endswith("/") and inside else "")


def target_file(site: Path, path: str) -> Path:
    """The file a site-relative path is served from."""
    candidate = site / path
    return candidate / "index.html" if path == "" or path.endswith("/") or candidate.is_dir() else candidate


@pytest.mark.parametrize("base", ["/", "/scholarsite/"])
def test_crawl_finds_no_broken_link_or_anchor(shipped_site: Path, base: str) -> None:
    broken: list[str] = []
    ids = {p: scan_page(p).ids for p in html_pages(shipped_site)}
    for page_file in html_pages(shipped_site):
        page = page_file.relative_to(shipped_site).as_posix()
        for tag, attribute, value in scan_page(page_file).urls:
            if tag == "base" or (page == "404.html" and value.startswith("https://example.org/")):
                continue
            assert not value.startswith("/"), f"{page}: root-relative {value}"
            target = resolve(page, value, base)
            if target is None:
                continue
            file = target_file(shipped_site, target)
            if target.startswith("ESCAPES") or not file.is_file():
                broken.append(f"{page}: {attribute}={value} -> {target}")
                continue
            fragment = urlsplit(value).fragment
            if fragment and file.suffix == ".html" and fragment not in ids[file]:
                broken.append(f"{page}: {value} has no #{fragment}")
    assert broken == []


def test_every_page_is_reachable_from_home(shipped_site: Path) -> None:
    seen, queue = set(), ["index.html"]
    while queue:
        page = queue.pop()
        if page in seen:
            continue
        seen.add(page)
        for _, attribute, value in scan_page(shipped_site / page).urls:
            target = resolve(page, value, "/")
            if attribute in ("href", "action") and target is not None and not target.startswith("ESCAPES"):
                file = target_file(shipped_site, target)
                if file.suffix == ".html" and file.is_file():
                    queue.append(file.relative_to(shipped_site).as_posix())
    unreachable = {p.relative_to(shipped_site).as_posix() for p in html_pages(shipped_site)} - seen
    assert unreachable <= {"404.html"}


def test_jsonld_parses_and_has_the_right_types(shipped_site: Path) -> None:
    kinds: dict[str, set[str]] = {}
    for page in html_pages(shipped_site):
        for block in scan_page(page).jsonld:
            data = json.loads(block)
            kinds.setdefault(page.relative_to(shipped_site).parts[0], set()).add(data["@type"])
    assert "ScholarlyArticle" in kinds["papers"]
    assert "Person" in kinds["authors"]
    assert {"CollectionPage", "BreadcrumbList"} <= kinds["subjects"]


def test_metadata_on_every_page(shipped_site: Path) -> None:
    for page in html_pages(shipped_site):
        html = page.read_text()
        assert re.search(r'<html lang="en">', html)
        assert "<title>" in html and 'name="description"' in html and 'property="og:title"' in html
        if page.name != "404.html":
            assert '<link rel="canonical" href="https://example.org/scholarsite/' in html


def test_math_spans_of_the_shipped_seeds_become_mathml(shipped_site: Path) -> None:
    seeds_text = "".join(p.read_text() for p in (ROOT / "seeds").glob("*.txt"))
    spans = re.findall(r"\$[^$]+\$", seeds_text)
    assert len(spans) >= 5
    paper_pages = "".join(p.read_text() for p in (shipped_site / "papers").glob("*/*/index.html"))
    assert "$" not in re.sub(r"<pre.*?</pre>", "", paper_pages, flags=re.S).replace("$ ", "")
    erbium = next(p for p in (shipped_site / "papers/2026").glob("programmable-cavity*/index.html"))
    html = erbium.read_text()
    assert html.count("<math") >= 3
    assert "<mn>167</mn>" in html
    assert "167Er3+" in re.sub(r"<[^>]+>", "", html)  # the isotope's text, in the MathML shown


def test_two_builds_are_byte_identical(tmp_path: Path) -> None:
    first = make_project(tmp_path / "a")
    second = make_project(tmp_path / "b")
    pipeline.build(first)
    # Another process, with other string hashes: keys and bytes must not depend on either.
    command = [sys.executable, str(ROOT / "build.py"), "--project", str(second), "--quiet"]
    subprocess.run(command, check=True, capture_output=True, env={**os.environ, "PYTHONHASHSEED": "7"})

    def files(site: Path) -> dict[str, bytes]:
        # Pagefind names its filter indexes by content, which it writes in arbitrary order
        # (upstream), and the manifest lists those names; every other file must match exactly.
        return {
            p.relative_to(site).as_posix(): p.read_bytes()
            for p in site.rglob("*")
            if p.is_file() and p.relative_to(site).parts[0] not in ("pagefind", MANIFEST, STATS)
        }

    assert files(first / "site") == files(second / "site")

    def keys(site: Path) -> dict[str, str]:
        entries = json.loads((site / MANIFEST).read_text())["files"]
        return {path: key for path, (key, _) in entries.items() if not path.startswith("pagefind/")}

    assert keys(first / "site") == keys(second / "site")
    shutil.rmtree(second / "site")
    shutil.copytree(first / "site", second / "site")
    assert pipeline.build(second).report.written == ()


def test_long_lists_are_split_into_pages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks.corpus import generate
    from scholarsite.outputs.families import pages as views

    monkeypatch.setattr(views, "AUTHORS_ON_ONE_PAGE", 20)
    generate(tmp_path / "seeds", authors=60, papers=400, seed=3)
    project = make_project(tmp_path / "p", tmp_path / "seeds", "title: T\npapers_per_page: 10\n")
    pipeline.build(project)
    site = project / "site"
    index = (site / "papers/index.html").read_text()  # the papers index: the year pages, not every paper
    per_year = dict(re.findall(r'<a href="../years/(\d+)/">\1</a> <span class="count">(\d+) papers?', index))
    assert sum(map(int, per_year.values())) == 400 and not (site / "papers/page").exists()
    year, count = max(per_year.items(), key=lambda item: int(item[1]))
    last = int(count) // 10  # pages are cut from the oldest end, the first holds the rest
    assert last > 1 and (site / f"years/{year}/page/{last}/index.html").is_file()
    assert not (site / f"years/{year}/page/{last + 1}").exists()
    letters = sorted(p.parent.name for p in (site / "authors/_initial").glob("*/index.html"))
    assert len(letters) > 3
    listed = sum(
        scan_page(site / f"authors/_initial/{letter}/index.html").urls.count(("a", "href", "./"))
        for letter in letters
    )
    assert listed == 0  # the current initial is not a link to itself
    author_pages = [p for p in (site / "authors").glob("*/index.html") if not p.parent.name.startswith("_")]
    assert len(author_pages) == 60
    assert max(p.stat().st_size for p in site.rglob("*.html")) < 1_000_000
    for page in [
        site / f"years/{year}/page/2/index.html",
        site / f"authors/_initial/{letters[0]}/index.html",
    ]:
        for _, _, value in scan_page(page).urls:
            target = resolve(page.relative_to(site).as_posix(), value, "/")
            if target is not None:
                assert not target.startswith("ESCAPES") and target_file(site, target).exists(), value


def test_related_papers_of_comet_are_moe_communication_papers(shipped_site: Path) -> None:
    comet = next((shipped_site / "papers/2025").glob("comet-*/index.html")).read_text()
    related = comet[comet.index('id="related"') : comet.index("</ol>", comet.index('id="related"'))]
    titles = re.findall(r'<li><a href="[^"]+">([^<]+)</a>', related)
    assert titles, "Comet has no related papers"
    assert any("MoE" in t or "Mixture-of-Experts" in t for t in titles)


def test_listings_name_only_their_top_authors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks.corpus import generate
    from scholarsite.outputs.families import pages

    monkeypatch.setattr(pages, "LISTED_AUTHORS", 3)
    seeds = tmp_path / "seeds"
    generate(seeds, 30, 60, seed=4)
    project = make_project(tmp_path / "p", seeds=seeds)
    pipeline.build(project)
    listing = (project / "site/subjects/cs-dc/index.html").read_text()
    aside = listing[listing.index('id="listing-authors"') :]
    aside = aside[: aside.index("</aside>")]
    assert aside.count("<li>") == 3
    assert re.search(r"and \d+ more authors", aside)

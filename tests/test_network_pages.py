"""The co-author network's pages on the shipped seeds (checked against the pairs read off the
seeds by hand, Nu and axe), and adding a seed re-renders only the author pages it changes."""

from __future__ import annotations

import html
import re
from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks.corpus import Paper, seed_text
from scholarsite import pipeline
from scholarsite.model import urls
from tools import qa

from .conftest import BASE_URL_YAML, make_project

# The shipped seeds' co-author pairs, by name, with their shared papers (see test_network.py
# for the six titles): read off the two seed files by hand.
SHIPPED_PAIRS = {("Ningxin Zheng", "Ziheng Jiang"): 6}
LINK_CELL = r'<td><a href="[^"]+">([^<]+)</a></td>'
PAIR_ROW = re.compile(rf'<tr>{LINK_CELL}{LINK_CELL}<td class="number">(\d+)</td>')
EGO_ROW = re.compile(r"<tr><td>([^<]+)<td>(\d+)<td>")  # named (the sidebar links)
EGO_SECTION = re.compile(r'<section class="ego".*?</section>', re.DOTALL)


def page(site: Path, path: str) -> str:
    return (site / path).read_text(encoding="utf-8")


def ego_section(site: Path, slug: str) -> str:
    """The ego-network section of an author's page ('' when the page has none)."""
    found = EGO_SECTION.search(page(site, urls.author(slug)))
    return found.group(0) if found else ""


def test_the_network_page_lists_the_hand_checked_pairs(shipped_site: Path) -> None:
    text = page(shipped_site, urls.COAUTHORS)
    rows = {(html.unescape(a), html.unescape(b)): int(n) for a, b, n in PAIR_ROW.findall(text)}
    assert rows == SHIPPED_PAIRS
    assert "1 co-author pair in 1 community" in text
    assert '<h2 id="community-ningxin-zheng">' in text and "Ningxin Zheng and Ziheng Jiang</h2>" in text
    assert 'href="_network/"' in page(shipped_site, urls.AUTHORS)  # linked from the A-Z index


@pytest.mark.parametrize(
    ("slug", "other"), [("ziheng-jiang", "Ningxin Zheng"), ("ningxin-zheng", "Ziheng Jiang")]
)
def test_each_author_page_draws_the_hand_checked_coauthors(shipped_site: Path, slug: str, other: str) -> None:
    section = ego_section(shipped_site, slug)
    shared = SHIPPED_PAIRS[("Ningxin Zheng", "Ziheng Jiang")]
    assert f'">{other}<tspan> {shared}</tspan></text>' in section
    assert EGO_ROW.findall(section) == [(other, str(shared))]  # the table carries the same data
    assert section.count('<circle cx="') == 2  # the author and one co-author
    assert 'role="img"' in section and "<title" in section
    assert 'href="../_network/#community-ningxin-zheng"' in section


@pytest.mark.qa
@pytest.mark.browser
def test_the_network_pages_pass_nu_and_axe_in_both_schemes(shipped_site: Path) -> None:
    pages = ["authors/_network/", "authors/ziheng-jiang/", "authors/"]
    html_check = qa.check_html(shipped_site)
    assert html_check.ok, html_check.problems
    a11y = qa.check_accessibility(shipped_site, pages)  # light and dark
    assert a11y.ok and a11y.checked == len(pages), a11y.problems


def paper(number: int, *authors: int) -> Paper:
    return Paper(
        number, 2020 + number % 5, f"Paper number {number} on networks", "An abstract.", ("cs.DC",), authors
    )


NAMES = ["Ada Alpha", "Bea Beta", "Cy Gamma", "Dan Delta", "Eve Epsilon", "Fay Zeta", "Gus Eta"]
PAPERS = [paper(1, 0, 1), paper(2, 1, 2), paper(3, 0, 2), paper(4, 3, 4), paper(5, 5)]


def write_seed(seeds: Path, author: int, papers: list[Paper]) -> None:
    name, listed = NAMES[author], [p for p in papers if author in p.authors]
    text = seed_text(name, listed, len(listed))
    (seeds / f"{name.split()[0].lower()}.txt").write_text(text, encoding="utf-8")


def test_adding_a_seed_re_renders_only_the_author_pages_whose_network_changed(tmp_path: Path) -> None:
    """Ada, Bea and Cy wrote together, Dan and Eve too, Fay alone. Gus's seed lists Dan and
    Eve's paper and one of his own: the pages of Dan and Eve (whose ego networks gain Gus) are
    made again, and Gus's; no other author page is, and their figures are unchanged."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    for author in range(6):
        write_seed(seeds, author, PAPERS)
    project = make_project(tmp_path / "project", seeds=seeds, site_yaml=BASE_URL_YAML)
    pipeline.build(project)
    site = project / "site"
    slugs = [name.lower().replace(" ", "-") for name in NAMES]
    before = {slug: ego_section(site, slug) for slug in slugs[:6]}

    write_seed(project / "seeds", 6, [paper(6, 6), replace(PAPERS[3], authors=(3, 4, 6))])
    report = pipeline.build(project).report
    after = {slug: ego_section(site, slug) for slug in slugs}

    author_pages = {p for p in report.produced if re.fullmatch(r"authors/[a-z-]+/index\.html", p)}
    changed = {slug for slug in slugs[:6] if before[slug] != after[slug]}
    assert changed == {"dan-delta", "eve-epsilon"}
    assert author_pages == {urls.author(slug) for slug in [*sorted(changed), "gus-eta"]}
    assert "Gus Eta" in after["dan-delta"] and "Gus Eta" not in before["dan-delta"]
    assert before["ada-alpha"] and before["fay-zeta"] == ""  # drawn; Fay has no co-author
    assert urls.COAUTHORS in report.produced

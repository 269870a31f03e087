"""Listings as arXiv and DBLP do them, and author pages (issue 20, parts 1 and 2): one compact row
a paper that repeats nothing its heading says, the page's author marked by identity (aliases
included, namesakes not), the order stated and newest first where dates are known; the row's
abstract on demand, stored once on the paper's page (issue 27)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from scholarsite import pipeline
from scholarsite.model.model import Author
from scholarsite.outputs import listings
from scholarsite.outputs.families import pages

from .conftest import make_project

ROW = re.compile(r'<li(?: class="(no-abstract)")?>(<h\d>.*?)</li>', re.DOTALL)  # a listing's row
TAG = re.compile(r"<[^>]+>")
TITLE_LINK = re.compile(r'<h\d><a href="([^"]+)">')


def seed_text(name: str, records: list[tuple[int, str, str]]) -> str:
    """A seed file in the scraped format: (year, title, subject codes) records."""
    parts = ["arXiv subjects", name, f"Publications and source records attributed to {name}."]
    parts.append(f"{len(records)} recordsLinked to original sources")
    for year, title, subjects in records:
        codes = " ".join(f"{code}↗" for code in subjects.split())
        parts += [f"arXiv{year}", title, f"An abstract about {title.lower()}.", codes]
    return "\n\n".join(parts) + "\n"


def project_with(tmp_path: Path, seeds: dict[str, str], sources: str = "", pages: dict | None = None) -> Path:
    """A built project of the given seed files, sources.yaml and author pages."""
    project = make_project(tmp_path / "p")
    for old in (project / "seeds").iterdir():
        old.unlink()
    for file, text in seeds.items():
        (project / "seeds" / file).write_text(text, encoding="utf-8")
    if sources:
        (project / "sources.yaml").write_text(sources, encoding="utf-8")
    folder = project / "content/authors"
    folder.mkdir(parents=True, exist_ok=True)
    for slug, front in (pages or {}).items():
        (folder / f"{slug}.md").write_text(f"---\n{front}---\nA bio.\n", encoding="utf-8")
    pipeline.build(project, workers=1)
    return project


def rows(page: Path) -> dict[str, dict]:
    """Each paper row of a page by its title: marked names, linked names, chips, its meta text."""
    found = {}
    for kind, row in ROW.findall(page.read_text(encoding="utf-8")):
        title = html.unescape(TAG.sub("", re.search(r"<h\d>(.*?)</h\d>", row).group(1)))
        meta = re.search(r"</h\d>\n<p>(.*)", row, re.DOTALL).group(1)  # to the row's end
        found[title] = {
            "marked": [html.unescape(m) for m in re.findall(r'<mark class="self">(.*?)</mark>', meta)],
            "linked": [
                html.unescape(m) for m in re.findall(r'<a href="[^"]*/authors/[^"]*">(.*?)</a>', meta)
            ],
            "chips": re.findall(r'<a href="[^"]*/subjects/[^"]*">(.*?)</a>', meta),
            "text": " ".join(html.unescape(TAG.sub(" ", meta)).split()),
            "abstract": not kind,  # site.js gives it an abstract toggle
        }
    return found


@pytest.fixture(scope="module")
def identities(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Ada writes as 'Ada Lovelace' and 'A. A. Lovelace' (an alias on her page); two people are
    called Wei Li (one page claims the physics seed); the original of one paper spells Ada's
    name as her alias does, and lists Wei Li once."""
    seeds = {
        "ada.txt": seed_text("Ada Lovelace", [(2020, "Notes on the engine", "cs.ET")]),
        "ada2.txt": seed_text("A. A. Lovelace", [(2021, "Sketch of the engine", "cs.ET math.HO")]),
        "babbage.txt": seed_text("Charles Babbage", [(2021, "Sketch of the engine", "cs.ET math.HO")]),
        "li-physics.txt": seed_text("Wei Li", [(2022, "Quantum dots together", "quant-ph")]),
        "li-biology.txt": seed_text("Wei Li", [(2022, "Quantum dots together", "quant-ph")]),
    }
    sources = """papers:
  2020/notes on the engine:
    status: found
    arxiv_id: '2001.00001'
    published: 2020-05-01
    authors: [Luigi Menabrea, A. A. Lovelace]
"""
    pages = {"ada-lovelace": "aliases: [A. A. Lovelace]\n", "wei-li-physics": "seeds: [li-physics.txt]\n"}
    return project_with(tmp_path_factory.mktemp("identities"), seeds, sources, pages) / "site"


def test_the_page_author_is_marked_under_every_spelling(identities: Path) -> None:
    ada = rows(identities / "authors/ada-lovelace/index.html")
    assert ada["Notes on the engine"]["marked"] == ["A. A. Lovelace"]  # the original's spelling
    assert "Luigi Menabrea" in ada["Notes on the engine"]["text"]
    assert ada["Sketch of the engine"]["marked"] == ["Ada Lovelace"]
    assert ada["Sketch of the engine"]["linked"] == ["Charles Babbage"]
    babbage = rows(identities / "authors/charles-babbage/index.html")
    assert babbage["Sketch of the engine"]["marked"] == ["Charles Babbage"]
    assert babbage["Sketch of the engine"]["linked"] == ["Ada Lovelace"]  # not marked elsewhere


def test_a_namesake_is_not_marked(identities: Path) -> None:
    for slug, other in (("wei-li-physics", "wei-li"), ("wei-li", "wei-li-physics")):
        page = identities / f"authors/{slug}/index.html"
        row = rows(page)["Quantum dots together"]
        assert row["marked"] == ["Wei Li"] and row["linked"] == ["Wei Li"]  # the other one, linked
        assert f'href="../../authors/{other}/">Wei Li</a>' in page.read_text(encoding="utf-8")


def test_no_other_page_marks_anyone(identities: Path) -> None:
    for page in ("years/2021/index.html", "subjects/cs-et/index.html", "papers/index.html", "index.html"):
        assert '<mark class="self">' not in (identities / page).read_text(encoding="utf-8"), page


def test_rows_repeat_neither_their_year_nor_their_subject(identities: Path) -> None:
    subject = rows(identities / "subjects/cs-et/index.html")
    sketch = subject["Sketch of the engine"]
    assert sketch["chips"] == ["math.HO"] and "cs.ET" not in sketch["text"]
    assert "2021" not in sketch["text"] and "arXiv" not in sketch["text"]
    assert sketch["abstract"]
    notes = subject["Notes on the engine"]
    assert notes["chips"] == [] and "arXiv:2001.00001" in notes["text"] and "PDF" in notes["text"]
    year = identities / "years/2021/index.html"
    assert rows(year)["Sketch of the engine"]["chips"] == ["cs.ET", "math.HO"]
    assert 'id="y2021"' not in year.read_text(encoding="utf-8")  # the page's heading says it
    author = rows(identities / "authors/ada-lovelace/index.html")
    assert "2021" not in author["Sketch of the engine"]["text"]


def test_author_sidebar_names_subjects_and_says_counts_once(identities: Path) -> None:
    page = (identities / "authors/ada-lovelace/index.html").read_text(encoding="utf-8")
    assert "2 papers here;" in page
    assert (
        "1 paper here, all the profile lists."
        in (identities / "authors/charles-babbage/index.html").read_text()
    )
    assert re.search(
        r'<a href="../../subjects/cs-et/">Emerging Technologies</a> <span class="code">cs.ET', page
    )
    sidebar = page[page.index('<aside class="sidebar">') : page.index("</aside>")]
    assert "<figcaption" not in sidebar  # the charts' headings say it all
    assert page.index('class="rows"') < page.index('id="coauthors"')  # publications first


DATED = """papers:
  2021/beta results:
    status: found
    arxiv_id: '2101.00002'
    published: 2021-03-01
  2021/gamma results:
    status: found
    arxiv_id: '2101.00003'
    published: 2021-09-01
  2021/alpha results:
    status: found
    arxiv_id: '2101.00001'
    published: 2021-01-15
"""
TITLES = ["Beta results", "Gamma results", "Alpha results"]


@pytest.mark.parametrize(
    "sources, order, note, heading",
    [
        (DATED, ["Gamma results", "Beta results", "Alpha results"], listings.ORDER_DATED, "Latest papers"),
        ("", ["Alpha results", "Beta results", "Gamma results"], listings.ORDER_UNDATED, "Papers from 2021"),
    ],
)
def test_newest_first_with_dates_and_a_stated_order_without(
    tmp_path: Path, sources: str, order: list[str], note: str, heading: str
) -> None:
    seeds = {"ada.txt": seed_text("Ada Lovelace", [(2021, title, "cs.ET") for title in TITLES])}
    site = project_with(tmp_path, seeds, sources) / "site"
    for page in ("years/2021/index.html", "authors/ada-lovelace/index.html", "subjects/cs-et/index.html"):
        assert list(rows(site / page)) == order, page
        assert f'<p class="note order">{note}' in (site / page).read_text(encoding="utf-8"), page
    home = (site / "index.html").read_text(encoding="utf-8")
    assert f'<h2 id="latest">{heading}</h2>' in home
    assert (f'<p class="note order">{note}' in home) == (not sources)  # "latest" says the order
    assert list(rows(site / "index.html")) == order
    assert ("<time datetime=" in home) == bool(sources)  # dates shown where the heading says "latest"


def card(year: int, published: str = "") -> dict:
    """The fields of a paper card that listings read."""
    return {"year": year, "original": {"published": published} if published else None}


def test_home_heading_says_latest_only_when_every_date_is_known() -> None:
    assert listings.latest([card(2026, "2026-01-02"), card(2025, "2025-12-01")]) == {
        "heading": "Latest papers",
        "when": "date",
        "note": "",
    }
    assert listings.latest([card(2026, "2026-01-02"), card(2026)]) == {
        "heading": "Papers from 2026",
        "when": "",
        "note": listings.ORDER_PARTLY_DATED,
    }
    several = listings.latest([card(2026), card(2024)])
    assert several == {"heading": "Papers from 2024–2026", "when": "year", "note": listings.ORDER_UNDATED}


def author(listed: int, claimed: int | None, at_least: bool = False) -> Author:
    """An author with `listed` papers and a profile claiming `claimed` records."""
    found = Author("a", "a", "A", claimed, at_least, [])
    found.papers = [object()] * listed  # type: ignore[list-item]
    return found


def test_counts_are_one_plain_sentence() -> None:
    assert (
        listings.count_text(author(23, 98, at_least=True)) == "23 papers here; the profile lists at least 98."
    )
    assert listings.count_text(author(23, 98)) == "23 papers here; the profile lists 98."
    assert listings.count_text(author(5, 5)) == "5 papers here, all the profile lists."
    assert listings.count_text(author(1, None)) == "1 paper here."


def test_a_long_author_list_is_cut_but_keeps_the_page_author(tmp_path: Path) -> None:
    names = [f"Person {n:02d}" for n in range(20)]
    sources = f"""papers:
  2020/a big collaboration:
    status: found
    arxiv_id: '2001.00009'
    authors: [{", ".join(names[:15] + ["Ada Lovelace"] + names[15:])}]
"""
    seeds = {"ada.txt": seed_text("Ada Lovelace", [(2020, "A big collaboration", "hep-ex")])}
    site = project_with(tmp_path, seeds, sources) / "site"
    row = rows(site / "authors/ada-lovelace/index.html")["A big collaboration"]
    assert row["marked"] == ["Ada Lovelace"]
    assert "Person 09, Ada Lovelace and 10 more" in row["text"] and "Person 10" not in row["text"]


def test_rows_link_their_abstract_and_never_repeat_it(identities: Path) -> None:
    listings = [
        "authors/ada-lovelace/index.html",
        "authors/charles-babbage/index.html",
        "subjects/cs-et/index.html",
        "subjects/math-ho/index.html",
        "years/2021/index.html",
        "papers/new/index.html",
    ]
    for listing in listings:
        page = identities / listing
        text = page.read_text(encoding="utf-8")
        assert "An abstract about" not in text, listing
        found = ROW.findall(text)
        assert found and not any(kind for kind, _ in found), listing  # each gets a toggle
        for link in [TITLE_LINK.search(row)[1] for _, row in found]:  # the toggle fetches from there
            paper = (page.parent / link / "index.html").read_text(encoding="utf-8")
            assert "An abstract about" in paper, (listing, link)


def test_the_coauthor_list_is_capped_and_says_how_many_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pages, "LISTED_COAUTHORS", 12)
    names = ["Ada Lovelace"] + [f"Person {i:02d}" for i in range(15)]
    paper = [(2021, "A big collaboration", "cs.ET")]
    seeds = {f"s{i}.txt": seed_text(name, paper) for i, name in enumerate(names)}
    site = project_with(tmp_path, seeds) / "site"
    page = (site / "authors/ada-lovelace/index.html").read_text(encoding="utf-8")
    start = page.index('<section aria-labelledby="coauthors">')
    sidebar = page[start : page.index("</section>", start)]
    assert sidebar.count("<li>") == 12 and "Person 12" not in sidebar
    assert "<summary>5 more co-authors</summary>" in sidebar
    assert "And 3 more with fewer shared papers" in sidebar

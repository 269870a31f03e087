"""The browser checks' sample: one page per kind, plus the pages with the most formulas and the
longest lists, chosen deterministically and each listed once."""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks.corpus import generate
from scholarsite import pipeline
from tools import qa

from .conftest import BASE_URL_YAML, make_project

MATH = re.compile(r"<math[\s>]")
LIST_ITEM = re.compile(r"<li[\s>]")


def write_page(site: Path, rel: str, formulas: int = 0, items: int = 0) -> None:
    """A page with the given numbers of <math> and <li> elements (and a <link>, which is no <li>)."""
    math = '<math xmlns="http://www.w3.org/1998/Math/MathML"><mi>x</mi></math>' * formulas
    lists = f"<ul>{'<li>item</li>' * items}</ul>" if items else ""
    page = site / rel
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(f'<!DOCTYPE html><link rel="icon" href="i.svg"><p>{math}</p>{lists}', encoding="utf-8")


def test_sample_adds_the_heaviest_pages_once_each(tmp_path: Path) -> None:
    for rel, formulas, items in [
        ("index.html", 0, 1),
        ("404.html", 0, 0),
        ("about/index.html", 0, 0),
        ("papers/index.html", 1, 5),
        ("papers/a/index.html", 3, 0),  # first paper page, and tied second for formulas with b
        ("papers/b/index.html", 3, 0),
        ("papers/c/index.html", 7, 2),  # most formulas
        ("papers/d/index.html", 0, 9),  # longest lists, tied with e
        ("papers/e/index.html", 0, 9),
    ]:
        write_page(tmp_path, rel, formulas, items)
    assert qa.sample_pages(tmp_path) == [
        "index.html",
        "404.html",
        "about/index.html",
        "papers/index.html",
        "papers/a/index.html",
        "papers/c/index.html",
        "papers/d/index.html",
        "papers/e/index.html",
    ]


def test_sample_skips_redirect_pages(tmp_path: Path) -> None:
    """An old URL that redirects (`authors/a-a-lovelace/`) is not its kind's first page."""
    write_page(tmp_path, "authors/b/index.html")
    moved = tmp_path / "authors/a/index.html"
    moved.parent.mkdir(parents=True)
    moved.write_text('<!DOCTYPE html><meta http-equiv="refresh" content="0; url=../b/">', encoding="utf-8")
    assert qa.sample_pages(tmp_path) == ["authors/b/index.html"]


def test_a_folder_starting_with_an_underscore_is_a_kind_of_its_own(tmp_path: Path) -> None:
    for rel in ("authors/_network/index.html", "authors/ada/index.html", "authors/bob/index.html"):
        write_page(tmp_path, rel)
    assert qa.sample_pages(tmp_path) == ["authors/_network/index.html", "authors/ada/index.html"]


def test_sample_of_a_built_site_holds_its_heaviest_pages(tmp_path: Path) -> None:
    generate(tmp_path / "seeds", authors=20, papers=80, seed=5)
    project = make_project(tmp_path / "project", tmp_path / "seeds", BASE_URL_YAML)
    pipeline.build(project)
    site = project / "site"
    markup = {p.relative_to(site).as_posix(): p.read_text(encoding="utf-8") for p in site.rglob("*.html")}
    sample = qa.sample_pages(site)
    assert sample == qa.sample_pages(site) and len(sample) == len(set(sample))
    assert {"index.html", "papers/index.html", "authors/index.html"} <= set(sample)
    shown = {rel: re.sub(r"<details[\s>].*?</details>", "", text, flags=re.S) for rel, text in markup.items()}
    for pattern, pages in ((MATH, shown), (LIST_ITEM, markup)):
        counts = {rel: len(pattern.findall(text)) for rel, text in pages.items()}
        top_two = sorted(counts.values())[-2:]
        assert top_two[0] > 0, f"the built site has too few {pattern.pattern} for the test"
        assert sorted(counts[rel] for rel in sample)[-2:] == top_two

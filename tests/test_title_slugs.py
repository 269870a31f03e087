"""Slugs and plain text from the title as shown (its TeX rendered), and the 404 page's redirect
map from the URL a paper had under the slug rule before."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scholarsite import pipeline
from scholarsite.inputs.project import load_project
from scholarsite.inputs.seeds import AuthorRecord, SeedRecord
from scholarsite.inputs.unicode import normalise
from scholarsite.model.identity import short_hash, slug_for, title_slug
from scholarsite.model.model import build_model
from scholarsite.outputs.families import search
from scholarsite.tex.render import tex_to_plain

from .conftest import BASE_URL_YAML, make_project
from .test_author_identity import ADA

COMPILING = r"Compiling $\mathcal{O}(n \log n)$ Programs"
ROUNDS = r"$\log n$ Rounds Suffice"


def record(title: str, year: int = 2021, abstract: str = "An abstract.") -> SeedRecord:
    return SeedRecord("arXiv", year, title, abstract, ("cs.DS",), "seeds/ada.txt", 1)


def author(*records: SeedRecord) -> AuthorRecord:
    return AuthorRecord("Ada Lovelace", "seeds/ada.txt", 1, None, False, records)


def test_a_title_slug_is_made_from_the_title_as_shown() -> None:
    identity = normalise(COMPILING)
    slug = title_slug(identity, "Compiling O(n log n) Programs")
    assert re.fullmatch(r"compiling-o-n-log-n-programs-[0-9a-f]{8}", slug), slug
    assert slug_for(identity, "paper") == "compiling-mathcal-o-n-log-n-programs"  # the rule before
    scripted = title_slug("mixing times for mathrm gl n", "Mixing times for GLₙ")
    assert scripted.startswith("mixing-times-for-gl-n-")  # a subscript is a word of its own


@pytest.mark.parametrize(
    "title",
    ["Plain Words", "Café au lait", r"$\Delta F/F$ Denoising", r"Beyond $O(n^2)$", r"$\alpha$-Divergence",
     r"$k$-means on 2×2 grids"],
)  # fmt: skip
def test_a_title_that_reads_as_its_source_keeps_its_slug(title: str) -> None:
    """Greek letters and symbols are spelled as TeX names them, scripts are words of their own."""
    identity = normalise(title)
    assert title_slug(identity, tex_to_plain(title)) == slug_for(identity, "paper")


def test_two_titles_shown_alike_keep_slugs_of_their_own() -> None:
    titles = (r"Modules over $\CC$", r"Modules over $\mathbb{C}$")
    slugs = {title_slug(normalise(title), "Modules over C") for title in titles}
    assert len(slugs) == 2 and all(s.startswith("modules-over-c-") for s in slugs)


def test_the_model_keeps_the_url_before_as_a_redirect() -> None:
    site = build_model([author(record(COMPILING), record("Plain Title"))])
    moved, plain = sorted(site.papers, key=lambda p: p.title != COMPILING)
    assert moved.slug.startswith("compiling-o-n-log-n-programs-")
    assert moved.legacy_slug == "compiling-mathcal-o-n-log-n-programs"
    assert site.legacy_pages == {"papers/2021/compiling-mathcal-o-n-log-n-programs/index.html": moved}
    assert not plain.moved and plain.slug == "plain-title"


def test_no_redirect_where_the_url_before_is_another_papers_page() -> None:
    emph = r"\emph{Emph} Foo Bar"
    site = build_model([author(record(emph), record("Foo bar"))])
    (shown,) = (p for p in site.papers if p.moved)
    assert shown.legacy_slug == "emph-emph-foo-bar" and shown.slug.startswith("emph-foo-bar-")
    assert site.legacy_pages == {"papers/2021/emph-emph-foo-bar/index.html": shown}
    # A variant's slug before ends in its abstract's hash: a plain title can end the same way.
    suffix = short_hash("Two.", 16)[:6]
    variants = (record(emph, abstract="One."), record(emph, abstract="Two."))
    taken = build_model([author(*variants, record(f"Emph emph foo bar {suffix}"))])
    variant = next(p for p in taken.papers if p.abstract_key.startswith(suffix) and p.moved)
    assert variant.legacy_slug == f"emph-emph-foo-bar-{suffix}"
    assert f"emph-emph-foo-bar-{suffix}" in {p.slug for p in taken.papers}
    assert list(taken.legacy_pages) == ["papers/2021/emph-emph-foo-bar/index.html"]


def test_a_variant_moves_with_its_abstract_suffix() -> None:
    site = build_model([author(record(COMPILING, abstract="One."), record(COMPILING, abstract="Two."))])
    first, second = site.papers
    suffix = second.slug.rsplit("-", 1)[1]
    assert second.legacy_slug == f"{first.legacy_slug}-{suffix}"
    assert len(site.legacy_pages) == 2


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = make_project(tmp_path_factory.mktemp("slugs"), site_yaml=BASE_URL_YAML)
    for seed in (project / "seeds").iterdir():
        seed.unlink()
    for name, title in (("ada", COMPILING), ("bob", ROUNDS)):
        text = ADA.format(name=f"{name.title()} Lovelace", title=title, year=2021)
        (project / "seeds" / f"{name}.txt").write_text(text, encoding="utf-8")
    pipeline.build(project, workers=1)
    return project


def page_of(site: Path, prefix: str) -> Path:
    """The one paper page of 2021 whose folder starts with `prefix`."""
    (found,) = (p for p in (site / "papers/2021").iterdir() if p.name.startswith(prefix))
    return found / "index.html"


def test_the_old_url_is_in_the_404_pages_map_not_a_page(built: Path) -> None:
    site = built / "site"
    new = page_of(site, "compiling-o-n-log-n-programs-")
    assert not (site / "papers/2021/compiling-mathcal-o-n-log-n-programs").exists()
    moved = json.loads((site / "papers/moved.json").read_text(encoding="utf-8"))
    assert moved["papers/2021/compiling-mathcal-o-n-log-n-programs/"] == f"papers/2021/{new.parent.name}/"
    assert all((site / target / "index.html").is_file() for target in moved.values())
    assert "papers/moved.json" in (site / "404.html").read_text(encoding="utf-8")
    sitemap = (site / "sitemap.xml").read_text()
    assert new.parent.name in sitemap and "compiling-mathcal" not in sitemap


def test_a_site_without_moved_papers_has_no_map(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    pipeline.build(project, workers=1)
    assert not (project / "site/papers/moved.json").exists()
    assert "moved.json" not in (project / "site/404.html").read_text(encoding="utf-8")


def test_plain_text_outputs_read_as_the_page_shows_the_title(built: Path) -> None:
    site = built / "site"
    html = page_of(site, "compiling-o-n-log-n-programs-").read_text()
    assert "<title>Compiling O(n log n) Programs · Test records</title>" in html
    assert '<span aria-current="page">Compiling O(n log n) Programs</span>' in html
    names = [d.get("headline") for d in map(json.loads, re.findall(r"ld\+json\">(.*?)</script>", html, re.S))]
    assert "Compiling O(n log n) Programs" in names
    assert "<title>Compiling O(n log n) Programs</title>" in (site / "feed.xml").read_text()
    rounds = page_of(site, "log-n-rounds-suffice").read_text()  # no URL before: TeX changed nothing
    assert "@misc{lovelace2021log," in rounds  # the key's word is "log", not "logn"
    data, _ = pipeline.site_data(load_project(built))
    titles = {r["meta"]["title"] for r in search.records(data) if r["meta"].get("kind") == "Paper"}
    assert titles == {"Compiling O(n log n) Programs", "log n Rounds Suffice"}

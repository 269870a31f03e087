"""Issue 28 (1, 2) and issue 29 (11, 12): an imported paper's record is whole.

An al-folio `_bibliography/papers.bib` (tests/data/import/papers-alfolio.bib: Jekyll front
matter, `@string` macros with `#`, two entries under one key, TeX accents, DOIs written as
resolver links, venues, a thesis, conference papers, an arXiv e-print without abstract, a list
ending in `and others`, a structured abstract) imported into a new project: the strict check
passes, the example seed is gone, and every page, tag and citation format carries the record.
"""

from __future__ import annotations

import io
import json
import re
import time
import tracemalloc
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from scholarsite import cli, pipeline
from scholarsite.commands import new
from scholarsite.errors import Severity
from scholarsite.importing import from_bibtex, seedtext
from scholarsite.importing.bibvalues import Macros, split_names
from scholarsite.importing.from_orcid import work_from
from scholarsite.inputs.sources import load_sources
from tests.conftest import BASE_URL_YAML, author_bib, make_project, page_downloads

DATA = Path(__file__).resolve().parent / "data" / "import"
BIB = DATA / "papers-alfolio.bib"
PAPERS = "site/papers"


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A new project with the al-folio list imported and built, and what import printed."""
    project = tmp_path_factory.mktemp("alfolio") / "project"
    new.create(project)
    out = io.StringIO()
    with redirect_stdout(out):
        code = cli.main(
            ["--project", str(project), "import", "--bibtex", str(BIB), "--author", "Justin Carpentier"]
        )
    assert code == 0
    return project, out.getvalue()


def page(project: Path, year: int, words: str) -> str:
    """The page of the paper of `year` whose folder starts with `words`."""
    [found] = [p for p in (project / PAPERS / str(year)).iterdir() if p.name.startswith(words)]
    return (found / "index.html").read_text(encoding="utf-8")


def test_the_strict_check_passes_right_after_an_import(imported: tuple[Path, str]) -> None:
    project, _ = imported
    result = pipeline.check(project, strict=True)
    assert [d.format() for d in result.diagnostics if d.severity is not Severity.NOTE] == []
    notes = [d.message for d in result.diagnostics if d.path == "seeds/justin-carpentier.txt"]
    assert notes == [
        "imported records 6 without an abstract and 7 without a subject line (their sources give none)"
    ]


def test_import_says_once_what_sources_cannot_know_and_removes_the_example(
    imported: tuple[Path, str],
) -> None:
    project, printed = imported
    assert sorted(p.name for p in (project / "seeds").iterdir()) == ["justin-carpentier.txt"]
    assert "remove seeds/example.txt (the example seed)" in printed
    summary = [line for line in printed.splitlines() if "without" in line]
    assert summary == [
        "new records 6 without an abstract, 7 without a subject: their sources give none "
        "(a note, not a warning; --verbose lists them)"
    ]


def test_verbose_lists_the_records_without_an_abstract(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "p"
    new.create(project)
    options = ["--bibtex", str(BIB), "--author", "Justin Carpentier", "--dry-run"]
    assert cli.main(["--project", str(project), "--verbose", "import", *options]) == 0
    lines = capsys.readouterr().out.splitlines()
    listed = [line for line in lines if line.startswith("  without an abstract: ")]
    assert len(listed) == 6 and f"  without an abstract: {BIB}:8" in listed


def test_macros_concatenation_and_duplicate_keys(imported: tuple[Path, str]) -> None:
    project, printed = imported
    assert (
        "line 20: a second entry 'carpentier2018analytical', kept as 'carpentier2018analytical-2'" in printed
    )
    seed = (project / "seeds/justin-carpentier.txt").read_text(encoding="utf-8")
    assert (
        "\n\nAnalytical Derivatives of Rigid Body Dynamics Algorithms\n\n" in seed
    )  # pre # " Derivatives..."
    assert "Multicontact Locomotion of Legged Robots" in seed  # the second entry of that key is kept
    assert (
        "Venue: Robotics: Science and Systems\n" in seed and "Venue: IEEE Transactions on Robotics\n" in seed
    )
    assert " # " not in seed and "rss" not in seed.split("Venue: ")[1].split("\n")[0]


def test_accents_are_letters_everywhere(imported: tuple[Path, str]) -> None:
    project, _ = imported
    shown = page(project, 2016, "on-the-centroidal")
    assert "Philippe Souères, Michel Taïx" in shown
    assert "François Bailly" in page(project, 2019, "estimating")
    assert "Joan Solà" in page(project, 2017, "multi-contact")
    assert "\\" not in "".join(re.findall(r'<meta name="citation_author" content="([^"]*)"', shown))


def test_a_conference_paper_is_shown_and_cited_as_one(imported: tuple[Path, str]) -> None:
    project, _ = imported
    shown = page(project, 2018, "analytical")
    assert '<a href="https://doi.org/10.15607/RSS.2018.XIV.038">doi:10.15607/RSS.2018.XIV.038</a>' in shown
    assert '<span class="venue">Robotics: Science and Systems</span> (conference paper)' in shown
    assert '<meta name="citation_conference_title" content="Robotics: Science and Systems">' in shown
    assert '<meta name="citation_publication_date" content="2018/06">' in shown
    assert "Find this paper on arXiv" not in shown and "arxiv.org" not in shown
    bibtex = re.search(r'<pre id="bibtex"[^>]*><code>(.*?)</code>', shown, re.S).group(1)  # type: ignore[union-attr]
    assert bibtex.startswith("@inproceedings{carpentier2018analytical,")
    assert "booktitle = {Robotics: Science and Systems}" in bibtex and "month = jun" in bibtex
    assert "and others" not in bibtex and "howpublished" not in bibtex
    ld = json.loads(
        re.search(
            r'<script type="application/ld\+json">(\{"@context[^<]*ScholarlyArticle[^<]*)</script>', shown
        ).group(1)
    )  # type: ignore[union-attr]
    assert ld["datePublished"] == "2018-06" and ld["isPartOf"]["name"] == "Robotics: Science and Systems"
    assert "publisher" not in ld and "https://www.roboticsproceedings.org/rss14/p38.html" in ld["sameAs"]


def test_every_format_cites_article_thesis_and_incomplete_lists(imported: tuple[Path, str]) -> None:
    project, _ = imported
    bib = author_bib(project / "site", "justin-carpentier")
    assert (
        "@article{carpentier2018multicontact," in bib and "journal = {IEEE Transactions on Robotics}" in bib
    )
    assert "@phdthesis{carpentier2017computational," in bib and "school = {Université de Toulouse}" in bib
    assert "howpublished = {BibTeX}" not in bib
    assert bib.count("and others}") == 1  # only the entry whose list ends in `and others`
    assert "Souères, Philippe and others}" in bib
    data = json.loads((project / "site/data/papers.json").read_text(encoding="utf-8"))
    thesis = next(p for p in data["papers"] if p["title"].startswith("Computational"))
    assert thesis["original"]["kind"] == "PhD thesis"
    assert thesis["original"]["url"] == "https://theses.hal.science/tel-01779644"


def test_citation_downloads_carry_types(imported: tuple[Path, str]) -> None:
    project, _ = imported
    folder = next((project / PAPERS / "2018").glob("multicontact*"))
    made = page_downloads(folder)
    ris = made["ris"]
    assert ris.startswith("TY  - JOUR\n") and "T2  - IEEE Transactions on Robotics\n" in ris
    assert "DB  - BibTeX" not in ris and "N1  - " not in ris
    csl = json.loads(made["json"])
    [item] = csl if isinstance(csl, list) else [csl]
    assert item["type"] == "article-journal" and item["container-title"] == "IEEE Transactions on Robotics"
    assert "publisher" not in item and "note" not in item


def test_a_structured_abstract_keeps_its_paragraphs(imported: tuple[Path, str]) -> None:
    project, _ = imported
    shown = page(project, 2018, "multicontact")
    assert "<p>Objective: plan the motion of legged robots in contact.</p><p>Methods:" in shown
    blank_line = page(project, 2016, "on-the-centroidal")
    assert "<p>Bipedal locomotion is hard.</p><p>It is studied here" in blank_line


def test_only_arxiv_papers_link_to_arxiv(imported: tuple[Path, str]) -> None:
    project, _ = imported
    pinocchio = page(project, 2019, "the-pinocchio")
    assert '<a href="https://arxiv.org/abs/1905.06001">arXiv:1905.06001</a>' in pinocchio
    for year, words in [(2018, "analytical"), (2017, "computational"), (2016, "a-versatile")]:
        shown = page(project, year, words)
        assert "Find this paper on arXiv" not in shown and 'name="citation_arxiv_id"' not in shown


def test_learnt_doi_and_venue_in_sources_yaml_show_on_the_page(imported: tuple[Path, str]) -> None:
    project, _ = imported
    entries, problems = load_sources(project)
    assert problems == []
    learnt = next(e for e in entries.values() if e.doi == "10.1109/TRO.2018.2862902")
    assert learnt.journal_ref == "IEEE Transactions on Robotics" and learnt.arxiv_id == ""
    assert "doi:10.1109/TRO.2018.2862902" in page(project, 2018, "multicontact")


def test_string_concatenation_is_evaluated() -> None:
    """Issue 29 case 12: `title = pre # " Learning"` with `@string{pre = "Deep"}`."""
    macros = Macros()
    macros.define("pre", '"Deep"')
    macros.define("both", 'pre # {er} # " " # 2')
    assert macros.evaluate('pre # " Learning"') == "Deep Learning"
    assert macros.evaluate("both") == "Deeper 2"
    assert macros.evaluate('{C# in {"quotes"}}') == 'C# in {"quotes"}'
    assert macros.evaluate("PRE # nothing") == "Deep" and macros.undefined == {"nothing"}
    assert macros.evaluate("{unbalanced") == "{unbalanced"  # kept as written


def test_a_concatenated_title_from_a_file(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(
        '@string{pre = "Deep"}\n@misc{a, title = pre # " Learning", author = {Ada Lovelace}, year = 2020}\n'
    )
    fetched, problems = from_bibtex.fetch(bib, "refs.bib", "Ada Lovelace")
    assert problems == [] and [w.title for w in fetched.works] == ["Deep Learning"]


def test_author_lists_split_once_and_bounded(tmp_path: Path) -> None:
    """Issue 29 case 11 (small): 200 entries sharing one 3,000-author @string; figures for
    5,000 entries come from benchmarks/bibtex_import.py."""
    names = " and ".join(f"Author{n} Family{n}" for n in range(3_000))
    entries = "".join(
        f"@article{{e{n}, title = {{Paper {n}}}, author = many, year = 2020}}\n" for n in range(200)
    )
    bib = tmp_path / "big.bib"
    bib.write_text(f"@string{{many = {{Ada Lovelace and {names}}}}}\n{entries}")
    fetched, problems = from_bibtex.fetch(bib, "big.bib", "Ada Lovelace")
    assert problems == [] and len(fetched.works) == 200
    assert all(w.authors is fetched.works[0].authors for w in fetched.works)  # split once
    made = [seedtext.record_of(w, 2027).record for w in fetched.works]
    assert all(r is not None and len(r.details.authors) == seedtext.WRITTEN_AUTHORS for r in made)
    assert all(r is not None and r.details.more_authors for r in made)


def test_names_keep_and_others_apart() -> None:
    listed = split_names(r"Bailly, Fran{\c c}ois and Wat{\'e}, Bruno and others")
    assert listed.names == ("François Bailly", "Bruno Waté") and listed.more


def test_openalex_works_carry_type_url_and_venue() -> None:
    data = {
        "id": "https://openalex.org/W1",
        "doi": "https://doi.org/10.1/x",
        "display_name": "A Paper",
        "publication_year": 2020,
        "publication_date": "2020-05-04",
        "type": "article",
        "primary_location": {
            "landing_page_url": "https://proceedings.example.org/a",
            "source": {"display_name": "Proc. Things", "type": "conference"},
        },
        "authorships": [{"author": {"display_name": "Ada Lovelace"}}],
    }
    work = work_from(data, "2026-01-01")
    assert (work.kind, work.url, work.journal_ref) == (
        "conference paper",
        "https://proceedings.example.org/a",
        "Proc. Things",
    )
    assert work_from({**data, "type": "dissertation"}, "2026-01-01").kind == "PhD thesis"
    assert work_from({**data, "type": ["not", "text"]}, "2026-01-01").kind == ""


def test_import_of_5000_entries_sharing_one_list_is_quick_and_small(tmp_path: Path) -> None:
    """Not a timing test: the figures are printed; the test holds that it completes with the
    list bounded (the benchmark script prints the same for the 5,000-entry case)."""
    names = " and ".join(f"Author{n} Family{n}" for n in range(3_000))
    entries = "".join(
        f"@article{{e{n}, title = {{Paper {n}}}, author = many, year = 2020}}\n" for n in range(1_000)
    )
    bib = tmp_path / "big.bib"
    bib.write_text(f"@string{{many = {{{names}}}}}\n{entries}")
    tracemalloc.start()
    started = time.perf_counter()
    fetched, _ = from_bibtex.fetch(bib, "big.bib", "Author1 Family1")
    seconds, peak = time.perf_counter() - started, tracemalloc.get_traced_memory()[1] / 2**20
    print(f"1,000 entries: {seconds:.2f} s, {peak:.0f} MiB peak")
    tracemalloc.stop()
    assert len(fetched.works) == 1_000 and len({id(w.authors) for w in fetched.works}) == 1


def test_hostile_details_are_escaped_everywhere(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "ada.txt").write_text(
        "arXiv subjects\n\nAda Lovelace\n\nPublications and source records attributed to Ada Lovelace.\n\n"
        "1 record\n\nBibTeX1843\n\nSketch of the Engine\n\n"
        'Authors: Ada Lovelace; <img src=x onerror=alert(1)>; "Quoted" </script>\n'
        "Venue: <script>alert(1)</script> & Co\nType: article\nURL: javascript:alert(1)\n\n"
        "An abstract.\n",
        encoding="utf-8",
    )
    project = make_project(tmp_path / "project", seeds=seeds, site_yaml=BASE_URL_YAML)
    result = pipeline.build(project)
    assert any(
        "javascript:alert(1)" in d.message and d.severity is Severity.WARNING for d in result.diagnostics
    )
    for path in (project / "site").rglob("*"):
        if path.suffix in (".html", ".xml"):  # JSON and BibTeX files hold text as it is
            text = path.read_text(encoding="utf-8")
            assert "<script>alert" not in text and "<img src=x" not in text and "javascript:" not in text, (
                path
            )
    page = next((project / PAPERS / "1843").iterdir()) / "index.html"
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co" in page.read_text(encoding="utf-8")


def test_feeds_link_an_original_that_is_not_on_arxiv(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "ada.txt").write_text(
        "Ada Lovelace\n\nPublications and source records attributed to Ada Lovelace.\n\n2 records\n\n"
        "BibTeX1843\n\nSketch of the Engine\n\nDOI: 10.1000/sketch\nDate: 1843-09-01\n\nAn abstract.\n\n"
        "BibTeX1842\n\nNotes\n\nVenue: Memoirs\n\nAnother abstract.\n",
        encoding="utf-8",
    )
    project = make_project(tmp_path / "project", seeds=seeds, site_yaml=BASE_URL_YAML)
    pipeline.build(project)
    feed = (project / "site/feed.xml").read_text(encoding="utf-8")
    assert '<link rel="related" type="text/html" href="https://doi.org/10.1000/sketch" />' in feed
    assert "<published>1843-09-01T00:00:00Z</published>" in feed and 'href=""' not in feed

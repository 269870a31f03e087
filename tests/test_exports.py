"""Every export of a generated collection (TeX, accents, `& < >` in titles, non-Latin names)
passes a real parser: BibTeX, RIS, CSL-JSON, Atom feeds, the JSON data files and llms.txt."""

from __future__ import annotations

import json
from pathlib import Path

import bibtexparser
import feedparser
import jsonschema
import pytest
import rispy

from benchmarks.corpus import generate
from scholarsite import pipeline
from scholarsite.inputs.memo import MEMO_FILE, Memo
from scholarsite.inputs.project import load_project
from scholarsite.model.model import MAX_TEAM
from scholarsite.outputs.families import exports
from scholarsite.write import produce

from .conftest import BASE_URL_YAML, author_bib, make_project, page_downloads

CSL_SCHEMA = json.loads((Path(__file__).parent / "data/csl-data.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("exports")
    generate(root / "seeds", authors=80, papers=300, seed=11)
    project = make_project(root / "project", root / "seeds", BASE_URL_YAML + "author_feeds: true\n")
    pipeline.build(project)
    return project / "site"


@pytest.fixture(scope="module")
def papers(site: Path) -> list[dict]:
    return json.loads((site / "data/papers.json").read_text(encoding="utf-8"))["papers"]


def paper_folder(site: Path, paper: dict) -> Path:
    return (site / paper["page"]).parent


def test_the_collection_has_the_hard_cases(papers: list[dict]) -> None:
    titles = " ".join(p["title"] for p in papers)
    for hard in ("$", "&", "<", ">", "\\textit"):
        assert hard in titles


def test_every_paper_bibtex_parses_with_unique_keys(site: Path, papers: list[dict]) -> None:
    keys = []
    for paper in papers:
        text = page_downloads(paper_folder(site, paper))["bib"]
        library = bibtexparser.parse_string(text)
        assert not library.failed_blocks, paper["page"]
        (entry,) = library.entries
        assert entry.key == paper["citation_key"]
        assert entry["year"] == str(paper["year"])
        assert entry["author"].endswith("and others")
        keys.append(entry.key)
    assert len(set(keys)) == len(keys) == len(papers)


def test_tex_in_titles_survives_in_bibtex(site: Path, papers: list[dict]) -> None:
    with_math = [p for p in papers if "$\\alpha$" in p["title"]]
    assert with_math
    text = page_downloads(paper_folder(site, with_math[0]))["bib"]
    assert "$\\alpha$" in text


def test_author_and_subject_bib_files_parse(site: Path) -> None:
    """Subjects' papers.bib and each author's entries parse; a part of the authors' BibTeX
    parses too, but holds a paper once for each of its authors there (keys repeat)."""
    for bib in site.glob("subjects/*/papers.bib"):
        library = bibtexparser.parse_string(bib.read_text(encoding="utf-8"))
        assert not library.failed_blocks and library.entries, bib
    data = pipeline.check(site.parent).data
    for author in data.site.authors:
        library = bibtexparser.parse_string(author_bib(site, author.slug))
        assert not library.failed_blocks and len(library.entries) == len(author.papers), author.slug
    for bib in site.glob("data/bibtex/authors-*.bib"):
        library = bibtexparser.parse_string(bib.read_text(encoding="utf-8"))
        assert library.entries and {type(b).__name__ for b in library.failed_blocks} <= {
            "DuplicateBlockKeyBlock"
        }


def test_each_author_s_bibtex_is_cut_from_their_part_whole(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The authors' BibTeX is in parts, not a file an author: each author's entries, cut from
    their part as the author page's script cuts them, are what their papers.bib held (their
    papers' entries, newest first, a blank line apart); no other part holds them."""
    monkeypatch.setattr(exports, "AUTHORS_A_BIBTEX_PART", 16)  # 80 authors: 8 parts
    project = make_project(tmp_path / "project", site.parent.parent / "seeds", BASE_URL_YAML)
    pipeline.build(project)
    built = project / "site"
    data = pipeline.check(project).data
    parts = {
        p.relative_to(built).as_posix(): p.read_text(encoding="utf-8")
        for p in built.glob("data/bibtex/*.bib")
    }
    count = exports.bibtex_parts(len(data.site.authors))
    assert count == 8 and len(parts) == count
    assert not list(built.glob("authors/*/papers.bib"))
    for author in data.site.authors:
        part = exports.author_bibtex_part(author.slug, len(data.site.authors))
        expected = exports.bibliography(data, [data.records[p.key] for p in author.papers]).decode()
        made = exports.author_entries(parts[part], author.slug)
        assert made == expected, author.slug
        holding = [name for name, text in parts.items() if exports.author_entries(text, author.slug)]
        assert holding == [part], author.slug
        page = (built / data.cards.author(author)["path"]).read_text(encoding="utf-8")
        assert f'href="../../{part}" data-bibtex="{author.slug}"' in page, author.slug


def test_author_feeds_are_written_only_when_asked_for(site: Path, tmp_path: Path) -> None:
    data = pipeline.check(site.parent).data
    assert len(list(site.glob("authors/*/feed.xml"))) == len(data.site.authors)
    project = make_project(tmp_path / "project", site.parent.parent / "seeds", BASE_URL_YAML)
    pipeline.build(project)
    built = project / "site"
    assert not list(built.glob("authors/*/feed.xml")) and list(built.glob("subjects/*/feed.xml"))
    author = data.site.authors[0]
    page = (built / data.cards.author(author)["path"]).read_text(encoding="utf-8")
    assert "feed.xml" not in page.replace('href="../../feed.xml"', "")  # the site's feed only


def test_every_paper_ris_parses(site: Path, papers: list[dict]) -> None:
    for paper in papers:
        (entry,) = rispy.loads(page_downloads(paper_folder(site, paper))["ris"])
        assert entry["title"] == paper["title_text"]
        assert entry["year"] == str(paper["year"])


def test_every_paper_csl_json_is_schema_valid(site: Path, papers: list[dict]) -> None:
    validator = jsonschema.Draft3Validator(CSL_SCHEMA)
    for paper in papers:
        items = json.loads(page_downloads(paper_folder(site, paper))["json"])
        validator.validate(items)
        assert items[0]["title"] == paper["title_text"]
        assert items[0]["issued"] == {"date-parts": [[paper["year"]]]}


def test_every_feed_parses_with_required_atom_elements(site: Path) -> None:
    feeds = [site / "feed.xml", *site.glob("authors/*/feed.xml"), *site.glob("subjects/*/feed.xml")]
    assert len(feeds) > 50
    for path in feeds:
        feed = feedparser.parse(path.read_bytes())
        assert not feed.bozo, (path, feed.get("bozo_exception"))
        assert feed.feed.id.startswith("https://example.org/scholarsite/")
        assert feed.feed.title and feed.feed.updated
        for entry in feed.entries:
            assert entry.id.startswith("https://") and entry.title and entry.updated and entry.authors
        years = [int(e.updated[:4]) for e in feed.entries]
        assert years == sorted(years, reverse=True)


def test_feed_titles_keep_markup_characters_as_text(site: Path, papers: list[dict]) -> None:
    titles = {p["title_text"] for p in papers}
    shown = [
        entry.title
        for path in site.glob("authors/*/feed.xml")
        for entry in feedparser.parse(path.read_bytes()).entries
        if "<" in entry.title or "&" in entry.title
    ]
    assert shown
    assert set(shown) <= titles


def test_data_files_describe_every_paper_and_author(site: Path, papers: list[dict]) -> None:
    authors = json.loads((site / "data/authors.json").read_text(encoding="utf-8"))
    assert authors["schema_version"] == 1
    ids = {p["id"] for p in papers}
    for author in authors["authors"]:
        assert set(author["papers"]) <= ids
        assert (site / author["page"]).is_file()
    for paper in papers:
        assert (site / paper["page"]).is_file() and paper["records"]
    llms = (site / "llms.txt").read_text(encoding="utf-8")
    assert llms.startswith("# ") and "https://example.org/scholarsite/data/papers.json" in llms


def test_a_long_data_list_is_split_into_parts_that_add_up_to_it(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(exports, "PART_SIZE", {"papers": 70, "authors": 30})
    project = make_project(tmp_path / "project", site.parent / "seeds", BASE_URL_YAML)
    pipeline.build(project)
    split = project / "site/data"
    for name in ("papers", "authors"):
        whole = json.loads((site / f"data/{name}.json").read_text(encoding="utf-8"))
        index = json.loads((split / f"{name}.json").read_text(encoding="utf-8"))
        size = exports.PART_SIZE[name]
        assert index["schema_version"] == 2 and index["count"] == len(whole[name]) > size
        items = []
        for number, part in enumerate(index["parts"], 1):
            assert part["path"] == f"{name}-{number}.json"
            text = json.loads((split / part["path"]).read_text(encoding="utf-8"))
            assert text["part"] == number and 0 < len(text[name]) == part["count"] <= 2 * size
            items += text[name]
        assert items == whole[name]
        assert len(index["parts"]) > 2


def test_a_paper_added_changes_its_own_part_of_the_papers_list(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A part ends where an item's key says so, not after a count: the newest paper, added at
    the head of the list, changes the first part's file and the index, no other part."""
    monkeypatch.setattr(exports, "PART_SIZE", {"papers": 40, "authors": 30})
    project = make_project(tmp_path / "project", site.parent / "seeds", BASE_URL_YAML)
    pipeline.build(project)
    data = project / "site/data"
    before = {file.name: file.read_bytes() for file in data.glob("papers-*.json")}
    (project / "seeds/zz-newest.txt").write_text(
        "arXiv subjects\n\nNew Comer\n\nPublications and source records attributed to New Comer.\n\n"
        "1 record\n\narXiv2027\n\nThe Newest Paper of All\n\nIt comes first.\n\ncs.DC↗\n",
        encoding="utf-8",
    )
    pipeline.build(project)
    after = {file.name: file.read_bytes() for file in data.glob("papers-*.json")}
    assert before.keys() == after.keys() and len(before) > 4
    assert [name for name in sorted(after) if after[name] != before[name]] == ["papers-1.json"]


def test_an_abstract_edit_encodes_its_papers_line_of_the_papers_list_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """data/papers.json is rewritten whole when a paper changes, but its other papers' lines
    come from the memo (`exports.paper_lines`): one paper's item is made, and the file is a
    clean build's."""
    seeds = tmp_path / "seeds"
    generate(seeds, 10, 30, seed=7)
    project = make_project(tmp_path / "project", seeds=seeds)
    pipeline.build(project, workers=1)
    made: list[str] = []
    items = exports.paper_items
    monkeypatch.setattr(
        exports, "paper_items", lambda data, papers: made.extend(p.key for p in papers) or items(data, papers)
    )
    data, _ = pipeline.site_data(load_project(project))
    paper = next(
        p
        for p in data.site.papers
        if p.abstract and p.abstract in (project / p.provenance[0].path).read_text()
    )
    seed = project / paper.provenance[0].path
    seed.write_text(seed.read_text().replace(paper.abstract, paper.abstract + " Revised.", 1))
    pipeline.build(project, workers=1)
    assert made == [paper.key]
    clean = tmp_path / "clean"
    pipeline.build(project, clean, caches=pipeline.Caches.empty(), workers=1)
    assert (project / "site/data/papers.json").read_bytes() == (clean / "data/papers.json").read_bytes()
    assert b"Revised." in (clean / "data/papers.json").read_bytes()


def test_a_collaborations_paper_is_cited_whole_on_its_page_and_shortened_in_bulk(tmp_path: Path) -> None:
    """Each of a collaboration's members' papers.bib would hold all its names (2,000 members:
    96 MB in all); there it gives the first FIRST_AUTHORS and "others", as INSPIRE does."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    for number in range(MAX_TEAM + 1):
        name = f"Member Number{number:03d}"
        (seeds / f"m{number:03d}.txt").write_text(
            f"arXiv subjects\n\n{name}\n\nPublications and source records attributed to {name}.\n\n"
            "At least 1 recordsLinked to original sources\n\narXiv2024\n\nA Large Collaboration\n\n"
            "We measure something together.\n\nhep-ex↗\n",
            encoding="utf-8",
        )
    project = make_project(tmp_path / "p", seeds=seeds)
    pipeline.build(project, workers=1)
    (page,) = (project / "site/papers").glob("*/*/index.html")
    whole = bibtexparser.parse_string(page_downloads(page.parent)["bib"]).entries[0]
    assert len([n for n in whole["author"].split(" and ") if n != "others"]) == MAX_TEAM + 1
    bulk = author_bib(project / "site", "member-number000")
    shortened = bibtexparser.parse_string(bulk).entries[0]
    names = shortened["author"].split(" and ")
    assert len(names) == exports.FIRST_AUTHORS + 1 and names[-1] == "others"


def test_the_bibtex_entries_render_workers_make_are_kept_for_the_next_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole build produces the BibTeX files in forked workers: the entries they add to the
    memo come back with their outputs (`write.Handover`), so the next build rewriting a file
    finds every entry of it (a worker's memo dies with it: the first edit after a whole build
    at 37,537 papers made a large subject's 10,000 entries again)."""
    monkeypatch.setattr(produce, "PARALLEL_FROM", 1)  # even a small site's outputs in workers
    seeds = tmp_path / "seeds"
    generate(seeds, 12, 40, seed=5)
    project = make_project(tmp_path / "project", seeds=seeds)
    pipeline.build(project, workers=2)
    data, _ = pipeline.site_data(load_project(project), pipeline.Caches.of(project))
    saved = Memo(project / MEMO_FILE)
    digests = [data.records.digest_of(paper.key) for paper in data.site.papers]
    assert digests and all(saved.has(exports.BULK_BIBTEX, digest) for digest in digests)

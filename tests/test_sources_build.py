"""The build reads `sources.yaml`: paper pages, citations, metadata, feeds and data carry what
link-sources found of each paper's original (issue 13); without the file nothing changes."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import bibtexparser
import pytest

from scholarsite import pipeline
from scholarsite.errors import BuildError, Diagnostic, Severity
from scholarsite.inputs.project import load_project
from scholarsite.model.checks import model_of
from scholarsite.outputs.listings import published
from tools import qa
from tools.qa.pages import scan_page

from .conftest import BASE_URL_YAML, author_bib, make_project, page_downloads

COMET = "2025/comet fine grained computation communication overlapping for mixture of experts"
TILELINK = (
    "2025/tilelink generating efficient compute communication overlapping kernels "
    "using tile centric primitives"
)
TRITON = (
    "2025/triton distributed programming overlapping kernels on distributed ai systems "
    "with the triton compiler"
)
FLUX = "2024/flux fast software based communication overlap on gpus through kernel fusion"
STALE = "2019/a paper whose title changed since"
COMET_AUTHORS = ["Shulai Zhang", "Ningxin Zheng", "Haibin Lin", "Ziheng Jiang", "Wenlei Bao"]
HOSTILE = "<script>alert('author')</script> \"Mallory\""
HOSTILE_YAML = json.dumps(HOSTILE)  # a JSON string is a YAML double-quoted scalar
SOURCES = f"""papers:
  {COMET}:
    status: found
    arxiv_id: '2502.19811'
    version: 2
    doi: 10.1145/3620666.3651379
    journal_ref: Proc. MLSys 2025 <b>bold</b>
    primary_category: cs.DC
    published: 2025-02-27
    updated: 2025-03-04
    authors: [{", ".join(COMET_AUTHORS)}]
  {TILELINK}:
    status: found
    arxiv_id: '2503.20313'
    published: 2025-03-11
    authors: [Size Zheng, {HOSTILE_YAML}, Ziheng Jiang]
  {TRITON}:
    status: found
    arxiv_id: '2504.19442'
    doi: 10.1000/x"><svg/onload=alert(1)>
    published: 2025-04-25
  {FLUX}:
    status: ambiguous
    candidates:
      - {{arxiv_id: '2406.06858', title: 'FLUX', published: 2024-06-11}}
      - {{arxiv_id: '2406.06859', title: 'Flux too', published: 2024-06-11}}
  {STALE}:
    status: found
    arxiv_id: '1901.00001'
"""
SHIPPED_SOURCES = Path(__file__).parent / "data" / "sources-shipped.yaml"


def with_sources(target: Path, text: str | None, site_yaml: str = BASE_URL_YAML) -> Path:
    """A project of the shipped seeds with `text` as its sources.yaml (None: no file)."""
    project = make_project(target, site_yaml=site_yaml)
    if text is not None:
        (project / "sources.yaml").write_text(text, encoding="utf-8")
    return project


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped seeds with a hand-written sources.yaml, built."""
    root = with_sources(tmp_path_factory.mktemp("sources") / "project", SOURCES)
    pipeline.build(root, workers=1)
    return root


@pytest.fixture(scope="module")
def papers(project: Path) -> dict[str, dict]:
    """data/papers.json by paper id."""
    data = json.loads((project / "site/data/papers.json").read_text(encoding="utf-8"))
    return {paper["id"]: paper for paper in data["papers"]}


def page_of(project: Path, papers: dict[str, dict], key: str) -> Path:
    """The folder of a paper's page."""
    return (project / "site" / papers[key]["page"]).parent


class Tags(HTMLParser):
    """Start tags with attributes, and the authors line (the `<dd>` after `<dt>Authors`), without
    its " et al." """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.depth = 0
        self.authors: list[tuple[str, str | None]] = []  # (text, href) pieces of the authors line
        self.href: str | None = None
        self.in_term = False
        self.next_authors = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append((tag, found))
        self.in_term = tag == "dt"
        if tag == "dd" and self.next_authors:
            self.depth, self.next_authors = 1, False
        elif self.depth:
            self.depth += 1
            self.href = found.get("href")

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1
            self.href = None

    def handle_data(self, data: str) -> None:
        if self.in_term:
            self.next_authors = data.startswith("Author")
            self.in_term = False
        if self.depth:
            names = data.removesuffix(" et al.").split(",")
            self.authors += [(name.strip(), self.href) for name in names if name.strip()]

    def meta(self, name: str) -> list[str]:
        """The contents of every `<meta name=...>` of that name."""
        return [str(a.get("content")) for t, a in self.tags if t == "meta" and a.get("name") == name]

    def hrefs(self) -> list[str]:
        """Every link target."""
        return [str(a.get("href")) for t, a in self.tags if t == "a"]


def tags(folder: Path) -> Tags:
    """The parsed paper page in `folder`."""
    found = Tags()
    found.feed((folder / "index.html").read_text(encoding="utf-8"))
    return found


def article(folder: Path) -> dict:
    """The ScholarlyArticle JSON-LD of a page."""
    blocks = (json.loads(b) for b in scan_page(folder / "index.html").jsonld)
    return next(b for b in blocks if b.get("@type") == "ScholarlyArticle")


def diagnostics_of(root: Path) -> tuple[tuple[Diagnostic, ...], tuple[Diagnostic, ...]]:
    """What check and build report."""
    checked = pipeline.check(root, workers=1).diagnostics
    try:
        built = pipeline.build(root, workers=1).diagnostics
    except BuildError as exc:
        built = exc.diagnostics
    return checked, built


def test_paper_page_links_the_original(project: Path, papers: dict[str, dict]) -> None:
    page = tags(page_of(project, papers, COMET))
    hrefs = page.hrefs()
    for url in ("https://arxiv.org/abs/2502.19811", "https://arxiv.org/pdf/2502.19811"):
        assert url in hrefs
    assert "https://doi.org/10.1145/3620666.3651379" in hrefs
    assert not any("searchtype=title" in h for h in hrefs)
    other = tags(
        page_of(project, papers, "2025/relax composable abstractions for end to end dynamic machine learning")
    )
    assert any("searchtype=title" in h for h in other.hrefs())  # no source: the title search


def test_paper_page_lists_every_author_in_order(project: Path, papers: dict[str, dict]) -> None:
    authors = tags(page_of(project, papers, COMET)).authors
    assert [name for name, _ in authors] == COMET_AUTHORS
    linked = {name: href for name, href in authors if href}
    assert linked == {
        "Ningxin Zheng": "../../../authors/ningxin-zheng/",
        "Ziheng Jiang": "../../../authors/ziheng-jiang/",
    }


def test_bibtex_ris_and_csl_cite_the_original(project: Path, papers: dict[str, dict]) -> None:
    downloads = page_downloads(page_of(project, papers, COMET))
    library = bibtexparser.parse_string(downloads["bib"])
    assert not library.failed_blocks
    (entry,) = library.entries
    assert entry["eprint"] == "2502.19811" and entry["archivePrefix"] == "arXiv"
    assert entry["primaryClass"] == "cs.DC" and entry["doi"] == "10.1145/3620666.3651379"
    assert "others" not in entry["author"] and len(entry["author"].split(" and ")) == len(COMET_AUTHORS)
    assert entry.key == papers[COMET]["citation_key"] == "zhang2025comet"
    ris = downloads["ris"]
    assert "DO  - 10.1145/3620666.3651379\n" in ris and "DA  - 2025/02/27/\n" in ris
    assert "UR  - https://arxiv.org/abs/2502.19811\n" in ris and "N1  -" not in ris
    assert ris.count("AU  - ") == len(COMET_AUTHORS)
    (csl,) = json.loads(downloads["json"])
    assert csl["DOI"] == "10.1145/3620666.3651379" and csl["URL"] == "https://arxiv.org/abs/2502.19811"
    assert csl["issued"] == {"date-parts": [[2025, 2, 27]]} and "note" not in csl
    assert [a["family"] for a in csl["author"]] == [n.split()[-1] for n in COMET_AUTHORS]
    bib = author_bib(project / "site", "ningxin-zheng")
    assert "eprint = {2502.19811}" in bib


def test_metadata_carries_the_original(project: Path, papers: dict[str, dict]) -> None:
    folder = page_of(project, papers, COMET)
    data = article(folder)
    assert data["identifier"] == [
        {"@type": "PropertyValue", "propertyID": "arXiv", "value": "2502.19811"},
        {"@type": "PropertyValue", "propertyID": "DOI", "value": "10.1145/3620666.3651379"},
    ]
    assert data["sameAs"] == ["https://arxiv.org/abs/2502.19811", "https://doi.org/10.1145/3620666.3651379"]
    assert data["datePublished"] == "2025-02-27"
    assert [a["name"] for a in data["author"]] == COMET_AUTHORS
    assert [a["name"] for a in data["author"] if "url" in a] == ["Ningxin Zheng", "Ziheng Jiang"]
    page = tags(folder)
    assert page.meta("citation_author") == COMET_AUTHORS
    assert page.meta("citation_arxiv_id") == ["2502.19811"]
    assert page.meta("citation_doi") == ["10.1145/3620666.3651379"]
    assert page.meta("citation_pdf_url") == ["https://arxiv.org/pdf/2502.19811"]
    assert page.meta("citation_publication_date") == ["2025/02/27"]


def test_feed_and_data_carry_the_original(project: Path, papers: dict[str, dict]) -> None:
    feed = ET.parse(project / "site/feed.xml").getroot()
    atom = "{http://www.w3.org/2005/Atom}"
    comet = next(e for e in feed.iter(f"{atom}entry") if e.findtext(f"{atom}title", "").startswith("Comet"))
    assert comet.findtext(f"{atom}published") == "2025-02-27T00:00:00Z"
    assert comet.findtext(f"{atom}updated") == "2025-03-04T00:00:00Z"
    related = [link.get("href") for link in comet.iter(f"{atom}link") if link.get("rel") == "related"]
    assert related == ["https://arxiv.org/abs/2502.19811"]
    assert [a.findtext(f"{atom}name") for a in comet.iter(f"{atom}author")] == COMET_AUTHORS
    original = papers[COMET]["original"]
    assert original["arxiv_id"] == "2502.19811" and original["doi"] == "10.1145/3620666.3651379"
    assert original["published"] == "2025-02-27" and original["authors"] == COMET_AUTHORS
    assert (
        "original" not in papers["2025/relax composable abstractions for end to end dynamic machine learning"]
    )


def test_papers_within_a_year_follow_published_dates(project: Path, papers: dict[str, dict]) -> None:
    in_2025 = [key for key in papers if key.startswith("2025/")]
    assert in_2025[:3] == [TRITON, TILELINK, COMET]  # newest first
    assert in_2025[3:] == sorted(in_2025[3:])  # no date known: by key, as before
    site = model_of(load_project(project))[0]
    author = next(a for a in site.authors if a.name == "Ziheng Jiang")
    assert [p.key for p in author.papers if p.year == 2025][:3] == [TRITON, TILELINK, COMET]
    year_page = (project / "site/years/2025/index.html").read_text(encoding="utf-8")
    assert year_page.index("Triton-distributed") < year_page.index("TileLink") < year_page.index("Comet")


def test_no_field_injects_markup(project: Path, papers: dict[str, dict]) -> None:
    for key in (TILELINK, TRITON, COMET):
        folder = page_of(project, papers, key)
        page = tags(folder)
        assert not {t for t, _ in page.tags} & {"svg", "b"}, key
        assert not any(n.startswith("on") for _, attrs in page.tags for n in attrs), key
        assert not any(h.startswith("javascript:") for h in page.hrefs())
        assert all(not re.search(r'[\s"<>]', h) for h in page.hrefs()), key  # valid URLs
        library = bibtexparser.parse_string(page_downloads(folder)["bib"])
        assert not library.failed_blocks
    assert HOSTILE in [name for name, _ in tags(page_of(project, papers, TILELINK)).authors]
    feed = (project / "site/feed.xml").read_text(encoding="utf-8")
    assert "<script>" not in feed and "<svg" not in feed


def test_stale_and_ambiguous_entries_are_reported_alike(project: Path) -> None:
    checked, built = diagnostics_of(project)
    assert checked == built
    stale = [d for d in built if STALE in d.message]
    assert [(d.path, d.severity) for d in stale] == [("sources.yaml", Severity.WARNING)]
    lines = (project / "sources.yaml").read_text(encoding="utf-8").split("\n")
    assert STALE in lines[stale[0].line - 1]  # the line of the stale entry's key
    ambiguous = [d for d in built if FLUX in d.message]
    assert [(d.severity, "2 possible" in d.message) for d in ambiguous] == [(Severity.NOTE, True)]


def test_a_bad_entry_is_an_error_at_its_line(tmp_path: Path) -> None:
    bad = "    status: found\n    arxiv_id: javascript:alert(1)\n"
    text = f"papers:\n  {COMET}:\n    status: found\n  {TILELINK}:\n{bad}"
    root = with_sources(tmp_path / "project", text)
    checked, built = diagnostics_of(root)
    assert checked == built
    errors = [d for d in built if d.severity == Severity.ERROR]
    assert [(d.path, d.line) for d in errors] == [("sources.yaml", 4)]
    assert "arxiv_id" in errors[0].message


def test_without_sources_nothing_changes(tmp_path: Path) -> None:
    none = with_sources(tmp_path / "none", None)
    unknown = with_sources(tmp_path / "unknown", f"papers:\n  {COMET}:\n    status: not-found\n")
    for root in (none, unknown):
        pipeline.build(root, workers=1)
    for page in sorted((none / "site").rglob("*")):
        if page.is_file() and "pagefind" not in page.parts and not page.name.startswith(".scholarsite-"):
            relative = page.relative_to(none / "site")
            assert page.read_bytes() == (unknown / "site" / relative).read_bytes(), relative
    comet = tags(next((none / "site/papers/2025").glob("comet-*")))
    assert comet.meta("citation_arxiv_id") == [] and any("searchtype=title" in h for h in comet.hrefs())


@pytest.mark.skipif(
    not SHIPPED_SOURCES.is_file(), reason="tests/data/sources-shipped.yaml is not written yet"
)
def test_every_shipped_paper_with_its_sources(tmp_path: Path) -> None:
    root = with_sources(tmp_path / "project", SHIPPED_SOURCES.read_text(encoding="utf-8"))
    pipeline.build(root, workers=1)
    site = root / "site"
    data = json.loads((site / "data/papers.json").read_text(encoding="utf-8"))["papers"]
    for paper in data:
        folder = (site / paper["page"]).parent
        hrefs = tags(folder).hrefs()
        arxiv_id = paper["original"]["arxiv_id"]
        assert f"https://arxiv.org/abs/{arxiv_id}" in hrefs and f"https://arxiv.org/pdf/{arxiv_id}" in hrefs
        (entry,) = bibtexparser.parse_string(page_downloads(folder)["bib"]).entries
        assert not re.search(r"\band others$", entry["author"]), paper["id"]
    result = qa.check_html(site)
    assert result.ok, result.problems


def test_sources_are_an_input_of_the_build() -> None:
    from scholarsite.inputs.freshness import INPUTS
    from scholarsite.preview.watch import WATCHED

    assert "sources.yaml" in INPUTS and "sources.yaml" in WATCHED


def test_a_papers_date_is_its_cards_without_the_card(project: Path) -> None:
    """A listing's order note reads each paper's publication date without making its card
    (`Cards.published`): the date its card gives, sources.yaml's or its records' details'."""
    data, _ = pipeline.site_data(load_project(project))
    dates = {p.key: data.cards.published(p) for p in data.site.papers}
    assert not data.cards.papers.made
    assert dates == {p.key: published(data.cards.paper(p)) for p in data.site.papers}
    assert dates[COMET] == "2025-02-27" and "" in dates.values()

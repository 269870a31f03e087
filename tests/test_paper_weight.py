"""Paper pages stay light (issues 20 and 27): every citation format is made from the page (its
BibTeX block and citation data, parsed here), no file is written beside the page, no page
carries a `data:` download, and each abstract is in its page at most twice (shown, and its
plain text in the citation data; besides that only in its clipped description)."""

from __future__ import annotations

import base64
import json
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import bibtexparser
import pytest
import rispy

from benchmarks import weight
from benchmarks.corpus import generate
from scholarsite import pipeline

from .conftest import BASE_URL_YAML, make_project, page_downloads

SNIPPET = 40  # characters of an abstract's prose looked for in its page
CLIPPED = 250  # a snippet starting this far into an abstract is past the description's clip


class PaperPage(HTMLParser):
    """What a paper page offers: its download buttons, its abstract's text nodes, the text
    shown, every attribute value and the JSON data blocks (JSON-LD and citation data)."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.downloads: list[dict[str, str]] = []
        self.abstract: list[str] = []
        self.shown: list[str] = []
        self.attributes: list[str] = []
        self.jsonld: list[str] = []
        self.citation_key = ""  # the citation data's
        self.open_link: dict[str, str] | None = None
        self.abstract_depth = 0  # open elements inside the first abstract div (0: outside)
        self.abstracts_seen = 0
        self.script: str | None = None  # the type of the open <script>
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        self.attributes += found.values()
        if tag == "button" and "data-cite" in found:
            self.open_link = {**found, "label": ""}
            self.downloads.append(self.open_link)
        if self.abstract_depth:
            self.abstract_depth += 1
        elif tag == "div" and found.get("class") == "abstract-text" and not self.abstracts_seen:
            self.abstract_depth, self.abstracts_seen = 1, 1
        if tag == "script":
            self.script = found.get("type", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "button":
            self.open_link = None
        if self.abstract_depth:
            self.abstract_depth -= 1
        if tag == "script":
            self.script = None

    def handle_data(self, data: str) -> None:
        if self.script is not None:
            if self.script in ("application/ld+json", "application/json"):
                self.jsonld.append(data)
            if self.script == "application/json":
                self.citation_key = dict(json.loads(data)["csl"])["id"]
            return
        self.shown.append(data)
        if self.abstract_depth:
            self.abstract.append(data)
        if self.open_link is not None:
            self.open_link["label"] += data


def flat(text: str) -> str:
    """Whitespace collapsed."""
    return " ".join(text.split())


def strings(value: object) -> list[str]:
    """Every string in decoded JSON."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    return []


def decoded_data_url(url: str) -> str:
    """The text a `data:` URL carries."""
    head, _, body = url.partition(",")
    raw = base64.b64decode(body) if head.endswith(";base64") else unquote(body).encode()
    return raw.decode("utf-8", "replace")


def copies(page: PaperPage, snippet: str) -> int:
    """How often `snippet` is in the page: in the text shown, in attribute values, in the
    strings of its JSON data and in the text of any `data:` URL."""
    places = ["".join(page.shown)]
    places += [s for block in page.jsonld for s in strings(json.loads(block))]
    places += [decoded_data_url(v) if v.startswith("data:") else v for v in page.attributes]
    return sum(flat(place).count(snippet) for place in places)


def tail_snippet(page: PaperPage) -> str | None:
    """A run of the abstract's prose well past the start of the abstract (so not in its
    clipped description), or None when the abstract is too short to have one."""
    shown = flat(" ".join(page.abstract))
    prose = [flat(node) for node in page.abstract if len(flat(node)) >= SNIPPET]
    if not prose:
        return None
    snippet = prose[-1][-SNIPPET:].strip()
    return snippet if shown.rfind(snippet) >= CLIPPED else None


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("weight")
    generate(root / "seeds", authors=40, papers=160, seed=20)
    project = make_project(root / "project", root / "seeds", BASE_URL_YAML)
    pipeline.build(project)
    return project / "site"


@pytest.fixture(scope="module")
def papers(site: Path) -> list[dict]:
    return json.loads((site / "data/papers.json").read_text(encoding="utf-8"))["papers"]


def page_of(site: Path, paper: dict) -> tuple[Path, PaperPage]:
    """A paper's folder and its parsed page."""
    folder = (site / paper["page"]).parent
    return folder, PaperPage((folder / "index.html").read_text(encoding="utf-8"))


def test_every_citation_format_is_made_from_the_page(site: Path, papers: list[dict]) -> None:
    for paper in papers:
        folder, page = page_of(site, paper)
        assert page.downloads == []  # the buttons are the script's (the browser test clicks them)
        key = paper["citation_key"]
        assert page.citation_key == key  # the saved files' names: key.bib, key.ris, key.json
        assert sorted(p.name for p in folder.iterdir()) == ["index.html"]  # no file beside the page
        made = page_downloads(folder)

        library = bibtexparser.parse_string(made["bib"])
        assert not library.failed_blocks, paper["page"]
        (entry,) = library.entries
        assert entry.key == key and entry["year"] == str(paper["year"])

        (record,) = rispy.loads(made["ris"])
        (item,) = json.loads(made["json"])
        assert record["id"] == item["id"] == key
        assert record["title"] == item["title"] == paper["title_text"]
        assert item["issued"] == {"date-parts": [[paper["year"]]]}
        assert record.get("abstract") == item.get("abstract")
        assert bool(item.get("abstract")) == bool(paper["abstract"].strip()), paper["page"]


def test_no_paper_page_carries_a_data_url(site: Path, papers: list[dict]) -> None:
    for paper in papers:
        _, page = page_of(site, paper)
        assert not [value for value in page.attributes if value.startswith("data:")], paper["page"]


def test_each_abstract_is_at_most_twice_in_its_page(site: Path, papers: list[dict]) -> None:
    checked = 0
    for paper in papers:
        _, page = page_of(site, paper)
        snippet = tail_snippet(page)
        if snippet is None:
            continue
        assert 1 <= copies(page, snippet) <= 2, (paper["page"], snippet)
        checked += 1
    assert checked >= len(papers) // 2


def test_the_count_sees_every_copy_of_an_abstract(site: Path, papers: list[dict]) -> None:
    """The count of the test above finds an abstract in JSON-LD and in data: URLs too, as paper
    pages carried it before (shown, JSON-LD, RIS and CSL-JSON in base64)."""
    paper = next(p for p in papers if tail_snippet(page_of(site, p)[1]))
    folder, page = page_of(site, paper)
    snippet = tail_snippet(page)
    assert snippet is not None
    text = (folder / "index.html").read_text(encoding="utf-8")
    made = page_downloads(folder)
    (item,) = json.loads(made["json"])
    ris = base64.b64encode(made["ris"].encode()).decode()
    jsonld = json.dumps({"@type": "ScholarlyArticle", "abstract": item["abstract"]})
    before = text.replace(
        "</head>",
        f'<script type="application/ld+json">{jsonld}</script>'
        f'<link rel="alternate" href="data:application/x-research-info-systems;base64,{ris}"></head>',
    )
    assert copies(PaperPage(before), snippet) == copies(page, snippet) + 2


def test_a_new_abstract_rewrites_its_paper_page_and_no_citation_file(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project", site_yaml=BASE_URL_YAML)
    pipeline.build(project)
    papers = json.loads((project / "site/data/papers.json").read_text(encoding="utf-8"))["papers"]
    paper = next(p for p in papers if len(p["abstract"]) > 100)
    seed = project / paper["records"][0]["file"]
    text = seed.read_text(encoding="utf-8")
    words = paper["abstract"][:40]
    assert text.count(words) == 1
    seed.write_text(text.replace(words, words + " newly", 1), encoding="utf-8")
    written = pipeline.build(project).report.written
    assert paper["page"] in written and not [p for p in written if "/cite." in p]
    made = page_downloads(project / "site" / paper["page"].removesuffix("/index.html"))
    assert "newly" in made["ris"] and "newly" in made["json"]


def test_the_weight_benchmark_measures_a_built_site(site: Path, papers: list[dict]) -> None:
    measured = weight.measure(site)
    assert len(measured.pages) == len(papers)
    assert measured.parts["data: downloads"] == 0 and measured.parts["JSON-LD"] > 0
    text = weight.report(site, measured)
    assert f"{len(papers)} paper pages" in text and "author pages" in text and "files a paper" in text

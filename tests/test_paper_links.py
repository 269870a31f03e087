"""Links and types a maintainer adds (issue 28, part 7): `links:` and `type:` in sources.yaml,
shown (escaped) on the paper page and in listing rows, checked at their line; author pages
grouped by type with `author_papers_by: type`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from markupsafe import escape

from scholarsite import pipeline
from scholarsite.errors import BuildError, Severity
from scholarsite.inputs.paperlinks import Link
from scholarsite.inputs.sources import SOURCES_FILE, SourceEntry, dump_sources, parse_sources
from scholarsite.sources.link import kept_by_hand
from tools import qa

from .conftest import BASE_URL_YAML, make_project
from .test_sources_build import COMET, FLUX, TILELINK

HOSTILE_LABEL = "<script>alert('label')</script> & co"
SOURCES = f"""papers:
  {COMET}:
    status: found
    arxiv_id: '2502.19811'
    type: conference paper
    links:
      - {{kind: code, url: 'https://github.com/bytedance/flux?a=1&b=2'}}
      - {{kind: slides, url: https://example.org/comet.pdf, label: "{HOSTILE_LABEL}"}}
  {TILELINK}:
    status: not-found
    type: preprint
    links: [{{kind: video, url: https://example.org/talk}}]
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped seeds with links and types in sources.yaml, author pages grouped by type."""
    root = make_project(
        tmp_path_factory.mktemp("links") / "project", site_yaml=BASE_URL_YAML + "author_papers_by: type\n"
    )
    (root / "sources.yaml").write_text(SOURCES, encoding="utf-8")
    pipeline.build(root, workers=1)
    return root


def page(project: Path, year: int, prefix: str) -> str:
    (folder,) = (project / f"site/papers/{year}").glob(f"{prefix}*")
    return (folder / "index.html").read_text(encoding="utf-8")


def test_links_are_shown_on_the_paper_page(project: Path) -> None:
    comet = page(project, 2025, "comet-")
    assert '<a href="https://github.com/bytedance/flux?a=1&amp;b=2">Code</a>' in comet
    assert f'<a href="https://example.org/comet.pdf">{escape(HOSTILE_LABEL)}</a>' in comet
    assert "<script>alert('label')" not in comet
    assert "(conference paper)" in comet or "Conference paper" in comet
    assert "@inproceedings{" in comet  # the type chooses the citation's
    tilelink = page(project, 2025, "tilelink-")  # not on arXiv: its links and type still show
    assert '<a href="https://example.org/talk">Video</a>' in tilelink and "Preprint" in tilelink


def test_links_are_shown_in_listing_rows(project: Path) -> None:
    listing = (project / "site/years/2025/index.html").read_text(encoding="utf-8")
    assert '<span class="links"><a href="https://github.com/bytedance/flux?a=1&amp;b=2">Code</a>' in listing
    assert "<script>alert('label')" not in listing


def test_links_are_in_the_papers_data(project: Path) -> None:
    papers = json.loads((project / "site/data/papers.json").read_text(encoding="utf-8"))["papers"]
    (comet,) = (paper for paper in papers if paper["id"] == COMET)
    assert comet["links"][0] == {
        "kind": "code",
        "url": "https://github.com/bytedance/flux?a=1&b=2",
        "text": "Code",
    }
    assert comet["original"]["kind"] == "conference paper"


def test_an_author_page_groups_papers_by_type(project: Path) -> None:
    author = (project / "site/authors/ziheng-jiang/index.html").read_text(encoding="utf-8")
    assert '<h2 id="type-conference-paper">Conference papers</h2>' in author
    assert '<h2 id="type-preprint">Preprints</h2>' in author
    assert author.index("Conference papers") < author.index("Preprints") < author.index("Type not known")
    assert "Grouped by type." in author


@pytest.mark.parametrize(
    ("links", "message"),
    [
        ("[{kind: code, url: 'javascript:alert(1)'}]", "'url' must be an http or https address"),
        ("[{kind: code, url: 'ftp://example.org/x'}]", "'url' must be an http or https address"),
        ("[{kind: code, url: '//example.org/x'}]", "'url' must be an http or https address"),
        ("[{kind: code, url: 'https://'}]", "'url' must be an http or https address"),
        ("[{kind: code}]", "'url' must be an http or https address"),
        ("[{kind: blog, url: 'https://example.org/'}]", "'kind' must be one of code, slides"),
        ("[{kind: code, url: 'https://example.org/', colour: red}]", "expected kind, url and an optional"),
        ("{kind: code, url: 'https://example.org/'}", "'links' must be a list"),
        ("[{kind: code, url: 'https://example.org/', label: [a]}]", "'label' must be one line"),
        ("[{kind: code, url: 'https://example.org/', label: \"a\\nb\"}]", "'label' must be one line"),
        (f"[{{kind: code, url: 'https://example.org/', label: {'x' * 201}}}]", "'label' must be one line"),
        ("[{kind: data, url: 'data:text/html,<script>x</script>'}]", "'url' must be an http or https"),
    ],
)
def test_a_bad_link_is_an_error_at_its_entry(links: str, message: str) -> None:
    text = f"papers:\n  {FLUX}:\n    status: not-found\n  {COMET}:\n    status: found\n    links: {links}\n"
    entries, problems = parse_sources(text, SOURCES_FILE)
    (problem,) = problems
    assert (problem.path, problem.line) == (SOURCES_FILE, 4) and message in problem.message
    assert list(entries) == [FLUX]


def test_a_bad_type_stops_the_build_at_its_line(tmp_path: Path) -> None:
    root = make_project(tmp_path / "project", site_yaml=BASE_URL_YAML)
    (root / "sources.yaml").write_text(f"papers:\n  {COMET}:\n    status: found\n    type: blog post\n")
    with pytest.raises(BuildError) as caught:
        pipeline.build(root, workers=1)
    (problem,) = [d for d in caught.value.diagnostics if d.path == SOURCES_FILE]
    assert problem.line == 2 and "'type' must be one of article, conference paper" in problem.message


def test_links_and_types_read_back_and_survive_link_sources() -> None:
    links = (Link("code", "https://example.org/a"), Link("other", "https://example.org/b", "Blog post"))
    entry = SourceEntry("not-found", type="PhD thesis", links=links)
    text = dump_sources({"2020/x": entry})
    assert parse_sources(text, SOURCES_FILE) == ({"2020/x": entry}, [])
    assert [link.text for link in links] == ["Code", "Blog post"]
    found = kept_by_hand(SourceEntry("found", arxiv_id="2001.00001"), entry)
    assert (found.arxiv_id, found.type, found.links) == ("2001.00001", "PhD thesis", links)


def test_author_papers_by_takes_year_or_type(tmp_path: Path) -> None:
    root = make_project(tmp_path / "project", site_yaml="author_papers_by: venue\n")
    with pytest.raises(BuildError) as caught:
        pipeline.build(root, workers=1)
    (problem,) = [d for d in caught.value.diagnostics if d.severity == Severity.ERROR]
    assert (problem.path, problem.line) == ("site.yaml", 1) and "expected 'year' or 'type'" in problem.message


def test_pages_with_links_and_type_groups_are_valid_html(project: Path) -> None:
    result = qa.check_html(project / "site")
    assert result.ok, result.problems

"""The build shows what link-sources recorded from OpenAlex (issue 21): cited-by counts, venues,
open-access links, an author's citations and h-index over the collection's papers, the most
cited papers of subjects and years, and "What's new" by publication date; the build reads
only sources.yaml. The acceptance run asks a stand-in OpenAlex about every shipped paper."""

from __future__ import annotations

import datetime
import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from scholarsite import cli, pipeline
from scholarsite.inputs.sources import load_sources
from scholarsite.model.impact_figures import h_index
from scholarsite.sources import link, openalex
from tests.conftest import BASE_URL_YAML, make_project
from tests.openalex_standin import running
from tests.test_sources_build import SHIPPED_SOURCES, article
from tools import qa

ATOM = "{http://www.w3.org/2005/Atom}"
HOSTILE = "<script>alert('venue')</script>"


def test_h_index_by_hand() -> None:
    assert h_index([]) == 0 and h_index([0, 0]) == 0 and h_index([1]) == 1
    assert h_index([10, 8, 5, 4, 3]) == 4  # four papers cited at least 4 times; not five at 5
    assert h_index([25, 8, 5, 3, 3]) == 3
    assert h_index([3, 3, 3]) == 3 and h_index([100]) == 1 and h_index([2, 2, 1]) == 2


PAPERS = (  # year, title, subject, OpenAlex part (YAML) or None
    (
        2025,
        "Alpha Paper",
        "cs.DC",
        "cited_by: 5\n  venue: Journal of Alpha\n  published: 2025-03-01\n  counts: {2023: 1, 2025: 4}\n"
        "  references: W1000 W2000 W3000 W9",  # itself, Beta, Gamma, and a work outside
    ),
    (
        2025,
        "Beta Paper",
        "cs.LG",
        "cited_by: 3\n  oa_url: https://example.org/b.pdf\n  published: 2025-05-20",
    ),
    (
        2024,
        "Gamma Paper",
        "cs.DC",
        f"cited_by: 1\n  venue: {json.dumps(HOSTILE)}\n  published: 2024-01-10\n  references: W2000",
    ),
    (2024, "Delta Paper", "cs.DC", "cited_by: 0"),
    (2023, "Epsilon Paper", "cs.DC", None),
)


def seed_text() -> str:
    """One author listing the five papers."""
    blocks = ["Ada Lovelace", "Publications and source records attributed to Ada Lovelace.", "5 records"]
    for year, title, subject, _ in PAPERS:
        blocks += [f"arXiv{year}", title, f"An abstract of {title}.", f"{subject}↗"]
    return "\n\n".join(blocks) + "\n"


def sources_text(keys: dict[str, str]) -> str:
    """A hand-written sources.yaml: an OpenAlex part for four papers (none on arXiv)."""
    lines = ["papers:"]
    for number, (_, title, _, part) in enumerate(PAPERS, start=1):
        if part is None:
            continue
        lines += [
            f"  {keys[title]}:",
            "    status: not-found",
            "    openalex:",
            "      status: found",
            "      checked: 2026-07-01",
            f"      id: W{number}000",
            *(f"      {line.strip()}" for line in part.split("\n")),
        ]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The five-paper project with its sources.yaml, built offline."""
    root = tmp_path_factory.mktemp("impact")
    (root / "seeds").mkdir()
    (root / "seeds" / "ada.txt").write_text(seed_text(), encoding="utf-8")
    (root / "site.yaml").write_text(BASE_URL_YAML, encoding="utf-8")
    keys = {paper.title: key for key, paper in link.papers_of(root).items()}
    (root / "sources.yaml").write_text(sources_text(keys), encoding="utf-8")
    pipeline.build(root, workers=1)
    return root / "site"


def page(site: Path, path: str) -> str:
    """A built page's text."""
    return (site / path).read_text(encoding="utf-8")


def text_of(html: str) -> str:
    """The visible text of a page's main part, tags removed and spaces collapsed."""
    main = html.split('<main id="main"', 1)[1].split("</main>", 1)[0]
    return " ".join(re.sub(r"<[^>]+>", "", main).split())


def paper_page(site: Path, title: str) -> str:
    """The page of a paper by title."""
    slug = title.lower().replace(" ", "-")
    return page(site, next(str(p.relative_to(site)) for p in site.glob(f"papers/*/{slug}*/index.html")))


def test_paper_page_shows_cited_by_venue_and_open_access(site: Path) -> None:
    alpha = paper_page(site, "Alpha Paper")
    assert "Cited by 5 (OpenAlex, 2026-07-01)" in text_of(alpha) and "Journal of Alpha" in alpha
    assert 'href="https://openalex.org/W1000"' in alpha
    beta = paper_page(site, "Beta Paper")
    assert '<a href="https://example.org/b.pdf">A free copy</a>' in beta
    gamma = paper_page(site, "Gamma Paper")
    assert HOSTILE not in gamma and "&lt;script&gt;alert(&#39;venue&#39;)&lt;/script&gt;" in gamma
    assert "Cited by" not in text_of(paper_page(site, "Epsilon Paper"))


def test_citations_inside_the_collection_are_linked_both_ways(site: Path) -> None:
    alpha, beta = paper_page(site, "Alpha Paper"), paper_page(site, "Beta Paper")
    assert "Cites 2 papers here" in text_of(alpha) and "Cited by" not in text_of(alpha).split("Cites")[1]
    cited = text_of(alpha).split("Cites 2 papers here", 1)[1]
    assert cited.index("Gamma Paper (2024)") < cited.index("Beta Paper (2025)")  # by key: 2024/… first
    assert "Cited by 2 papers here" in text_of(beta) and 'href="../alpha-paper/"' in beta
    assert "Cited by 1 paper here" in text_of(paper_page(site, "Gamma Paper"))
    assert "papers here" not in text_of(paper_page(site, "Delta Paper"))


def test_citations_per_year_figure(site: Path) -> None:
    alpha = paper_page(site, "Alpha Paper")
    svg = alpha.split('<figure class="cite-figure">', 1)[1].split("</figure>", 1)[0]
    assert svg.count('class="cite-bar"') == 3  # 2023, an empty 2024, 2025
    assert "<title>2024: 0</title>" in svg and "Citations per year, 2023 to 2025: 2023: 1; 2025: 4" in svg
    assert "5 from 2023 to 2025" in text_of(alpha)
    assert 'class="cite-figure"' not in paper_page(site, "Beta Paper")


def test_author_page_shows_citations_and_h_index_over_the_collection(site: Path) -> None:
    shown = text_of(page(site, "authors/ada-lovelace/index.html"))
    # counts 5, 3, 1, 0 (Epsilon unknown to OpenAlex): 9 citations; h = 2 (5 and 3 are >= 2, 1 is not 3)
    assert (
        "In this collection: cited 9 times, h-index 2 (the 4 of 5 papers OpenAlex found; counts from "
        "OpenAlex, checked 2026-07-01). Papers outside the collection are not counted." in shown
    )


def test_jsonld_and_data_carry_the_figures(site: Path) -> None:
    slug = next(p.parent for p in site.glob("papers/2025/alpha-paper*/index.html"))
    data = article(slug)
    assert data["interactionStatistic"]["userInteractionCount"] == 5
    assert data["isPartOf"]["name"] == "Journal of Alpha"
    assert {"@type": "PropertyValue", "propertyID": "OpenAlex", "value": "W1000"} in data["identifier"]
    papers = {p["title"]: p for p in json.loads(page(site, "data/papers.json"))["papers"]}
    assert papers["Beta Paper"]["impact"]["cited_by"] == 3
    assert "impact" not in papers["Epsilon Paper"]
    (ada,) = json.loads(page(site, "data/authors.json"))["authors"]
    assert (ada["impact"]["citations"], ada["impact"]["h_index"], ada["impact"]["counted"]) == (9, 2, 4)


def test_subject_and_year_pages_list_their_most_cited(site: Path) -> None:
    shown = text_of(page(site, "subjects/cs-dc/index.html"))
    block = shown.split("Most cited here", 1)[1].split("Cited-by counts from OpenAlex", 1)[0]
    assert " ".join(block.split()) == "Alpha Paper cited by 5 Gamma Paper cited by 1"  # 0 left out
    assert "Most cited here Gamma Paper cited by 1 " in text_of(page(site, "years/2024/index.html"))


def test_whats_new_lists_dated_papers_newest_first_and_says_what_it_cannot_know(site: Path) -> None:
    shown = text_of(page(site, "papers/new/index.html"))
    order = [title for title in ("Beta Paper", "Alpha Paper", "Gamma Paper") if title in shown]
    assert order == ["Beta Paper", "Alpha Paper", "Gamma Paper"]
    assert shown.index("2025-05-20") < shown.index("Beta Paper") < shown.index("2025-03-01")
    assert "All 3 papers with a known publication date" in shown
    assert "2 of the 5 papers have no known date and are not listed here" in shown
    assert "Delta Paper" not in shown and "Epsilon Paper" not in shown
    subject = text_of(page(site, "subjects/cs-lg/new/index.html"))
    assert "Beta Paper" in subject and "Alpha Paper" not in subject
    feed = ET.fromstring(page(site, "papers/new/feed.xml"))
    titles = [e.find(f"{ATOM}title").text for e in feed.iter(f"{ATOM}entry")]
    assert titles == ["Beta Paper", "Alpha Paper", "Gamma Paper"]
    assert 'href="new/"' in page(site, "papers/index.html")


def test_pages_pass_the_gate(site: Path) -> None:
    result = qa.check_html(site)
    assert result.ok, result.problems


def test_without_dates_the_page_says_so(tmp_path: Path) -> None:
    root = make_project(tmp_path / "plain", site_yaml=BASE_URL_YAML)
    pipeline.build(root, workers=1)
    shown = text_of(page(root / "site", "papers/new/index.html"))
    assert "No paper here has a known publication date yet" in shown
    assert "30 of the 30 papers have no known date" in shown


# Acceptance: a stand-in OpenAlex answers for the shipped papers; link-sources writes the
# counts; an offline build shows them.


def shipped_works(entries: dict) -> list[dict]:
    """A work per shipped paper, known by arXiv's DataCite DOI only (so a paper with its own
    DOI is asked twice); invented, deterministic counts and venues."""
    works = []
    for number, (_, entry) in enumerate(sorted(entries.items()), start=1):
        works.append(
            {
                "id": f"https://openalex.org/W{900000 + number}",
                "doi": f"https://doi.org/10.48550/arxiv.{entry['arxiv_id']}",
                "display_name": entry["title"],
                "publication_date": entry["published"],
                "cited_by_count": (number * 7) % 23,
                "primary_location": {"source": {"display_name": f"Example Venue {number % 4}"}},
                "open_access": {"oa_url": f"https://arxiv.org/pdf/{entry['arxiv_id']}"},
                "authorships": [],
            }
        )
    return works


def test_shipped_papers_counts_from_a_stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = make_project(tmp_path / "shipped", site_yaml=BASE_URL_YAML + "mailto: lab@example.org\n")
    (project / "sources.yaml").write_text(SHIPPED_SOURCES.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setenv(openalex.DELAY_VARIABLE, "0")
    monkeypatch.setattr(link, "today", lambda: datetime.date(2026, 7, 2))
    shipped = yaml.safe_load(SHIPPED_SOURCES.read_text(encoding="utf-8"))["papers"]
    with running() as standin:
        standin.works = shipped_works(shipped)
        args = [
            "--project",
            str(project),
            "link-sources",
            "--source",
            "openalex",
            "--openalex-url",
            standin.url,
        ]
        assert cli.main(args) == 0
    entries, problems = load_sources(project)
    assert problems == [] and all(e.openalex and e.openalex.status == "found" for e in entries.values())
    assert {r.query["mailto"] for r in standin.requests} == {"lab@example.org"}
    pipeline.build(project, workers=1)  # offline: the stand-in is gone
    site = project / "site"
    papers = json.loads((site / "data/papers.json").read_text(encoding="utf-8"))["papers"]
    comet = next(p for p in papers if p["id"].startswith("2025/comet"))
    cited = entries[comet["id"]].openalex
    shown = text_of((site / comet["page"]).read_text(encoding="utf-8"))
    assert f"Cited by {cited.cited_by} (OpenAlex, 2026-07-02)" in shown and cited.venue in shown
    for author in json.loads((site / "data/authors.json").read_text(encoding="utf-8"))["authors"]:
        counts = [entries[key].openalex.cited_by for key in author["papers"]]
        by_definition = max(h for h in range(len(counts) + 1) if sum(c >= h for c in counts) >= h)
        assert author["impact"]["h_index"] == by_definition and author["impact"]["citations"] == sum(counts)
        profile = text_of((site / author["page"]).read_text(encoding="utf-8"))
        papers = "the one paper" if len(counts) == 1 else f"all {len(counts)} papers"
        assert f"h-index {by_definition} ({papers}; counts from OpenAlex, checked 2026-07-02)" in profile
    result = qa.check_html(site)
    assert result.ok, result.problems


def test_a_new_count_re_renders_only_the_pages_that_show_it(tmp_path: Path, site: Path) -> None:
    root = tmp_path / "copy"
    shutil.copytree(site.parent, root, ignore=shutil.ignore_patterns("site"))
    pipeline.build(root, workers=1)
    sources = root / "sources.yaml"
    sources.write_text(
        sources.read_text(encoding="utf-8").replace("cited_by: 0", "cited_by: 2"), encoding="utf-8"
    )
    produced = set(pipeline.build(root, workers=1).report.produced)
    delta = next(
        str(p.relative_to(root / "site")) for p in (root / "site").glob("papers/2024/delta-paper*/index.html")
    )
    assert produced == {
        delta,
        "authors/ada-lovelace/index.html",
        "subjects/cs-dc/index.html",  # Delta now among the most cited
        "years/2024/index.html",
        "data/papers.json",
        "data/authors.json",
    }

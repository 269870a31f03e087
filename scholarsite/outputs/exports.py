"""Two output families: BibTeX collections (per author and subject) and the collection as data
(`data/*.json`, `llms.txt`). A paper's own citation files are in `downloads`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import partial
from typing import Any

from scholarsite.inputs.digests import code_version, key_of
from scholarsite.model import urls
from scholarsite.model.cards import Card
from scholarsite.model.model import Paper
from scholarsite.outputs.citations import CitationRecord
from scholarsite.outputs.registry import Output, as_bytes, fixed
from scholarsite.outputs.sitedata import SiteData

DATA_SCHEMA_VERSION = 1

SHOWN_ONLY = ("kind_label", "venue_tag", "url_label")  # how pages word an original, not data


def json_lines(envelope: dict[str, Any], name: str, items: list[dict[str, Any]]) -> bytes:
    """Deterministic JSON with one item per line: readable, diffable, and fast to encode."""

    def dump(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)

    head = ", ".join(f"{dump(k)}: {dump(v)}" for k, v in sorted(envelope.items()))
    body = ",\n".join(dump(item) for item in items)
    return as_bytes(f'{{{head}, "{name}": [\n{body}\n]}}')


def citation_files(data: SiteData) -> Iterator[Output]:
    """papers.bib beside every author and subject page (entries separated by a blank line),
    keyed by the citation records it is made from (made only when one of them changed)."""
    cards, records = data.cards, data.records
    groups: list[tuple[str, list[Paper]]] = [(cards.author(a)["path"], a.papers) for a in data.site.authors]
    groups += [(cards.subject(s)["path"], s.papers) for s in data.site.subjects]
    version = code_version()
    for page, papers in groups:
        cited = [records[p.key] for p in papers]
        key = key_of(version, cited, digested=True)
        yield Output(urls.beside(page, "papers.bib"), key, partial(bibliography, data, cited))


def bibliography(data: SiteData, cited: list[CitationRecord]) -> bytes:
    """The BibTeX entries of a list of papers, one blank line apart."""
    return as_bytes("\n".join(data.bibtex_of(record) for record in cited))


def with_original(item: dict[str, Any], card: Card) -> dict[str, Any]:
    """A paper's data with `original` (identifiers, links, dates and the complete author list)
    when sources.yaml knows its original, and the `links` (kind, url, text) a maintainer added."""
    if card["links"]:
        item = {**item, "links": card["links"]}
    original = card["original"]
    if not original:
        return item
    authors = [a["name"] for a in card["all_authors"]] if card["complete"] else []
    data = {key: value for key, value in original.items() if key not in SHOWN_ONLY}
    return {**item, "original": {**data, "authors": authors}}


def with_impacts(items: list[dict[str, Any]], figures: list[Card | None]) -> list[dict[str, Any]]:
    """Items (papers or authors, in the site's order) with `impact`, OpenAlex's figures as
    sources.yaml has them, where there are some."""
    return [{**item, "impact": f} if f else item for item, f in zip(items, figures, strict=True)]


def paper_items(data: SiteData) -> list[dict[str, Any]]:
    """Every paper as `data/papers.json` lists it."""
    cards, records = data.cards, data.records
    return [
        with_original(
            {
                "id": paper.key,
                "citation_key": records[paper.key].key,
                "title": paper.title,
                "title_text": cards.paper(paper)["title_plain"],
                "abstract": paper.abstract,
                "year": paper.year,
                "source": paper.source,
                "subjects": [s.code for s in paper.subjects],
                "authors": [a.slug for a in paper.authors],
                "page": cards.paper(paper)["path"],
                "records": [{"file": p.path, "line": p.line} for p in paper.provenance],
            },
            cards.paper(paper),
        )
        for paper in data.site.papers
    ]


def author_items(data: SiteData) -> list[dict[str, Any]]:
    """Every author as `data/authors.json` lists it."""
    return [
        {
            "id": author.slug,
            "name": author.name,
            "claimed_count": author.claimed_count,
            "claimed_at_least": author.at_least,
            "papers": [p.key for p in author.papers],
            "coauthors": [{"id": a.slug, "shared": n} for a, n in author.coauthors],
            "page": data.cards.author(author)["path"],
            "seed_files": author.seed_paths,
        }
        for author in data.site.authors
    ]


def papers_read(data: SiteData) -> list[Any]:
    """What `data/papers.json` is made from, paper by paper (each card by its digest)."""
    records = data.records
    return [
        (
            data.cards.paper(p),
            p.key,
            p.title,
            p.abstract,
            records[p.key].key,
            [a.slug for a in p.authors],
            p.provenance,
            data.impact.paper(p),
        )
        for p in data.site.papers
    ]


def data_files(data: SiteData) -> Iterator[Output]:
    """data/papers.json, data/authors.json (schema in docs/reference/data-files.md) and llms.txt;
    the JSON files are keyed by what they are made from and encoded only when it changed."""
    envelope = {"schema_version": DATA_SCHEMA_VERSION}
    version = code_version()
    papers_key = key_of(version, papers_read(data), digested=True)
    authors = with_impacts(author_items(data), [data.impact.author(a) for a in data.site.authors])

    def papers() -> list[dict[str, Any]]:
        return with_impacts(paper_items(data), [data.impact.paper(p) for p in data.site.papers])

    yield Output(urls.PAPERS_JSON, papers_key, lambda: json_lines(envelope, "papers", papers()))
    yield Output(
        urls.AUTHORS_JSON, key_of(version, authors), lambda: json_lines(envelope, "authors", authors)
    )
    yield fixed(urls.LLMS_TXT, llms_txt(data))


def llms_txt(data: SiteData) -> bytes:
    """A Markdown summary of the collection for language-model crawlers (llmstxt.org)."""
    site, config = data.site, data.config

    def link(path: str) -> str:
        return urls.absolute(config.base_url, path) if config.base_url else path

    lines = [
        f"# {config.title}",
        "",
        f"> {config.description}",
        "",
        f"{len(site.authors)} authors, {len(site.papers)} papers, {len(site.subjects)} arXiv subjects, "
        f"{len(site.years)} years. Author lists name only the authors in this collection.",
        "",
        "## Data",
        "",
        f"- [All papers as JSON]({link(urls.PAPERS_JSON)}): title, abstract, year, subjects, authors",
        f"- [All authors as JSON]({link(urls.AUTHORS_JSON)}): name, papers, co-authors",
        "",
        "## Indexes",
        "",
        f"- [Authors]({link(urls.AUTHORS)})",
        f"- [Papers]({link(urls.PAPERS)})",
        f"- [Subjects]({link(urls.SUBJECTS)})",
        f"- [Years]({link(urls.YEARS)})",
    ]
    return as_bytes("\n".join(lines))

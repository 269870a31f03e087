"""Citation and data exports: per-paper BibTeX/RIS/CSL-JSON, per-author and per-subject
BibTeX, the collection as JSON, and `llms.txt`."""

from __future__ import annotations

import json
from typing import Any

from scholarsite.inputs.config import Config
from scholarsite.model.cards import Cards
from scholarsite.model.model import Paper, Site
from scholarsite.outputs import citations, urls

DATA_SCHEMA_VERSION = 1


def citation_records(site: Site, cards: Cards, config: Config) -> dict[int, citations.CitationRecord]:
    """A CitationRecord per paper (by object id), with unique, stable keys."""
    items = [(p.authors[0].name, p.year, cards.paper(p)["title_plain"]) for p in site.papers]
    keys = citations.make_citation_keys(items)
    records = {}
    for key, paper in zip(keys, site.papers, strict=True):
        card = cards.paper(paper)
        records[id(paper)] = citations.CitationRecord(
            key=key,
            title_tex=paper.title,
            title_plain=card["title_plain"],
            authors=tuple(a.name for a in paper.authors),
            year=paper.year,
            source=paper.source,
            subjects=tuple(s.code for s in paper.subjects),
            abstract_plain=card["abstract_plain"],
            url=urls.absolute(config.base_url, card["path"]) if config.base_url else None,
        )
    return records


def as_bytes(text: str) -> bytes:
    """UTF-8 with a final newline."""
    return (text if text.endswith("\n") else text + "\n").encode("utf-8")


def dump_json(data: Any) -> bytes:
    """Deterministic, readable JSON."""
    return as_bytes(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True))


def paper_files(
    site: Site, cards: Cards, records: dict[int, citations.CitationRecord], bibtex: dict[int, str]
) -> dict[str, bytes]:
    """cite.bib, cite.ris and cite.json beside every paper page."""
    files: dict[str, bytes] = {}
    for paper in site.papers:
        page = cards.paper(paper)["path"]
        record = records[id(paper)]
        files[urls.beside(page, "cite.bib")] = as_bytes(bibtex[id(paper)])
        files[urls.beside(page, "cite.ris")] = as_bytes(citations.to_ris(record))
        files[urls.beside(page, "cite.json")] = citations.csl_json_file([record]).encode("utf-8")
    return files


def collection_bibs(site: Site, cards: Cards, bibtex: dict[int, str]) -> dict[str, bytes]:
    """papers.bib beside every author and subject page (entries separated by a blank line)."""
    groups: list[tuple[str, list[Paper]]] = [(cards.author(a)["path"], a.papers) for a in site.authors]
    groups += [(cards.subject(s)["path"], s.papers) for s in site.subjects]
    return {
        urls.beside(page, "papers.bib"): as_bytes("\n".join(bibtex[id(p)] for p in papers))
        for page, papers in groups
    }


def data_files(site: Site, cards: Cards, records: dict[int, citations.CitationRecord]) -> dict[str, bytes]:
    """data/papers.json and data/authors.json (schema in data/README.md and the README)."""
    papers = [
        {
            "id": paper.key,
            "citation_key": records[id(paper)].key,
            "title": paper.title,
            "title_text": cards.paper(paper)["title_plain"],
            "abstract": paper.abstract,
            "year": paper.year,
            "source": paper.source,
            "subjects": [s.code for s in paper.subjects],
            "authors": [a.slug for a in paper.authors],
            "page": cards.paper(paper)["path"],
            "records": [{"file": p.path, "line": p.line} for p in paper.provenance],
        }
        for paper in site.papers
    ]
    authors = [
        {
            "id": author.slug,
            "name": author.name,
            "claimed_count": author.claimed_count,
            "claimed_at_least": author.at_least,
            "papers": [p.key for p in author.papers],
            "coauthors": [{"id": a.slug, "shared": n} for a, n in author.coauthors],
            "page": cards.author(author)["path"],
            "seed_files": author.seed_paths,
        }
        for author in site.authors
    ]
    envelope = {"schema_version": DATA_SCHEMA_VERSION}
    return {
        urls.PAPERS_JSON: dump_json({**envelope, "papers": papers}),
        urls.AUTHORS_JSON: dump_json({**envelope, "authors": authors}),
    }


def llms_txt(site: Site, config: Config) -> bytes:
    """A Markdown summary of the collection for language-model crawlers (llmstxt.org)."""

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

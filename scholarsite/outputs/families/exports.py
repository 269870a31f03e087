"""Two output families: BibTeX collections (per author and subject) and the collection as data
(`data/*.json`, `llms.txt`). A paper's own citation downloads are made in the browser
(`downloads`). A data list of more than `PART_SIZE` items is split into parts of about that
many (no data file passes about 7 MB at 100,000 papers), whose ends depend on the items' own
keys (`part_spans`), listed by an index at the list's usual path."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from scholarsite.inputs.digests import code_version, key_of
from scholarsite.inputs.jsondata import sorted_text
from scholarsite.model import urls
from scholarsite.model.cards import Card, Cards
from scholarsite.model.identity import short_hash
from scholarsite.model.model import MAX_TEAM, Author, Paper
from scholarsite.outputs import shards
from scholarsite.outputs.citations import CitationRecord
from scholarsite.outputs.parts import values_kept
from scholarsite.outputs.registry import Output, as_bytes, fixed
from scholarsite.outputs.sitedata import SiteData

DATA_SCHEMA_VERSION = 1  # one file holds the whole list
PARTS_SCHEMA_VERSION = 2  # the list split into parts, listed by an index
PART_SIZE = {"papers": 2000, "authors": 1000}  # items in one data file on average: about 3.5 MB

FIRST_AUTHORS = 10  # names a file of many entries gives of a paper of over MAX_TEAM authors
SHOWN_ONLY = ("kind_label", "venue_tag", "url_label")  # how pages word an original, not data


def json_lines(envelope: dict[str, Any], name: str, items: list[dict[str, Any]]) -> bytes:
    """Deterministic JSON with one item per line: readable, diffable, and fast to encode; no
    space after a separator (3 % of the data, issue 27)."""
    return lines_file(envelope, name, list(map(sorted_text, items)))


def lines_file(envelope: dict[str, Any], name: str, lines: list[str]) -> bytes:
    """`json_lines` of items encoded already, a line each."""
    head = ",".join(f"{sorted_text(k)}:{sorted_text(v)}" for k, v in sorted(envelope.items()))
    body = ",\n".join(lines)
    return f'{{{head},"{name}":[\n{body}\n]}}\n'.encode()  # its final newline in the text: not a copy more


AUTHORS_A_BIBTEX_PART = 200  # authors a part of the authors' BibTeX holds at most, on average
AUTHOR_MARK = "@comment{scholarsite author "  # begins each author's entries in a part


def bibtex_parts(authors: int) -> int:
    """How many parts the authors' BibTeX is in: the smallest power of two giving parts of at
    most AUTHORS_A_BIBTEX_PART authors on average (as search shards: an author's part is a
    hash of their slug, so it changes only when the count doubles)."""
    return shards.shard_count(authors, AUTHORS_A_BIBTEX_PART)


BULK_BIBTEX = "bibtex in bulk"  # the memo's name for a BibTeX entry as files of many hold it


def author_bibtex_part(slug: str, authors: int) -> str:
    """The file holding the BibTeX of the author `slug`, among `authors`."""
    return urls.bibtex_part(shards.shard_of(slug, bibtex_parts(authors)))


def citation_files(data: SiteData) -> Iterator[Output]:
    """papers.bib beside every subject page; the authors' BibTeX in parts (`data/bibtex/`), an
    author's entries after a line `@comment{scholarsite author SLUG}` (a file an author was 0.4
    files a paper, issue 27; the author page's link saves the author's own entries, cut from
    the part in the browser, `author_entries`). Each file is keyed by the citation records it
    is made from (made only when one of them changed; the last build's key when it lists the
    same papers, none of whose records changed since: `outputs.parts`)."""
    cards, records = data.cards, data.records
    settings = (code_version(), data.config.base_url)  # what a record reads beyond its paper
    data.memo.keep(BULK_BIBTEX, lambda: records.every_digest().values())  # each file's next rewrite
    for subject in data.site.subjects:
        cited = [p.key for p in subject.papers]
        path = urls.beside(cards.subject(subject)["path"], "papers.bib")
        same = partial(records_kept, data, cited)
        key = data.part_keys.key(path, key_of(settings, cited), same, partial(cited_key, data, [("", cited)]))
        yield Output(path, key, partial(bibliography_of, data, cited))
    parts: dict[str, list[tuple[str, list[str]]]] = {}
    for author in data.site.authors:
        part = author_bibtex_part(author.slug, len(data.site.authors))
        parts.setdefault(part, []).append((author.slug, [p.key for p in author.papers]))
    for path, authors in sorted(parts.items()):
        same = partial(records_kept, data, [key for _, cited in authors for key in cited])
        key = data.part_keys.key(path, key_of(settings, authors), same, partial(cited_key, data, authors))
        yield Output(path, key, partial(authors_bibliography, data, authors))


def records_kept(data: SiteData, papers: list[str]) -> bool:
    """Whether the citation records of the papers of these keys are the last build's."""
    return values_kept(data.records, papers)


def authors_kept(data: SiteData, authors: list[Author]) -> bool:
    """Whether these authors have the fields, papers and co-authors the kept model had (their
    lines of `data/authors.json` are then the last build's: `Kept.lists_as_read`)."""
    listed = data.unchanged.listed if data.unchanged is not None else frozenset()
    return all(author in listed for author in authors)


def cited_key(data: SiteData, groups: list[tuple[str, list[str]]]) -> str:
    """The key of a BibTeX file of these groups of papers (by key: an author's, by slug, or a
    subject's): what their citation records are made from."""
    records = data.records
    read = [(name, records.digests_of(cited)) for name, cited in groups]
    return key_of(code_version(), read)


def authors_bibliography(data: SiteData, authors: list[tuple[str, list[str]]]) -> bytes:
    """A part of the authors' BibTeX: each author's mark line, then their entries (as their
    papers.bib held them), then a blank line."""
    data.memo.prefetch(BULK_BIBTEX, (data.records.digest_of(key) for _, cited in authors for key in cited))
    return as_bytes(
        "".join(
            f"{AUTHOR_MARK}{slug}}}\n{bibliography_of(data, cited).decode()}\n" for slug, cited in authors
        )
    )


def bibliography_of(data: SiteData, papers: list[str]) -> bytes:
    """`bibliography` of the papers of these keys, each entry from the memo when its citation
    record is one the last build had (`bulk_entry`)."""
    data.memo.prefetch(BULK_BIBTEX, map(data.records.digest_of, papers))
    return as_bytes("\n".join(bulk_entry(data, key) for key in papers))


def bulk_entry(data: SiteData, paper: str) -> str:
    """The BibTeX entry of a paper as a file of many cites it, kept in the memo by its citation
    record's digest (an edit rewrites the files of a paper's authors and subjects: their other
    entries are not made again, nor their records)."""
    records = data.records
    return data.memo.text(
        BULK_BIBTEX, lambda _: data.bibtex_of(in_bulk(records.value(paper))), records.digest_of(paper)
    )


def author_entries(part: str, slug: str) -> str | None:
    """The BibTeX of the author `slug` cut from the text of their part, as `assets/site.js`
    cuts it (None if the part does not hold it)."""
    mark = f"{AUTHOR_MARK}{slug}}}\n"
    start = part.find(mark)
    if start < 0:
        return None
    start += len(mark)
    end = part.find("\n" + AUTHOR_MARK, start)
    return part[start : len(part) - 1 if end < 0 else end]


def bibliography(data: SiteData, cited: list[CitationRecord]) -> bytes:
    """The BibTeX entries of a list of papers, one blank line apart."""
    return as_bytes("\n".join(data.bibtex_of(in_bulk(record)) for record in cited))


def in_bulk(record: CitationRecord) -> CitationRecord:
    """A record as a file of many entries cites it: a list of more than `MAX_TEAM` authors as
    its first `FIRST_AUTHORS` and "others", as INSPIRE cites a collaboration's papers (each of
    2,000 members' files would hold all 2,000 names); the paper's own page keeps every name."""
    if len(record.authors) <= MAX_TEAM:
        return record
    return replace(record, authors=record.authors[:FIRST_AUTHORS], complete=False)


def with_original(item: dict[str, Any], cards: Cards, paper: Paper) -> dict[str, Any]:
    """A paper's data with `original` (identifiers, links, dates and the complete author list)
    when sources.yaml knows its original, and the `links` (kind, url, text) a maintainer added
    (`Cards.original`: its card is not made)."""
    original, links, names, complete = cards.original(paper)
    if links:
        item = {**item, "links": links}
    if not original:
        return item
    data = {key: value for key, value in original.items() if key not in SHOWN_ONLY}
    return {**item, "original": {**data, "authors": list(names) if complete else []}}


def with_impacts(items: list[dict[str, Any]], figures: list[Card | None]) -> list[dict[str, Any]]:
    """Items (papers or authors, in the site's order) with `impact`, OpenAlex's figures as
    sources.yaml has them, where there are some."""
    return [{**item, "impact": f} if f else item for item, f in zip(items, figures, strict=True)]


def paper_items(data: SiteData, papers: list[Paper]) -> list[dict[str, Any]]:
    """Papers as `data/papers.json` lists them."""
    cards, keys = data.cards, data.citation_keys
    items = [
        with_original(
            {
                "id": paper.key,
                "citation_key": keys[paper.key],
                "title": paper.title,
                "title_text": cards.title_plain(paper),
                "abstract": paper.abstract,
                "year": paper.year,
                "source": paper.source,
                "subjects": [s.code for s in paper.subjects],
                "authors": [a.slug for a in paper.authors],
                "page": urls.paper(paper.year, paper.slug),
                "records": [{"file": p.path, "line": p.line} for p in paper.provenance],
            },
            cards,
            paper,
        )
        for paper in papers
    ]
    return with_impacts(items, [data.impact.paper(p) for p in papers])


def author_items(data: SiteData, authors: list[Author]) -> list[dict[str, Any]]:
    """These authors as `data/authors.json` lists them."""
    items = [
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
        for author in authors
    ]
    return with_impacts(items, [data.impact.author(a) for a in authors])


PAPER_LINE = "papers.json line"  # the memo's name for a paper's line of data/papers.json


def paper_lines(data: SiteData, papers: list[Paper]) -> list[str]:
    """The lines of these papers in `data/papers.json`, each kept in the memo by what it is
    made from (`SiteData.paper_data`): an edit encodes its own paper's line, not its part's
    two thousand."""

    def line(paper: Paper) -> Callable[[str], str]:
        return lambda _: sorted_text(paper_items(data, [paper])[0])

    made_from = data.paper_data.digests_of([paper.key for paper in papers])
    data.memo.prefetch(PAPER_LINE, made_from)
    return [
        data.memo.text(PAPER_LINE, line(paper), read) for paper, read in zip(papers, made_from, strict=True)
    ]


@dataclass(frozen=True)
class ListItems:
    """The items of a data list, by the slice of them wanted: their keys, what each is made
    from (`reads`), their lines of JSON (`lines`) and whether none changed since the last
    build (`kept`: their lines are then those it wrote)."""

    keys: list[str]
    reads: Callable[[slice], list[Any]]
    lines: Callable[[slice], list[str]]
    kept: Callable[[slice], bool]


def part_spans(keys: list[str], size: int) -> list[slice]:
    """Consecutive parts of a list whose items have these keys: a part ends after an item whose
    key hashes to a multiple of `size` (so parts hold `size` items on average), or at twice
    `size` items. An item added or removed changes its own part, not every part after it (as
    parts of `size` items each did: one paper added at 37,537 made every part again)."""
    spans, start = [], 0
    for end, key in enumerate(keys, 1):
        if end - start >= 2 * size or int(short_hash(key), 16) % size == 0:
            spans.append(slice(start, end))
            start = end
    return spans + [slice(start, len(keys))] if start < len(keys) else spans


def data_list(data: SiteData, path: str, name: str, items: ListItems) -> Iterator[Output]:
    """The list `name` at `path` of `items`: one file of every item; or, past its PART_SIZE
    items, parts (`part_spans`, `urls.data_part`) and at `path` an index of them. Each file is
    keyed by the reads of its items (what each is made from), or takes the last build's key
    when it lists the same items, all kept (`outputs.parts`)."""
    version, size, keys = code_version(), PART_SIZE[name], items.keys

    def keyed(file: str, wanted: slice, *head: object) -> str:
        worked_out = lambda: key_of(version, *head, items.reads(wanted), digested=True)  # noqa: E731
        members = key_of(version, *head, keys[wanted])
        return data.part_keys.key(file, members, partial(items.kept, wanted), worked_out)

    if len(keys) <= size:
        envelope = {"schema_version": DATA_SCHEMA_VERSION}
        yield Output(
            path, keyed(path, slice(None)), partial(list_file, envelope, name, items.lines, slice(None))
        )
        return
    parts = []
    for number, wanted in enumerate(part_spans(keys, size), 1):
        part = urls.data_part(path, number)
        envelope = {"schema_version": PARTS_SCHEMA_VERSION, "part": number}
        parts.append({"path": urls.relative(path, part), "count": len(keys[wanted])})
        yield Output(
            part, keyed(part, wanted, number), partial(list_file, envelope, name, items.lines, wanted)
        )
    index = {"schema_version": PARTS_SCHEMA_VERSION, "count": len(keys)}
    yield fixed(path, json_lines(index, "parts", parts))


def list_file(
    envelope: dict[str, Any], name: str, make: Callable[[slice], list[str]], wanted: slice
) -> bytes:
    """A data file of the items of a list `wanted` (all, or one part's)."""
    return lines_file(envelope, name, make(wanted))


def data_files(data: SiteData) -> Iterator[Output]:
    """data/papers.json, data/authors.json (schema in docs/reference/data-files.md; split into
    parts past PART_SIZE items) and llms.txt; the JSON files are keyed by what they are made
    from and encoded only when it changed."""
    papers, authors = data.site.papers, data.site.authors
    keys = [p.key for p in papers]
    paper_list = ListItems(
        keys,
        lambda wanted: data.paper_data.digests_of(keys[wanted]),
        lambda wanted: paper_lines(data, papers[wanted]),
        lambda wanted: values_kept(data.paper_data, keys[wanted]),
    )
    yield from data_list(data, urls.PAPERS_JSON, "papers", paper_list)
    author_list = ListItems(
        [a.key for a in authors],
        lambda wanted: author_items(data, authors[wanted]),
        lambda wanted: list(map(sorted_text, author_items(data, authors[wanted]))),
        lambda wanted: authors_kept(data, authors[wanted]),
    )
    yield from data_list(data, urls.AUTHORS_JSON, "authors", author_list)
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

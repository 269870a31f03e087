"""Full-text search: Pagefind bundles indexed in-process through Pagefind's Python API.

Records are built from the model's plain data (title, authors, subjects, abstract), not read
back from rendered pages, so indexing needs no copy of the site and no page on disk. The
records are split into shards (see `shards`), each its own bundle keyed by a digest of its
records: a bundle whose records did not change is kept in site/ as it is (Pagefind does not
write its filter files deterministically, upstream issue #638, so re-indexing the same
records may give other bytes), and a change re-indexes only the shards it touches.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

from scholarsite.errors import BuildError, error
from scholarsite.inputs.digests import code_version, key_of
from scholarsite.model import urls
from scholarsite.model.cards import Card
from scholarsite.model.model import Paper
from scholarsite.outputs import shards
from scholarsite.outputs.parts import values_kept
from scholarsite.outputs.registry import Bundle
from scholarsite.outputs.shards import url_of
from scholarsite.outputs.sitedata import SiteData

FOLDER = shards.ROOT  # every search bundle is in this folder


INDEX_DATA = ("index/", "fragment/", "filter/")  # folders of a bundle's index data


def paper_record(card: Card, portable: bool) -> dict[str, Any]:
    """A paper's search record, made from its card alone. Its `people` (its authors' names and
    page URLs, as JSON) is how the search page links the authors a query names: authors have no
    records of their own (a record is a file of the index: one an author was 0.4 files a paper
    at 37,537 papers, issue 27), but each is a value of the `author` facet."""
    names = [a["name"] for a in card["authors"]]
    people = [[a["name"], url_of(a["path"], portable)] for a in card["authors"]]
    codes = [s["code"] for s in card["subjects"]]
    subjects = " ".join(f"{s['code']} {s['name']}" for s in card["subjects"])
    year = str(card["year"])
    return {
        "url": url_of(card["path"], portable),
        "content": f"{card['title_plain']}. {', '.join(names)}. {subjects}. {card['abstract_plain']}",
        "meta": {
            "title": card["title_plain"],
            "kind": "Paper",
            "year": year,
            "authors": ", ".join(names),
            "people": json.dumps(people, ensure_ascii=False, separators=(",", ":")),
        },
        "filters": {"kind": ["Paper"], "year": [year], "author": names, "subject": codes},
    }


class Entry(NamedTuple):
    """A search record as `entries` finds it: its URL, the paper it is of (None: a subject's),
    and the record itself when it is not made from a card (a subject's)."""

    url: str
    paper: Paper | None
    fixed: dict[str, Any] | None


Record = dict[str, Any]  # a search record (`paper_record`)
Member = str | Record  # of a shard: a paper's key, or a record made without a card


def member_of(entry: Entry) -> Member:
    """What a shard holds of `entry` until its record is made (not a maker per record: 9 MB at
    37,537 papers, held by every shard's bundle to the end of a build that made one)."""
    return entry.paper.key if entry.paper is not None else entry.fixed or {}


def records_of(card_of: Callable[[str], Card], members: list[Member], portable: bool) -> list[Record]:
    """The search records of `members`: a paper's made from its card now (`paper_record`)."""
    return [paper_record(card_of(m), portable) if isinstance(m, str) else dict(m) for m in members]


def entries(data: SiteData) -> list[Entry]:
    """Every paper's and subject's search record (`Entry`): a paper's is made from its card,
    so its card and record are made only when its shard is indexed again. Only papers carry
    the year, author and subject filters, so a facet counts papers; a subject's page is found
    by its kind and its text, an author's through the `author` facet (see `paper_record`)."""
    cards, portable = data.cards, data.config.portable
    found = [
        Entry(url_of(urls.paper(paper.year, paper.slug), portable), paper, None)  # its card's path
        for paper in data.site.papers
    ]
    for subject in data.site.subjects:
        record = {
            "url": url_of(cards.subject(subject)["path"], portable),
            "content": f"{subject.name} ({subject.code}), {subject.archive_name}.",
            "meta": {"title": subject.name, "kind": "Subject"},
            "filters": {"kind": ["Subject"]},
        }
        found.append(Entry(record["url"], None, record))
    return found


def records(data: SiteData) -> list[dict[str, Any]]:
    """A search record for every paper and subject."""
    members = [member_of(entry) for entry in entries(data)]
    return records_of(data.cards.papers.value, members, data.config.portable)


def is_index_data(name: str) -> bool:
    """Whether a file of a bundle is index data (what `mergeIndex` reads), not Pagefind's
    scripts, styles and WebAssembly, which the search page loads from the first shard only."""
    return name == "pagefind-entry.json" or name.endswith(".pf_meta") or name.startswith(INDEX_DATA)


def runtime(files: dict[str, bytes]) -> set[str]:
    """What the search page runs from the first shard: `pagefind.js`, its worker and the
    WebAssembly of the bundle's languages (`wasm.unknown.pagefind` for one without stemming).
    Pagefind's own UIs (default, modular, component) and highlighter are never loaded."""
    entry = json.loads(files["pagefind-entry.json"])
    wasm = {f"wasm.{language.get('wasm') or 'unknown'}.pagefind" for language in entry["languages"].values()}
    return {"pagefind.js", "pagefind-worker.js", *wasm}


def bundle_files(found: list[dict[str, Any]], language: str, scripts: bool = True) -> dict[str, bytes]:
    """Run the indexing to completion, keeping the scripts the search page runs (`runtime`)
    only with `scripts`; BuildError if Pagefind fails."""
    try:
        from scholarsite.outputs import pagefind_service  # loaded where an index is made only

        files = pagefind_service.indexed(found, language)
    except Exception as exc:  # noqa: BLE001 - the service reports any failure as an exception
        raise BuildError([error("pagefind", 0, f"search indexing failed: {exc}")]) from None
    kept = runtime(files) if scripts else set()
    return {name: data for name, data in files.items() if is_index_data(name) or name in kept}


def outputs(data: SiteData) -> Iterator[Bundle]:
    """A bundle per shard of the records, keyed by the code and Pagefind's versions, the
    language, the shard's folder and what its records are made from (cards by their digests:
    the last build's key when the shard holds the same records, none of whose cards changed,
    `outputs.parts`); the records of a shard are made only when it is indexed; a shard
    without records is not made. Only the first shard has Pagefind's scripts."""
    found = entries(data)
    language = data.config.language.split("-")[0]
    found_urls = [entry.url for entry in found]
    split = shards.split(found, found_urls, shards.shard_count(len(found), data.config.search_shard_size))
    versions = (code_version(), pagefind_release())
    for number, index in enumerate(
        shards.occupied(found_urls, len(found_urls), data.config.search_shard_size)
    ):
        folder, shard = shards.folder(index), split[index]
        settings = (*versions, language, data.config.portable, folder)
        members = key_of(settings, [(entry.url, entry.fixed) for entry in shard])
        kept = partial(values_kept, data.cards.papers, papers_of(shard))
        key = data.part_keys.key(folder, members, kept, partial(shard_key, data, settings, shard))
        held = [member_of(entry) for entry in shard]  # until its records are made
        records = partial(records_of, data.cards.papers.value, held, data.config.portable)
        yield Bundle(folder, key, partial(index_shard, records, language, number == 0))


def pagefind_release() -> str:
    """What names the installed Pagefind in a shard's key: the name of its distribution's
    metadata folder beside it (`pagefind-1.5.2.dist-info`), or its version as
    `importlib.metadata` finds it (which costs 25 ms a build to load and ask)."""
    spec = importlib.util.find_spec("pagefind")
    if spec is not None and spec.origin is not None:
        found = sorted(path.name for path in Path(spec.origin).parent.parent.glob("pagefind-*.dist-info"))
        if len(found) == 1:
            return found[0]
    from importlib.metadata import version

    return version("pagefind")


def papers_of(shard: list[Entry]) -> list[str]:
    """The keys of the papers whose records a shard holds."""
    return [entry.paper.key for entry in shard if entry.paper is not None]


def shard_key(data: SiteData, settings: tuple[Any, ...], shard: list[Entry]) -> str:
    """The key of a shard's bundle: what its records are made from (a paper's: its card's
    digest; a subject's: the record)."""
    digests = iter(data.cards.papers.digests_of(papers_of(shard)))
    return key_of(*settings, [entry.fixed if entry.paper is None else next(digests) for entry in shard])


def index_shard(records: Callable[[], list[Record]], language: str, scripts: bool) -> dict[str, bytes]:
    """A shard's bundle: its records made, then indexed."""
    return bundle_files(records(), language, scripts=scripts)

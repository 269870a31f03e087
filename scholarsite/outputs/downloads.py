"""A paper's citation files (BibTeX, RIS, CSL-JSON), written beside its page and linked from it.

Files rather than `data:` URLs in the page (base64, a fifth of a paper page's bytes, with the
abstract in two of them): the page carries its abstract once, its description the first 160
characters (`benchmarks/RESULTS.md`, issue 20). The files of a paper are keyed by its citation
record, so a change rewrites only the files of the papers whose records it changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

from scholarsite.inputs.digests import code_version, digest, key_of
from scholarsite.model import urls
from scholarsite.outputs import citations
from scholarsite.outputs.citations import CitationRecord
from scholarsite.outputs.registry import Output, as_bytes
from scholarsite.outputs.sitedata import SiteData


@dataclass(frozen=True)
class CitationFormat:
    """One downloadable format: its label, the file beside the page and its extension."""

    label: str
    filename: str
    extension: str  # of the name the browser saves it under (the citation key's)
    text: Callable[[SiteData, CitationRecord], str]


FORMATS = (
    CitationFormat("BibTeX", "cite.bib", "bib", lambda data, record: data.bibtex_of(record)),
    CitationFormat("RIS", "cite.ris", "ris", lambda _, record: citations.to_ris(record)),
    CitationFormat("CSL-JSON", "cite.json", "json", lambda _, record: citations.csl_json_file([record])),
)


def links(page: str, record: CitationRecord) -> list[dict[str, str]]:
    """The paper page's download links: label, the file's site path and the saved name."""
    return [
        {"label": f.label, "path": urls.beside(page, f.filename), "filename": f"{record.key}.{f.extension}"}
        for f in FORMATS
    ]


def outputs(data: SiteData) -> Iterator[Output]:
    """Every paper's citation files, each keyed by its file name and the paper's citation record
    (the record's key made once for the three)."""
    version, records = code_version(), data.records
    for paper in data.site.papers:
        page, record = data.cards.paper(paper)["path"], records[paper.key]
        cited = key_of(version, record, digested=True)
        for f in FORMATS:
            key = digest(f"{cited}\0{f.filename}".encode())
            yield Output(urls.beside(page, f.filename), key, partial(produce, data, f, record))


def produce(data: SiteData, citation_format: CitationFormat, record: CitationRecord) -> bytes:
    """One citation file's bytes (UTF-8, ending in a newline)."""
    return as_bytes(citation_format.text(data, record))

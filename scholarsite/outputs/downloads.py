"""A paper's citation downloads (BibTeX, RIS, CSL-JSON), made in the reader's browser.

No file per format beside the page (three files a paper were most of the site's files, issue
27): the page carries what the files held and `assets/cite.js` makes each download from it,
byte for byte the text `citations` writes. The BibTeX is the page's `<pre id="bibtex">` (also
the way to it without JavaScript); RIS and CSL-JSON come from the page's citation data, which
holds each as its text split where the abstract goes and the abstract once, so the page
carries the abstract's plain text once beside the abstract shown.
"""

from __future__ import annotations

from typing import Any

from scholarsite.outputs import citations
from scholarsite.outputs.citations import CitationRecord

CSL_ABSTRACT = '"abstract": '  # what precedes the abstract's JSON string in a CSL-JSON file
FORMATS = (("BibTeX", "bib"), ("RIS", "ris"), ("CSL-JSON", "json"))  # label, saved name's extension


def ris_parts(record: CitationRecord) -> list[str]:
    """The record's RIS text in the pieces that go before and after its AB line (one piece
    when it has no abstract)."""
    lines = citations.ris_lines(record)
    tags = [tag for tag, _ in lines]
    if "AB" not in tags:
        return [citations.to_ris(record)]
    at = tags.index("AB")
    return [citations.ris_text(lines[:at]), citations.ris_text(lines[at + 1 :]) + citations.RIS_END]


def csl_parts(record: CitationRecord) -> list[str]:
    """The record's CSL-JSON file in the pieces that go before and after its abstract's JSON
    string (one piece when it has no abstract)."""
    item = citations.to_csl_json(record)
    if "abstract" not in item:
        return [citations.csl_json_file([record])]
    item["abstract"] = ""  # a quote outside a string is structure: this pair is found once
    head, tail = citations.csl_json_text([item]).split(CSL_ABSTRACT + '""')
    return [head + CSL_ABSTRACT, tail]


def page_data(record: CitationRecord) -> dict[str, Any]:
    """What the page's script needs to make the RIS and CSL-JSON downloads: each piece list
    joined by the abstract (RIS: its AB line; CSL-JSON: its JSON string)."""
    return {
        "key": record.key,
        "abstract": citations.abstract_line(record),
        "ris": ris_parts(record),
        "csl": csl_parts(record),
    }


def links() -> list[dict[str, str]]:
    """The paper page's download buttons: label and extension (`assets/cite.js` knows each
    format's media type and names the file by the citation key)."""
    return [{"label": label, "extension": extension} for label, extension in FORMATS]

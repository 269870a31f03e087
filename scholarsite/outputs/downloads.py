"""A paper's citation downloads (BibTeX, RIS, CSL-JSON), made in the reader's browser.

No file per format beside the page (three files a paper were most of the site's files, issue
27): the page carries what the files held and `assets/cite.js` makes each download from it,
byte for byte the text `citations` writes. The BibTeX is the page's `<pre id="bibtex">` (also
the way to it without JavaScript). The page's citation data holds the CSL-JSON item (without
its abstract) as data, not text; the script writes it as Python's `json.dumps` does, and makes
the RIS record from it. The abstract's plain text is the text of the abstract the page shows,
read from the page, so the data carries it only when that text differs (math, which reads as
MathML there and as Unicode in the files), and carries the RIS record only when it cannot be
made from the item (`ris_from_csl` is the script's rule: the build checks it for every page).
This module is also the script's rule in Python, for the tests (`texts`).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

from scholarsite.outputs import citations
from scholarsite.outputs.citations import KINDS, CitationRecord
from scholarsite.outputs.seo import json_script

CSL_ABSTRACT = '"abstract": '  # what precedes the abstract's JSON string in a CSL-JSON file
RIS_TYPES = {kind.csl: kind.ris for kind in KINDS.values()}  # one RIS type for each CSL type
SPACES = re.compile(r"[\t\n\f\r ]+")  # what the script collapses (ASCII whitespace, as HTML's)


VOID = frozenset(  # elements without an end tag
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)


class _Nodes(HTMLParser):
    """The text of each top-level node (element or text) of an HTML fragment, as the DOM's
    `textContent` gives it (comments are no text)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.nodes: list[str] = []
        self.depth = 0
        self.in_text = False  # the last top-level node is a text node still open

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self.depth:
            self.nodes.append("")
            self.in_text = False
        if tag not in VOID:
            self.depth += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self.depth:
            self.nodes.append("")
            self.in_text = False

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID and self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if not self.depth and not self.in_text:
            self.nodes.append("")
            self.in_text = True
        self.nodes[-1] += data

    def handle_comment(self, data: str) -> None:
        if not self.depth:
            self.in_text = False


def collapse(text: str) -> str:
    """Runs of ASCII whitespace as one space, none at either end (as the script does)."""
    return SPACES.sub(" ", text).strip(" ")


def page_text(abstract_html: str) -> str:
    """The abstract's text as the script reads it from the page: the text of each node of the
    abstract's element, one space apart, whitespace collapsed."""
    parser = _Nodes()
    parser.feed(str(abstract_html))
    parser.close()
    return collapse(" ".join(parser.nodes))


def ris_from_csl(item: dict[str, Any], abstract: str) -> str:
    """The RIS record the script makes from a CSL-JSON item (without its abstract) and the
    abstract's text."""
    thesis = item["type"] == "thesis"
    parts = item["issued"]["date-parts"][0]
    lines = [("TY", RIS_TYPES.get(item["type"], "GEN")), ("ID", item["id"]), ("TI", item["title"])]
    for a in item["author"]:
        family = " ".join(filter(None, (a.get("non-dropping-particle", ""), a.get("family", ""))))
        lines.append(("AU", ", ".join(filter(None, (family, a.get("given", ""), a.get("suffix", ""))))))
    lines.append(("PY", str(parts[0])))
    if item.get("publisher") and not thesis:
        lines.append(("DB", item["publisher"]))
    venue = item.get("publisher") if thesis else item.get("container-title")
    if venue:
        lines.append(("PB" if thesis else "T2", venue))
    if len(parts) > 1:
        lines.append(("DA", "/".join(str(p).rjust(2, "0") for p in parts) + "/" * (4 - len(parts))))
    if item.get("keyword"):
        lines += [("KW", keyword) for keyword in item["keyword"].split(", ")]
    if abstract:
        lines.append(("AB", abstract))
    for tag, field in (("DO", "DOI"), ("UR", "URL"), ("N1", "note")):
        if item.get(field):
            lines.append((tag, item[field]))
    return "".join(f"{tag}  - {value}\n" for tag, value in lines) + citations.RIS_END


def csl_from_item(item: dict[str, Any], abstract: str) -> str:
    """The CSL-JSON file the script writes: the item with its abstract before its URL (or
    last), as `json.dumps` writes it."""
    whole = {}
    for name, value in item.items():
        if name == "URL" and abstract:
            whole["abstract"] = abstract
        whole[name] = value
    if abstract and "abstract" not in whole:
        whole["abstract"] = abstract
    return citations.csl_json_text([whole])


def ris_parts(record: CitationRecord) -> list[str]:
    """The record's RIS text in the pieces that go before and after its AB line (one piece
    when it has no abstract): what the page carries when `ris_from_csl` does not make it."""
    lines = citations.ris_lines(record)
    tags = [tag for tag, _ in lines]
    if "AB" not in tags:
        return [citations.to_ris(record)]
    at = tags.index("AB")
    return [citations.ris_text(lines[:at]), citations.ris_text(lines[at + 1 :]) + citations.RIS_END]


def csl_parts(record: CitationRecord) -> list[str]:
    """The record's CSL-JSON file in the pieces that go before and after its abstract's JSON
    string (one piece when it has no abstract): what the page carries when the script does not
    write the file from the item."""
    item = citations.to_csl_json(record)
    if "abstract" not in item:
        return [citations.csl_json_file([record])]
    item["abstract"] = ""  # a quote outside a string is structure: this pair is found once
    head, tail = citations.csl_json_text([item]).split(CSL_ABSTRACT + '""')
    return [head + CSL_ABSTRACT, tail]


def page_data(
    record: CitationRecord, abstract_html: str, title: str = "", canonical: str | None = None
) -> dict[str, Any]:
    """What the page's script needs to make the RIS and CSL-JSON downloads: the CSL-JSON item
    without its abstract, as [name, value] pairs in the item's order (its id is the citation
    key, the files' name; its title and URL empty when they are the page's `citation_title`
    and canonical URL, which the script reads there); the abstract's text unless it is the
    text of `abstract_html` (the abstract the page shows). Where the script's rule would not
    make a file byte for byte (checked here, on the data as the page carries it), the data
    carries that file's pieces, joined by the abstract: `ris` (by its AB line), `csl_text`
    (by its JSON string)."""
    item = citations.to_csl_json(record)
    abstract = item.pop("abstract", "")
    if item["title"] == title:
        item["title"] = ""
    if canonical and item.get("URL") == canonical:
        item["URL"] = ""
    data: dict[str, Any] = {"csl": [[name, value] for name, value in item.items()]}
    shown = page_text(abstract_html)
    if not abstract or abstract != shown:
        data["abstract"] = abstract
    page = {"abstract": abstract_html, "bibtex": "", "title": title, "canonical": canonical or ""}
    made = texts(json.loads(json_script(data)), page)
    if made["ris"] != citations.to_ris(record):
        data["ris"] = ris_parts(record)
    if made["json"] != citations.csl_json_file([record]):
        data["csl_text"] = csl_parts(record)
    return data


def page_item(data: dict[str, Any], title: str, canonical: str) -> dict[str, Any]:
    """The CSL-JSON item of a page's citation data with its title and URL read from the page
    where the data leaves them empty."""
    item = dict(data["csl"])
    if item["title"] == "":
        item["title"] = title
    if item.get("URL") == "":
        item["URL"] = canonical
    return item


def texts(data: dict[str, Any], page: dict[str, str]) -> dict[str, str]:
    """The downloads the script makes, by extension, from a page's citation data and what it
    reads on the page (`page`: the HTML of the abstract shown, the BibTeX block's text, the
    `citation_title` and the canonical URL)."""
    item = page_item(data, page["title"], page["canonical"])
    abstract = data["abstract"] if "abstract" in data else page_text(page["abstract"])
    ris = f"AB  - {abstract}\n".join(data["ris"]) if "ris" in data else ris_from_csl(item, abstract)
    if "csl_text" in data:
        csl = json.dumps(abstract, ensure_ascii=False).join(data["csl_text"])
    else:
        csl = csl_from_item(item, abstract)
    return {"bib": page["bibtex"], "ris": ris, "json": csl}

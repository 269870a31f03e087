"""`import --orcid ID`: the works of an ORCID iD, through OpenAlex (link-sources' client).

OpenAlex finds the author by ORCID, then lists their works by its author id, page after page.
A work's abstract is rebuilt from its `abstract_inverted_index` (OpenAlex keeps no other form);
the HTML tags some titles carry (`<i>`, `<sub>`) are dropped. A work on arXiv (an arxiv.org
location, or arXiv's DataCite DOI) keeps its arXiv id. OpenAlex classifies works by topics of its
own, which do not map onto arXiv's categories, so the records have no subjects. Front matter,
errata and peer reviews (OpenAlex types) are left out.
"""

from __future__ import annotations

import html
import re
from typing import Any

from scholarsite.importing.works import Fetched, Work
from scholarsite.inputs.content import ORCID_RE, orcid_checksum_ok
from scholarsite.inputs.seeds import MAX_RECORDS
from scholarsite.inputs.sources import ARXIV_ID_RE
from scholarsite.sources.openalex import NotFound, OpenAlexClient, abstract_of, short_id, work_of
from scholarsite.sources.openalex_step import impact_of

SOURCE = "OpenAlex"
ORCID_PREFIX_RE = re.compile(r"^(?:https?://)?(?:www\.)?orcid\.org/", re.IGNORECASE)
TAG_RE = re.compile(r"</?(?:i|b|em|strong|sub|sup|scp|span|u|p|br|mml:[a-z]+)\b[^<>]*>", re.IGNORECASE)
ARXIV_URL_RE = re.compile(rf"arxiv\.org/(?:abs|pdf)/({ARXIV_ID_RE.pattern})(?:v\d+)?", re.IGNORECASE)
ARXIV_DOI_RE = re.compile(rf"10\.48550/arxiv\.({ARXIV_ID_RE.pattern})", re.IGNORECASE)
NOT_PUBLICATIONS = frozenset({"paratext", "erratum", "peer-review", "retraction", "grant"})
FIELDS = (
    "id,doi,display_name,title,publication_year,publication_date,type,primary_location,locations,"
    "best_oa_location,open_access,authorships,abstract_inverted_index,cited_by_count"
)


class BadOrcid(ValueError):
    """Not an ORCID iD, or its checksum is wrong."""


def orcid_id(text: str) -> str:
    """The iD of `0000-0002-1825-0097` or `https://orcid.org/0000-0002-1825-0097`, its
    checksum verified; BadOrcid otherwise."""
    orcid = ORCID_PREFIX_RE.sub("", text.strip()).upper()
    if not ORCID_RE.fullmatch(orcid):
        raise BadOrcid(f"expected an ORCID iD such as 0000-0002-1825-0097, not {text!r}")
    if not orcid_checksum_ok(orcid):
        raise BadOrcid(f"{orcid} is not an ORCID iD: its last character is not its checksum")
    return orcid


def plain(text: Any) -> str:
    """A title or abstract without HTML tags and entities, its spacing collapsed."""
    return " ".join(html.unescape(TAG_RE.sub("", text)).split()) if isinstance(text, str) else ""


def arxiv_id_of(data: dict[str, Any]) -> str:
    """The arXiv id of a work on arXiv, or ''."""
    if match := ARXIV_DOI_RE.search(data.get("doi") or ""):
        return match.group(1)
    locations = [data.get("primary_location"), data.get("best_oa_location"), *(data.get("locations") or [])]
    for location in (loc for loc in locations if isinstance(loc, dict)):
        for url in (location.get("landing_page_url"), location.get("pdf_url")):
            if isinstance(url, str) and (match := ARXIV_URL_RE.search(url)):
                return match.group(1)
    return ""


def names_of(data: dict[str, Any]) -> tuple[str, ...]:
    """The work's authors, in order."""
    authorships = data.get("authorships") if isinstance(data.get("authorships"), list) else []
    names = (a.get("author", {}).get("display_name") for a in authorships if isinstance(a, dict))
    return tuple(" ".join(name.split()) for name in names if isinstance(name, str) and name.strip())


KINDS = {  # OpenAlex work types and the type a seed names them by
    "article": "article",
    "preprint": "preprint",
    "posted-content": "preprint",
    "book-chapter": "chapter",
    "book": "book",
    "monograph": "book",
    "dissertation": "PhD thesis",
    "report": "report",
    "dataset": "dataset",
}


def kind_of(data: dict[str, Any], arxiv_id: str) -> str:
    """The type of a work: OpenAlex's, an article in conference proceedings a conference paper,
    one only on arXiv a preprint."""
    kind = KINDS.get(data["type"], "") if isinstance(data.get("type"), str) else ""
    location = data.get("primary_location")
    source = location.get("source") if isinstance(location, dict) else None
    place = source.get("type") if isinstance(source, dict) else None
    if kind == "article" and place == "conference":
        return "conference paper"
    return (
        "preprint"
        if kind == "article" and (place == "repository" or arxiv_id and not data.get("doi"))
        else kind
    )


def landing_page(data: dict[str, Any]) -> str:
    """The primary location's landing page, when an http(s) address."""
    location = data.get("primary_location")
    url = location.get("landing_page_url") if isinstance(location, dict) else None
    return url if isinstance(url, str) and url.startswith(("https://", "http://")) else ""


def work_from(data: dict[str, Any], checked: str) -> Work:
    """A work of an OpenAlex work object (year 0 when it gives none)."""
    alex = work_of(data)
    arxiv_id = arxiv_id_of(data)
    year = data.get("publication_year")
    return Work(
        title=plain(data.get("display_name") or data.get("title")),
        year=year if isinstance(year, int) and not isinstance(year, bool) else 0,
        source=SOURCE,
        abstract=plain(abstract_of(data.get("abstract_inverted_index"))),
        arxiv_id=arxiv_id,
        doi="" if ARXIV_DOI_RE.fullmatch(alex.doi) else alex.doi,
        journal_ref="" if "arxiv" in alex.venue.casefold() else alex.venue,
        authors=names_of(data),
        kind=kind_of(data, arxiv_id),
        url=landing_page(data),
        published=alex.published,
        key=alex.openalex_id,
        where=f"OpenAlex {alex.openalex_id}",
        impact=impact_of(alex, checked),
    )


def fetch(alex: OpenAlexClient, orcid: str, checked: str) -> Fetched:
    """The works of the author with this ORCID iD (LookupError when OpenAlex has no such author)."""
    try:
        author = alex.get(f"authors/orcid:{orcid}")
    except NotFound:
        raise LookupError(f"OpenAlex knows no author with the ORCID iD {orcid}") from None
    author_id, name = short_id(author.get("id")), plain(author.get("display_name"))
    listed = []
    for data in alex.pages("works", {"filter": f"author.id:{author_id}", "select": FIELDS}):
        listed.append(data)
        if len(listed) >= MAX_RECORDS:
            break
    kept = [data for data in listed if data.get("type") not in NOT_PUBLICATIONS]
    notes = [f"OpenAlex: {len(listed)} works of {name} (author {author_id}, ORCID {orcid})"]
    if len(kept) < len(listed):
        notes.append(f"left out {len(listed) - len(kept)} that are front matter, errata or peer reviews")
    return Fetched(name, [work_from(data, checked) for data in kept], notes, orcid)

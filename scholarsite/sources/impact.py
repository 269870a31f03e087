"""link-sources' OpenAlex step: the cited-by count, venue, open-access copy and date of every
paper whose entry identifies it (an OpenAlex id, a DOI, an arXiv id), in its `openalex:` part.

Asked: entries without an `openalex:` part, those `unknown`, those checked more than `max_age`
days ago, and those whose arXiv lookup just changed the ids they are asked by; never `locked`
ones. A found work is asked again by its OpenAlex id (set by hand or found before); else by
the entry's DOI, then by the DataCite DOI arXiv gives each paper. A failed lookup keeps what
was known (or records `unknown`), never `not-found`: that is only OpenAlex's own 404.
"""

from __future__ import annotations

import datetime
from dataclasses import replace

from scholarsite.inputs.impact import Impact
from scholarsite.inputs.sources import SourceEntry
from scholarsite.sources.openalex import OpenAlexClient, Work, arxiv_doi
from scholarsite.sources.polite import LookupFailed


def dois_of(entry: SourceEntry) -> tuple[str, ...]:
    """The DOIs OpenAlex is asked by: the entry's own, then arXiv's (not for a rejected id)."""
    arxiv = entry.arxiv_id if entry.arxiv_id and entry.status != "not-found" else ""
    return tuple(doi for doi in (entry.doi, arxiv_doi(arxiv) if arxiv else "") if doi)


def identified(entry: SourceEntry | None) -> bool:
    """OpenAlex can be asked about the paper: its entry has an id to ask by."""
    return entry is not None and bool(dois_of(entry) or (entry.openalex and entry.openalex.id))


def due(entry: SourceEntry | None, day: datetime.date, max_age: int, ids_changed: bool = False) -> bool:
    """OpenAlex should be asked about the paper now."""
    if entry is None or entry.locked or not identified(entry):
        return False
    impact = entry.openalex
    if impact is None or impact.status == "unknown" or ids_changed:
        return True
    try:
        checked = datetime.date.fromisoformat(impact.checked)
    except ValueError:
        return True
    return (day - checked).days > max_age


def impact_of(work: Work, checked: str) -> Impact:
    """The `openalex:` part recording a work."""
    return Impact(
        "found",
        checked=checked,
        id=work.openalex_id,
        doi=work.doi,
        cited_by=work.cited_by,
        venue=work.venue,
        oa_url=work.oa_url,
        published=work.published,
    )


def look_up(alex: OpenAlexClient, entry: SourceEntry, day: datetime.date) -> tuple[SourceEntry, str]:
    """The entry with what OpenAlex says of it, and the outcome (found, not-found, unknown);
    when OpenAlex could not be asked, the entry as it was (or marked unknown) and `unknown`."""
    old = entry.openalex
    checked = day.isoformat()
    chosen = old.id if old is not None and old.status != "not-found" else ""
    try:
        work = alex.work(openalex_id=chosen, dois=dois_of(entry))
    except LookupFailed:
        known = old if old is not None and old.status == "found" else Impact("unknown", checked, id=chosen)
        return replace(entry, openalex=known), "unknown"
    if work is None:
        return replace(entry, openalex=Impact("not-found", checked)), "not-found"
    return replace(entry, openalex=impact_of(work, checked)), "found"

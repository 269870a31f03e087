"""link-sources' OpenAlex step: the cited-by count, venue, open-access copy and date of every
paper whose entry identifies it (an OpenAlex id, a DOI, an arXiv id), in its `openalex:` part.

Asked: entries without an `openalex:` part, those `unknown`, those checked more than `max_age`
days ago, and those whose arXiv lookup just changed the ids they are asked by; never `locked`
ones. A found work is asked again by its OpenAlex id (set by hand or found before; single works
are free); else by the entry's DOI, then by the DataCite DOI arXiv gives each paper, the DOIs of
many papers in one request (`OpenAlexClient.works_by_doi`). A failed lookup keeps what was
known (or records `unknown`), never `not-found`: that is only OpenAlex's own answer that it has
no such work.
"""

from __future__ import annotations

import datetime
from dataclasses import replace

from scholarsite.inputs.openalex_part import Impact
from scholarsite.inputs.sources import SourceEntry
from scholarsite.sources.openalex import BATCH, OpenAlexClient, Work, arxiv_doi
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
        counts=work.counts,
        references=work.references,
    )


def chosen_id(entry: SourceEntry) -> str:
    """The OpenAlex id a work is asked by (set by hand or found before), or ''."""
    old = entry.openalex
    return old.id if old is not None and old.status != "not-found" else ""


def batchable(entry: SourceEntry) -> bool:
    """The entry is asked by DOI in a batch: it has no chosen id, and no DOI that would break
    OpenAlex's `doi:a|b` filter."""
    return not chosen_id(entry) and not any(c in doi for doi in dois_of(entry) for c in "|,")


def batches(entries: dict[str, SourceEntry]) -> list[dict[str, SourceEntry]]:
    """The entries in groups whose DOIs fill at most one request of BATCH DOIs."""
    groups: list[dict[str, SourceEntry]] = [{}]
    size = 0
    for key, entry in entries.items():
        count = len(dois_of(entry))
        if size + count > BATCH:
            groups.append({})
            size = 0
        groups[-1][key] = entry
        size += count
    return [group for group in groups if group]


def recorded(entry: SourceEntry, work: Work | None, day: datetime.date) -> tuple[SourceEntry, str]:
    """The entry with what OpenAlex answered (a work, or None: it knows none), and the outcome."""
    if work is None:
        return replace(entry, openalex=Impact("not-found", day.isoformat())), "not-found"
    return replace(entry, openalex=impact_of(work, day.isoformat())), "found"


def failed(entry: SourceEntry, day: datetime.date) -> tuple[SourceEntry, str]:
    """The entry as it was (or marked unknown) when OpenAlex could not answer, and `unknown`."""
    old = entry.openalex
    unknown = Impact("unknown", day.isoformat(), id=chosen_id(entry))
    known = old if old is not None and old.status == "found" else unknown
    return replace(entry, openalex=known), "unknown"


def look_up_batch(
    alex: OpenAlexClient, entries: dict[str, SourceEntry], day: datetime.date
) -> dict[str, tuple[SourceEntry, str]]:
    """Each entry (of one of `batches`) with what OpenAlex says of it, asked in one request;
    all `unknown` when that request failed (ApiUnreachable passes through)."""
    try:
        works = alex.works_by_doi([doi for entry in entries.values() for doi in dois_of(entry)])
    except LookupFailed:
        return {key: failed(entry, day) for key, entry in entries.items()}
    return {key: recorded(entry, first(works, dois_of(entry)), day) for key, entry in entries.items()}


def first(works: dict[str, Work], dois: tuple[str, ...]) -> Work | None:
    """The work of the first of the DOIs found, or None."""
    return next((works[doi.lower()] for doi in dois if doi.lower() in works), None)


def look_up(alex: OpenAlexClient, entry: SourceEntry, day: datetime.date) -> tuple[SourceEntry, str]:
    """The entry with what OpenAlex says of it (asked by its chosen id, then its DOIs one at a
    time), and the outcome; `unknown` when OpenAlex could not answer."""
    try:
        work = alex.work(openalex_id=chosen_id(entry), dois=dois_of(entry))
    except LookupFailed:
        return failed(entry, day)
    return recorded(entry, work, day)

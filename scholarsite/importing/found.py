"""What import learns of identifiers, as `sources.yaml` entries, so link-sources need not
look the papers up again.

A work with an arXiv id or a DOI (or found by OpenAlex, whose part it then has) becomes a
`found` entry under its paper's key. An entry
already there is kept, unless link-sources left it `unknown` or `ambiguous`, or `not-found`
without having rejected this arXiv id by hand; a `locked` entry is never changed.
"""

from __future__ import annotations

from scholarsite.importing.works import Work
from scholarsite.inputs.sources import SourceEntry


def found_entry(work: Work, title: str, checked: str) -> SourceEntry:
    """The `found` entry of a work with an identifier (`title`: the collection's, for review)."""
    on_arxiv = bool(work.arxiv_id)
    return SourceEntry(
        "found",
        title=title,
        checked=checked,
        arxiv_id=work.arxiv_id,
        version=work.version if on_arxiv else None,
        doi=work.doi,
        journal_ref=work.journal_ref,
        primary_category=work.subjects[0] if on_arxiv and work.subjects else "",
        published=work.published if len(work.published) == len("2025-02-27") else "",
        updated=work.updated,
        authors=() if work.more_authors else work.authors,  # sources.yaml's lists are complete
        openalex=work.impact,
    )


def replaceable(old: SourceEntry | None, work: Work) -> bool:
    """Whether import may write its entry where `old` is."""
    if old is None:
        return True
    if old.locked:
        return False
    rejected = old.status == "not-found" and old.arxiv_id and old.arxiv_id == work.arxiv_id
    return old.status in ("unknown", "ambiguous") or (old.status == "not-found" and not rejected)


def learnt(
    works: dict[str, tuple[Work, str]], entries: dict[str, SourceEntry], checked: str
) -> dict[str, SourceEntry]:
    """The entries to write, by paper key, for `works` (key -> (work, the paper's title))."""
    return {
        key: found_entry(work, title, checked)
        for key, (work, title) in sorted(works.items())
        if (work.arxiv_id or work.doi or work.impact) and replaceable(entries.get(key), work)
    }

"""`import --arxiv-author NAME`: an author's papers from the arXiv API (link-sources' client).

arXiv matches the name as a phrase in its author lists and has no author identity: the entries
kept are those listing an author whose name is the one asked once normalised (TeX accents made
letters, accents and case aside), and they may still include another person of the same name,
which the summary says.
"""

from __future__ import annotations

from scholarsite.importing.works import Fetched, Work
from scholarsite.inputs.seeds import MAX_RECORDS
from scholarsite.inputs.unicode import normalise
from scholarsite.sources.client import ArxivClient, Record
from scholarsite.sources.matching import years_of
from scholarsite.tex.render import tex_to_plain

SOURCE = "arXiv"
SHOWN = 5  # identifiers named in a note, at most


def work_of(record: Record) -> Work:
    """A work of an arXiv entry: its year is its first version's."""
    year = int(record.published[:4]) if record.published[:4].isdigit() else min(years_of(record), default=0)
    return Work(
        title=record.title,
        year=year,
        source=SOURCE,
        abstract=record.summary,
        subjects=tuple(dict.fromkeys((record.primary_category, *record.categories))),
        arxiv_id=record.arxiv_id,
        version=record.version,
        doi=record.doi,
        journal_ref=record.journal_ref,
        authors=record.authors,
        kind="preprint",
        published=record.published,
        updated=record.updated,
        key=record.arxiv_id,
        where=f"arXiv:{record.arxiv_id}",
    )


def a_few(ids: list[str]) -> str:
    """`2301.00001, 2301.00002 and 3 more`."""
    more = f" and {len(ids) - SHOWN} more" if len(ids) > SHOWN else ""
    return ", ".join(ids[:SHOWN]) + more


def fetch(client: ArxivClient, name: str) -> Fetched:
    """The entries of an author query, those listing exactly `name` made works."""
    entries = [record for page in client.search_author(name, MAX_RECORDS) for record in page]
    wanted = normalise(tex_to_plain(name))
    mine = [r for r in entries if any(normalise(tex_to_plain(author)) == wanted for author in r.authors)]
    kept = {r.arxiv_id for r in mine}
    others = [r.arxiv_id for r in entries if r.arxiv_id not in kept]
    notes = [f'arXiv: {len(entries)} entries for the author query au:"{name}"']
    if others:
        notes.append(f"left out {len(others)} that list no author named exactly {name}: {a_few(others)}")
    if mine:
        notes.append(
            f"arXiv has no author identity: the {len(mine)} papers kept may include another {name}'s; "
            "leave those out with --exclude ARXIV_ID (repeatable), or delete them from the seed"
        )
    return Fetched(name, [work_of(r) for r in mine], notes)

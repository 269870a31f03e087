"""Which arXiv entry, if any, is a paper of the collection.

An entry matches when its title, made plain and normalised (`scholarsite.model.identity.normalise`),
scores at least THRESHOLD with rapidfuzz's `token_sort_ratio` against the paper's, and its
year (from the arXiv id, or its first version's date) is within one year of the paper's.
One match: found. Several: those sharing a subject with the paper are kept (the tie-breaker);
if exactly one remains it is found, else the paper is ambiguous and every match is listed.
None: not-found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz

from scholarsite.inputs.unicode import normalise
from scholarsite.sources.client import Record
from scholarsite.tex.render import tex_to_plain

THRESHOLD = 92.0
YEAR_SLACK = 1
NEW_ID_RE = re.compile(r"(\d{2})\d{2}\.\d{4,5}")
OLD_ID_RE = re.compile(r"[a-z-]+(?:\.[A-Z]{2})?/(\d{2})\d{5}")


@dataclass(frozen=True)
class Wanted:
    """What the collection knows of a paper: plain title, year and subject codes."""

    title: str
    year: int
    subjects: frozenset[str]


@dataclass(frozen=True)
class Outcome:
    """`found` with its record, `ambiguous` with its candidates, or `not-found`."""

    status: str
    record: Record | None = None
    candidates: tuple[Record, ...] = ()


def title_score(wanted: str, title: str) -> float:
    """0-100: how alike two titles are, once normalised (word order does not count)."""
    return fuzz.token_sort_ratio(normalise(wanted), normalise(title))


def years_of(record: Record) -> set[int]:
    """The years an entry's id and first version's date say it is from."""
    years = {int(record.published[:4])} if record.published[:4].isdigit() else set()
    new, old = NEW_ID_RE.fullmatch(record.arxiv_id), OLD_ID_RE.fullmatch(record.arxiv_id)
    if new:
        years.add(2000 + int(new.group(1)))
    elif old:
        two = int(old.group(1))
        years.add(1900 + two if two >= 91 else 2000 + two)
    return years


def matches(wanted: Wanted, record: Record) -> bool:
    """The entry's title (its TeX made plain, as arXiv titles hold TeX too) is close enough, and
    its year within one year of the paper's."""
    in_time = any(abs(year - wanted.year) <= YEAR_SLACK for year in years_of(record))
    return in_time and title_score(wanted.title, tex_to_plain(record.title)) >= THRESHOLD


def match(wanted: Wanted, records: list[Record]) -> Outcome:
    """The outcome of looking a paper up among the entries an arXiv search returned."""
    close = [r for r in records if matches(wanted, r)]
    if not close:
        return Outcome("not-found")
    if len(close) == 1:
        return Outcome("found", close[0])
    sharing = [r for r in close if wanted.subjects & {r.primary_category, *r.categories}]
    if len(sharing) == 1:
        return Outcome("found", sharing[0])
    return Outcome("ambiguous", candidates=tuple(close))

"""What an importer learns of one publication (`Work`), and of one author (`Fetched`).

A work's text is as its source gives it (TeX kept as TeX); `seedtext` makes it a seed record.
Two works are the same paper when their titles are the same once normalised and their years
at most one apart (a preprint and its published version), or when they share an identifier.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from scholarsite.inputs.openalex_part import Impact
from scholarsite.inputs.unicode import normalise

YEAR_SLACK = 1  # a preprint and its published version are often a year apart


@dataclass(frozen=True)
class Work:
    """One publication of the author, with what its source says of it."""

    title: str
    year: int
    source: str  # the seed's source: arXiv, OpenAlex or BibTeX
    abstract: str = ""
    subjects: tuple[str, ...] = ()  # arXiv categories, primary first
    arxiv_id: str = ""  # without version
    version: int | None = None
    doi: str = ""
    journal_ref: str = ""  # where it was published
    authors: tuple[str, ...] = ()  # the authors, in order, when the source lists them
    more_authors: bool = False  # the source's list ends in "and others"
    kind: str = ""  # one of seeds' KINDS, when the source says
    url: str = ""  # the paper's own address, when the source gives one
    published: str = ""  # ISO date of the first version (a month or a year from BibTeX)
    updated: str = ""
    key: str = ""  # the source's own identifier (a BibTeX key, an OpenAlex id)
    where: str = ""  # where the source said it, for messages (`refs.bib:12`)
    impact: Impact | None = None  # what OpenAlex said of it, when it did

    @property
    def identity(self) -> str:
        """The normalised title."""
        return normalise(self.title)

    def identifiers(self) -> set[str]:
        """Every identifier of the work, case-folded: what `--exclude` may name."""
        return {i.casefold() for i in (self.arxiv_id, self.doi, self.key) if i}

    def richness(self) -> tuple[bool, bool, bool, int]:
        """Which of two copies of a paper to keep: subjects, abstract, arXiv id, then the earlier."""
        return (bool(self.subjects), bool(self.abstract), bool(self.arxiv_id), -self.year)

    def completed_by(self, other: Work) -> Work:
        """This work with the identifiers only `other` has (the DOI of a published version)."""
        return replace(
            self,
            arxiv_id=self.arxiv_id or other.arxiv_id,
            version=self.version if self.arxiv_id else other.version,
            doi=self.doi or other.doi,
            journal_ref=self.journal_ref or other.journal_ref,
            authors=self.authors or other.authors,
            more_authors=self.more_authors if self.authors else other.more_authors,
            kind=self.kind or other.kind,
            url=self.url or other.url,
            published=self.published or other.published,
            impact=self.impact or other.impact,
        )


def shared_ids(work: Work) -> set[str]:
    """The identifiers that make two works one paper: its arXiv id and DOI."""
    return {i for i in (work.arxiv_id, work.doi.casefold()) if i}


class Papers:
    """Works, each paper once: same normalised title within YEAR_SLACK years, or a shared
    arXiv id or DOI, is the same paper."""

    def __init__(self) -> None:
        self.works: list[Work] = []
        self.by_title: dict[str, list[int]] = {}
        self.by_id: dict[str, int] = {}

    def find(self, work: Work) -> int | None:
        """The index of the paper `work` is a copy of, or None."""
        for identifier in shared_ids(work):
            if identifier in self.by_id:
                return self.by_id[identifier]
        near = (
            i
            for i in self.by_title.get(work.identity, [])
            if abs(self.works[i].year - work.year) <= YEAR_SLACK
        )
        return next(near, None)

    def put(self, index: int | None, work: Work) -> None:
        """Store `work` as paper `index` (a new paper when None)."""
        if index is None:
            index = len(self.works)
            self.works.append(work)
        self.works[index] = work
        titled = self.by_title.setdefault(work.identity, [])
        titled += [] if index in titled else [index]
        self.by_id.update((identifier, index) for identifier in shared_ids(work))


def collapse(works: Iterable[Work]) -> tuple[list[Work], list[tuple[Work, Work]]]:
    """The works with each paper once (the richer copy, completed by the other's identifiers),
    and the (kept, dropped) pairs, in the order the works came."""
    papers = Papers()
    dropped: list[tuple[Work, Work]] = []
    for work in works:
        index = papers.find(work)
        if index is not None:
            old = papers.works[index]
            better, worse = (work, old) if work.richness() > old.richness() else (old, work)
            work = better.completed_by(worse)
            dropped.append((work, worse))
        papers.put(index, work)
    return papers.works, dropped


@dataclass
class Fetched:
    """What a source said about one author: the name it gives, the works, and what the user
    should know (how many works matched, what was left out and why)."""

    name: str
    works: list[Work]
    notes: list[str] = field(default_factory=list)
    orcid: str = ""

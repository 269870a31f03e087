"""What a seed file says: its author and their publication records, and the problems found."""

from __future__ import annotations

from dataclasses import dataclass

from scholarsite.errors import Diagnostic, Severity

KINDS = (
    "article",
    "conference paper",
    "preprint",
    "PhD thesis",
    "master's thesis",
    "book",
    "chapter",
    "report",
    "dataset",
    "other",
)


@dataclass(frozen=True)
class Details:
    """What a record's details block says (seeds written by `import`): the full author list
    (`more_authors`: it ends in "et al."), venue, type (one of KINDS), DOI, URL and date
    (`YYYY`, `YYYY-MM` or `YYYY-MM-DD`). Empty fields are unknown."""

    authors: tuple[str, ...] = ()
    more_authors: bool = False
    venue: str = ""
    kind: str = ""
    doi: str = ""
    url: str = ""
    date: str = ""


NO_DETAILS = Details()


@dataclass(frozen=True)
class SeedRecord:
    """One publication record as listed in one seed file."""

    source: str
    year: int
    title: str
    abstract: str
    subjects: tuple[str, ...]
    path: str
    line: int
    details: Details = NO_DETAILS


@dataclass(frozen=True)
class AuthorRecord:
    """Everything one seed file says about one author."""

    name: str
    path: str
    line: int
    claimed_count: int | None
    at_least: bool
    records: tuple[SeedRecord, ...]


@dataclass(frozen=True)
class SeedParse:
    """The result of parsing one file: the author (None if the file is rejected) and problems."""

    author: AuthorRecord | None
    diagnostics: tuple[Diagnostic, ...]

    @property
    def rejected(self) -> bool:
        """True when the file has errors and contributes nothing to the site."""
        return any(d.severity is Severity.ERROR for d in self.diagnostics)

"""What a seed file says: its author and their publication records, and the problems found."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from scholarsite.errors import Diagnostic, Severity
from scholarsite.inputs.digests import short_hash
from scholarsite.inputs.unicode import normalise, strip_ignorable

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
class RecordIdentity:
    """How the model tells a record's paper apart: its title's normal form, its abstract as
    compared (whitespace collapsed, invisible characters stripped: a re-wrapped abstract is
    the same abstract) and that text's key. Worked out once, when the seed is parsed: the
    parse cache keeps it, so a build does not normalise and hash every record again."""

    title: str
    abstract: str
    abstract_key: str


def identity_of(title: str, abstract: str) -> RecordIdentity:
    """The identity of a record with this title and abstract."""
    compared = " ".join(strip_ignorable(abstract).split())
    return RecordIdentity(
        normalise(title), abstract if compared == abstract else compared, short_hash(compared, 16)
    )


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

    @cached_property
    def identity(self) -> RecordIdentity:
        """Its identity (of its title and abstract alone), worked out when first asked for,
        unless the parse cache gave the one it kept (`cache.record_of`; a record made again by
        `dataclasses.replace` works its identity out again)."""
        return identity_of(self.title, self.abstract)


@dataclass(frozen=True)
class AuthorRecord:
    """Everything one seed file says about one author."""

    name: str
    path: str
    line: int
    claimed_count: int | None
    at_least: bool
    records: Sequence[SeedRecord]  # a tuple, or the parse cache's `KeptRecords`

    @cached_property
    def lines(self) -> tuple[int, ...]:
        """The lines its records start at, in order."""
        return tuple(record.line for record in self.records)


@dataclass(frozen=True)
class SeedParse:
    """The result of parsing one file: the author (None if the file is rejected) and problems."""

    author: AuthorRecord | None
    diagnostics: tuple[Diagnostic, ...]

    @property
    def rejected(self) -> bool:
        """True when the file has errors and contributes nothing to the site."""
        return any(d.severity is Severity.ERROR for d in self.diagnostics)

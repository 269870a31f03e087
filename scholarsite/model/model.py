"""The data model: authors, papers, subjects and years, cross-referenced, built from seeds.

`build_model` is pure. Papers are identified by (year, normalised title); the same paper in
several seeds is one `Paper` naming every author who lists it. Two different abstracts under
the same title and year in one seed are two papers ("variants"). When the seeds of different
authors give one paper different abstracts, the paper shows the longest (see `shown_version`).
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import chain
from typing import Any, ClassVar, Protocol, TypeVar

from scholarsite.inputs import taxonomy
from scholarsite.inputs.lineage_file import Lineage
from scholarsite.inputs.records import NO_DETAILS, Details
from scholarsite.inputs.seeds import AuthorRecord, SeedRecord
from scholarsite.inputs.unicode import normalise
from scholarsite.model import urls
from scholarsite.model.identity import short_hash, slug_for
from scholarsite.model.naming import Naming

T = TypeVar("T")
PLAIN = Naming()  # titles as plain text and slugs, made afresh

REMEMBERED_TEXTS = 2**18  # titles a process keeps the identities of: a collection's worth
MAX_TEAM = 100  # a paper listed by more authors of the collection makes none of them co-authors:
# a collaboration of thousands is not a co-authorship, and counting it would cost the square of
# its size (2,000 seeds sharing one paper: 4 million pairs). It still lists every author.


class Entity:
    """A node of the model, shown by its identity alone: the model is one graph (papers, their
    authors, those authors' papers...), which a field-by-field repr walks without end (a failing
    test's report once took 22 GB)."""

    identity: ClassVar[str] = "key"  # the field that names it

    def __repr__(self) -> str:
        return f"{type(self).__name__}({getattr(self, self.identity)!r})"


@dataclass(frozen=True, order=True)
class Provenance:
    """Where a record came from."""

    path: str
    line: int


@dataclass(frozen=True)
class AbstractVersion:
    """One of the different abstracts a paper's records carry: its text as the first record
    carrying it has it, where that record is, and the text compared (whitespace collapsed,
    invisible characters stripped), so that a re-wrapped abstract is the same abstract."""

    text: str
    where: Provenance
    compared: str


def shown_version(versions: Iterable[AbstractVersion]) -> AbstractVersion:
    """The abstract a paper shows: the longest (in characters, as compared); of equally long
    ones, the first in code-point order, so the choice depends on the texts alone, never on
    file names or the order seeds are read in. (sources.yaml keeps no abstract.)"""
    return min(versions, key=lambda version: (-len(version.compared), version.compared))


@dataclass(frozen=True)
class PaperFacts:
    """What listings, citation keys and lineage read of a paper's texts (a kept paper has them
    without its texts): its details' date, author list and DOI, and the digests of its
    abstracts (the first its abstract key; its lineage's `abstract:` anchors)."""

    date: str
    names: tuple[str, ...]
    doi: str
    abstracts: tuple[str, ...]


@dataclass(eq=False, repr=False)
class Subject(Entity):
    """An arXiv subject code with its name from arXiv's taxonomy (bare code when unknown)."""

    identity: ClassVar[str] = "code"

    code: str
    slug: str
    info: taxonomy.SubjectInfo | None
    papers: list[Paper] = field(default_factory=list)
    author_counts: list[tuple[Author, int]] = field(default_factory=list)

    @property
    def name(self) -> str:
        """Full name, e.g. 'Distributed, Parallel, and Cluster Computing'."""
        return self.info.name if self.info else self.code

    @property
    def archive_name(self) -> str:
        """The archive it belongs to, e.g. 'Computer Science'."""
        return self.info.archive_name if self.info else "Other subjects"


@dataclass(eq=False, repr=False)
class Year(Entity):
    """One publication year."""

    identity: ClassVar[str] = "year"

    year: int
    papers: list[Paper] = field(default_factory=list)
    author_counts: list[tuple[Author, int]] = field(default_factory=list)


@dataclass(eq=False, repr=False)
class Paper(Entity):
    """One distinct paper, possibly listed by several authors."""

    key: str
    slug: str
    title: str
    abstract: str
    year: int
    source: str
    subjects: list[Subject] = field(default_factory=list)
    authors: list[Author] = field(default_factory=list)
    provenance: list[Provenance] = field(default_factory=list)
    abstract_key: str = ""
    versions: list[AbstractVersion] = field(default_factory=list)  # every different abstract
    legacy_slug: str = ""  # the slug of the rule before slugs showed rendered TeX
    details: Details = NO_DETAILS  # what its records' details blocks say, merged (`merged_details`)

    @cached_property
    def facts(self) -> PaperFacts:
        """What listings, citation keys and lineage read of its texts (asked once its model is
        made, when it no longer changes: `model.lineage.own_anchors`)."""
        found = [self.abstract_key] if self.versions and self.versions[0].compared else []
        found += [short_hash(version.compared, 16) for version in self.versions[1:] if version.compared]
        details = self.details
        return PaperFacts(details.date, details.authors, details.doi, tuple(found))

    @property
    def moved(self) -> bool:
        """Whether the paper's URL under the slug rule before is not its URL now."""
        return self.legacy_slug != self.slug

    @property
    def shared(self) -> bool:
        """Listed by more than one author of the collection."""
        return len(self.authors) > 1

    def add_abstract(self, text: str, compared: str, where: Provenance) -> None:
        """Note one record's abstract; the paper shows the chosen one of all it has."""
        if all(version.compared != compared for version in self.versions):
            self.versions.append(AbstractVersion(text, where, compared))
            self.abstract = shown_version(self.versions).text


@dataclass(eq=False, repr=False)
class Author(Entity):
    """One person of the collection (one or more seed files with the same normalised name)."""

    key: str
    slug: str
    name: str
    claimed_count: int | None
    at_least: bool
    seed_paths: list[str]
    spellings: list[str] = field(default_factory=list)  # normalised names: seeds' and aliases
    papers: list[Paper] = field(default_factory=list)
    coauthors: list[tuple[Author, int]] = field(default_factory=list)
    subject_counts: list[tuple[Subject, int]] = field(default_factory=list)
    year_counts: list[tuple[int, int]] = field(default_factory=list)


class ChangeLog(Protocol):
    """The papers a warm model's updates took out and put in (see `model.warm.Changes`)."""

    @property
    def mark(self) -> object:
        """Where the model is now, for `since` to count from."""

    def since(self, mark: object) -> tuple[set[str], list[Paper]] | None:
        """The keys of the papers gone and the papers made since `mark`; None: unknown."""

    def moved(self, mark: object) -> tuple[list[Paper], list[Paper]] | None:
        """The papers taken out that were in at `mark`, and those put in that are still in; None: unknown."""


@dataclass
class Site:
    """The whole collection, every object cross-referenced."""

    authors: list[Author]
    papers: list[Paper]
    subjects: list[Subject]
    years: list[Year]
    pages: Collection[str]  # every paper's page path
    by_key: Mapping[str, Paper]  # every paper by key
    contested: list[Paper] = field(default_factory=list)  # papers given several abstracts, in order
    redirects: dict[str, str] = field(default_factory=dict)  # alias slug -> the author's slug
    moved_papers: dict[str, Paper] = field(default_factory=dict)  # page path lineage.txt kept -> paper
    legacy_pages: dict[str, Paper] = field(default_factory=dict)  # page path under the rule before -> paper
    former_keys: dict[str, str] = field(default_factory=dict)  # a key papers had -> its key now
    lineage: dict[str, Lineage] = field(default_factory=dict)  # what lineage.txt keeps, by key
    changes: ChangeLog | None = None  # how a warm model got here (`model.warm`): None when made whole

    @property
    def record_count(self) -> int:
        """Records read from all seeds (each record is on exactly one paper)."""
        return sum(len(p.provenance) for p in self.papers)

    @property
    def shared_papers(self) -> list[Paper]:
        """Papers listed by more than one author."""
        return [p for p in self.papers if p.shared]


@dataclass(frozen=True)
class Identities:
    """What author pages declare about who is who (`content/authors/<slug>.md`).

    `claims`: seed files (`seeds/x.txt`) that are the person of a page's slug, whatever name
    they carry, so two people with one name stay apart. `aliases`: other spellings (normalised)
    whose seeds are the person of a page's slug; their own URLs redirect there.
    """

    claims: Mapping[str, str] = field(default_factory=dict)
    aliases: Mapping[str, str] = field(default_factory=dict)

    def identity(self, record: AuthorRecord, naming: Naming = PLAIN) -> tuple[str, str | None]:
        """(author key, slug when a page decides it) of a seed file's person."""
        if record.path in self.claims:
            slug = self.claims[record.path]
            return f"{slug}#page", slug
        name = normalise(record.name)
        slug = self.aliases.get(name) or naming.slug(name, "author")
        if slug in self.aliases.values():  # an alias, or the name of the page that lists aliases
            return f"{slug}#page", slug
        return name, None

    def aliases_of(self, slug: str) -> list[str]:
        """The other spellings (normalised) an author page declares for the person of `slug`."""
        return sorted(alias for alias, target in self.aliases.items() if target == slug)


def merge_authors(
    records: Iterable[AuthorRecord], identities: Identities, naming: Naming = PLAIN
) -> list[tuple[Author, list[SeedRecord]]]:
    """One Author per person (normalised name, unless an author page says otherwise), with
    every seed record of its files, in file order, and every spelling of the person's name."""
    merged: dict[str, tuple[Author, list[SeedRecord]]] = {}
    for record in sorted(records, key=lambda r: r.path):
        key, slug = identities.identity(record, naming)
        if key not in merged:
            author = Author(key, slug or naming.slug(key, "author"), record.name, None, False, [])
            merged[key] = (author, [])
        author, seed_records = merged[key]
        author.seed_paths.append(record.path)
        known(author.spellings, normalise(record.name))
        if record.claimed_count is not None:  # two seeds of one person: the larger claim
            author.claimed_count = max(author.claimed_count or 0, record.claimed_count)
            author.at_least = author.at_least or record.at_least
        seed_records.extend(record.records)
    for author, _ in merged.values():
        for alias in identities.aliases_of(author.slug):
            known(author.spellings, alias)
    return list(merged.values())


def known(spellings: list[str], spelling: str) -> None:
    """Add a spelling unless it is there already (first seen first)."""
    if spelling not in spellings:
        spellings.append(spelling)


@lru_cache(maxsize=REMEMBERED_TEXTS)
def title_identity(title: str) -> str:
    """A title's identity (its normal form), remembered: a paper's title is in several seeds,
    and a process that builds again (the preview) meets the same titles every build."""
    return normalise(title)


class PaperIndex:
    """Finds or creates the paper a record belongs to; `naming` gives a title's text as
    shown, its slug's source."""

    def __init__(self, naming: Naming = PLAIN) -> None:
        self.variants: dict[tuple[int, str], list[Paper]] = {}
        self.naming = naming

    def paper_for(self, record: SeedRecord, author: Author) -> Paper:
        """Same (year, title) merges; in one author's records a different abstract is a new
        paper. The record's abstract is noted on the paper it belongs to."""
        identity = record.identity
        title_key, compared, abstract_key = identity.title, identity.abstract, identity.abstract_key
        variants = self.variants.setdefault((record.year, title_key), [])
        same_text = (p for p in variants if p.abstract_key == abstract_key)
        not_mine = (p for p in variants if author not in p.authors)
        match = next(same_text, None) or next(not_mine, None)
        if match is None:
            match = self.new_paper(record, title_key, abstract_key, variant=len(variants))
            variants.append(match)
        match.add_abstract(record.abstract, compared, Provenance(record.path, record.line))
        return match

    def new_paper(self, record: SeedRecord, title_key: str, abstract_key: str, variant: int) -> Paper:
        """A paper from its first record; variants after the first get an abstract hash. Its slug
        comes from its title as shown; `legacy_slug` is the one its TeX source would give."""
        slug = self.naming.title_slug(title_key, self.naming.plain_title(record.title))
        legacy_slug = self.naming.slug(title_key, "paper")
        key = f"{record.year}/{title_key}"
        if variant:
            slug, legacy_slug = (f"{s}-{abstract_key[:6]}" for s in (slug, legacy_slug))
            key = f"{key}#{abstract_key[:6]}"
        return Paper(
            key,
            slug,
            record.title,
            record.abstract,
            record.year,
            record.source,
            abstract_key=abstract_key,
            legacy_slug=legacy_slug,
        )


def richer(a: str, b: str) -> str:
    """The longer of two values; of equally long ones the first in code-point order."""
    return min(a, b, key=lambda text: (-len(text), text))


def merged_details(a: Details, b: Details) -> Details:
    """What two records' details say together, each field from the record that knows more
    (a complete author list over one ending in et al., then the longer): the result depends on
    the texts alone, never on the order seeds are read in."""
    lists = ((a.authors, a.more_authors), (b.authors, b.more_authors))
    authors, more = min(lists, key=lambda item: (not item[0], item[1], -len(item[0]), item[0]))
    return Details(
        authors,
        more,
        richer(a.venue, b.venue),
        richer(a.kind, b.kind),
        richer(a.doi, b.doi),
        richer(a.url, b.url),
        richer(a.date, b.date),
    )


def attach(paper: Paper, record: SeedRecord, author: Author, subjects: dict[str, Subject]) -> None:
    """Add one record's author, subjects, details and provenance to its paper."""
    paper.provenance.append(Provenance(record.path, record.line))
    if record.details != NO_DETAILS:
        paper.details = merged_details(paper.details, record.details)
    if author not in paper.authors:
        paper.authors.append(author)
        author.papers.append(paper)
    for code in record.subjects:
        info = taxonomy.lookup(code)
        canonical = info.code if info else code
        if canonical not in subjects:
            subjects[canonical] = Subject(canonical, slug_for(normalise(canonical)), info)
        subject = subjects[canonical]
        if subject not in paper.subjects:
            paper.subjects.append(subject)


PaperOrder = Callable[[Paper], tuple[int, int, str]]


def paper_order(published: Mapping[str, datetime.date]) -> PaperOrder:
    """Newest year first; within a year, newest published date first (papers without a known
    date after those with one), then by key (title identity)."""

    def order(paper: Paper) -> tuple[int, int, str]:
        date = published.get(paper.key)
        return (-paper.year, -date.toordinal() if date else 1, paper.key)

    return order


def ranked(counter: Counter[T], name: Callable[[T], object]) -> list[tuple[T, int]]:
    """Counter items by count descending, then by name."""
    return sorted(counter.items(), key=lambda item: (-item[1], name(item[0])))


def fill_author_views(author: Author, order: Callable[[Paper], Any]) -> None:
    """Sort an author's papers (`order`: the site's, or a key that sorts as it does); count
    co-authors (over papers of at most `MAX_TEAM` authors of the collection), subjects and
    years."""
    author.papers.sort(key=order)
    teams = chain.from_iterable(p.authors for p in author.papers if len(p.authors) <= MAX_TEAM)
    coauthors = Counter(teams)
    del coauthors[author]
    author.coauthors = ranked(coauthors, lambda a: a.key)
    subjects = Counter(chain.from_iterable(p.subjects for p in author.papers))
    author.subject_counts = ranked(subjects, lambda s: s.code)
    years = Counter(p.year for p in author.papers)
    author.year_counts = sorted(years.items(), reverse=True)


def author_counts(papers: list[Paper]) -> list[tuple[Author, int]]:
    """How many of `papers` each author lists, most first."""
    return ranked(Counter(chain.from_iterable(p.authors for p in papers)), lambda a: a.key)


def page_of(paper: Paper) -> str:
    """A paper's page path."""
    return urls.paper(paper.year, paper.slug)


def page_paths(papers: Iterable[Paper]) -> set[str]:
    """The page path of each paper."""
    return {page_of(p) for p in papers}


def legacy_pages(papers: list[Paper], pages: Collection[str]) -> dict[str, Paper]:
    """The page of each paper under the slug rule before, where it is not the paper's page now
    nor another paper's (`pages`: every paper's page path; `papers` may be only those that
    moved), by its path."""
    before = {urls.paper(p.year, p.legacy_slug): p for p in papers if p.moved}
    return {path: paper for path, paper in sorted(before.items()) if path not in pages}


def redirects_of(records: list[AuthorRecord], identities: Identities, slugs: set[str]) -> dict[str, str]:
    """The URL of each alias an author page declares that is no author's own: the author's."""
    if not identities.aliases:
        return {}
    redirects = {
        slug_for(normalise(r.name), "author"): identities.aliases[normalise(r.name)]
        for r in records
        if normalise(r.name) in identities.aliases and slug_for(normalise(r.name), "author") not in slugs
    }
    return dict(sorted(redirects.items()))


def build_model(
    records: Iterable[AuthorRecord],
    published: Mapping[str, datetime.date] | None = None,
    identities: Identities | None = None,
    naming: Naming = PLAIN,
) -> Site:
    """Merge author records into a cross-referenced Site; papers are ordered by year, then by
    their `published` date (by paper key) where it is known. `naming` gives titles as
    plain text and slugs (the build passes one that remembers them)."""
    order = paper_order(published or {})
    index = PaperIndex(naming)
    subjects: dict[str, Subject] = {}
    papers: dict[str, Paper] = {}
    authors: list[Author] = []
    records = list(records)
    identities = identities or Identities()
    for author, seed_records in merge_authors(records, identities, naming):
        authors.append(author)
        for record in seed_records:
            paper = index.paper_for(record, author)
            papers[paper.key] = paper
            attach(paper, record, author, subjects)
    ordered_papers = sorted(papers.values(), key=order)
    years: dict[int, Year] = {}
    for paper in ordered_papers:
        years.setdefault(paper.year, Year(paper.year)).papers.append(paper)
        for subject in paper.subjects:
            subject.papers.append(paper)
    place = {id(paper): at for at, paper in enumerate(ordered_papers)}  # sorts as `order` does
    for author in authors:
        fill_author_views(author, lambda paper: place[id(paper)])
    for group in (*subjects.values(), *years.values()):
        group.author_counts = author_counts(group.papers)
    pages = page_paths(ordered_papers)
    return Site(
        redirects=redirects_of(records, identities, {a.slug for a in authors}),
        legacy_pages=legacy_pages(ordered_papers, pages),
        authors=sorted(authors, key=lambda a: a.key),
        papers=ordered_papers,
        subjects=sorted(subjects.values(), key=lambda s: s.code),
        years=sorted(years.values(), key=lambda y: -y.year),
        pages=pages,
        by_key={paper.key: paper for paper in ordered_papers},
        contested=[paper for paper in ordered_papers if len(paper.versions) > 1],
    )

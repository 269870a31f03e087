"""Plain-data views of model objects, computed once per object and shared by every page.

A card is a dict of strings, numbers, Markup and lists, so page contexts stay plain data
(hashable for memoising, picklable for rendering in several processes).
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Any, Generic, TypeVar
from urllib.parse import quote, quote_plus, urlsplit

from markupsafe import Markup

from scholarsite.inputs.digests import Digested, DigestedDict, key_of
from scholarsite.inputs.memo import Memo
from scholarsite.inputs.records import Details
from scholarsite.inputs.sources import SourceEntry, Sources
from scholarsite.inputs.unicode import normalise
from scholarsite.model import urls
from scholarsite.model.lookups import Checked
from scholarsite.model.model import REMEMBERED_TEXTS, Author, Paper, Site, Subject
from scholarsite.model.naming import PLAIN_TEXT
from scholarsite.tex import render as tex

Card = dict[str, Any]
Entity = TypeVar("Entity")
Value = TypeVar("Value")
Read = tuple[str, str]  # a value read by a page: its kind ("paper", "record"...) and key
Known = Callable[[list[Read]], "dict[Read, tuple[str, str]]"]  # values' last digests: of inputs, of it


@dataclass(frozen=True)
class Unchanged:
    """The papers of a model made from the kept one that are the objects it made (so of seeds
    that did not change, by authors that did not change), by id, the spellings that name
    other authors since (added, gone, or merged again under another slug or with other
    spellings: a paper card links the names of its author list by them),
    and, by key, those papers' texts' digests as the related index has them and their citation
    keys before suffixes."""

    papers: Container[int]
    spellings: frozenset[str]
    texts: Mapping[str, str] = field(default_factory=dict)
    bases: Mapping[str, str] = field(default_factory=dict)
    keys: Mapping[str, str] = field(default_factory=dict)  # their citation keys
    base_url: str | None = None  # the site's when the kept model was (their citation records read it)
    authors: Container[int] = frozenset()  # by id, the authors whose cards' inputs are the kept model's
    listed: Container[Author] = frozenset()  # the authors with the kept model's fields and lists


def nothing_known(reads: list[Read]) -> dict[Read, tuple[str, str]]:
    """No value's last digests are known (a clean build)."""
    return {}


class ReadLog:
    """The values some pages read while they are planned (`reading`): what their keys are made
    of, as far as it is shared (cards, citation records, related lists)."""

    def __init__(self) -> None:
        self.current: set[Read] | None = None

    @contextlib.contextmanager
    def reading(self) -> Iterator[set[Read]]:
        """The values read inside the block."""
        self.current = found = set()
        try:
            yield found
        finally:
            self.current = None


class MadeOnDemand(Mapping[str, Value], Generic[Entity, Value]):
    """Values derived from some entities (their cards, their citation records), by key, each
    made when first asked for and kept: a page planned alone (the preview's open page) makes
    the values it shows, not the collection's. With a `log`, every value asked for is noted
    there as (`kind`, key).

    With `inputs` (what a value is made from, in full), `digest_of` gives a value's digest
    without making it when its inputs are those it had in the last build (`known`: by key,
    the digests of its inputs and of itself, by (kind, key)); the values are `Digested`. An
    entity `unchanged` says is made of what it was then has the digest of its inputs `known`
    gives, without working them out."""

    def __init__(
        self,
        entities: dict[str, Entity],
        make: Callable[[Entity], Value],
        kind: str = "",
        log: ReadLog | None = None,
        inputs: Callable[[Entity], object] | None = None,
        known: Known | None = None,
        unchanged: Callable[[Entity], bool] | None = None,
    ):
        self.entities = entities  # by key: other values of the same entities share it
        self.make = make
        self.made: dict[str, Value] = {}
        self.kind = kind
        self.log = log
        self.inputs = inputs
        self.known = known or nothing_known
        self.unchanged = unchanged  # whether an entity's inputs are known to be its last build's
        self.found: dict[str, tuple[str, str]] = {}  # by key: digests of inputs and value, this build
        self.inputs_found: dict[str, str] = {}  # by key: digests of inputs, this build
        self.lasts: dict[str, tuple[str, str] | None] = {}  # by key: the last build's (`last`), as read

    def __getitem__(self, key: str) -> Value:
        self.note(key)
        return self.value(key)

    def note(self, key: str) -> None:
        """Note in the log that the value of `key` is read (by the pages being planned)."""
        if self.log is not None and self.log.current is not None:
            self.log.current.add((self.kind, key))

    def value(self, key: str) -> Value:
        """The value of `key`, made if not yet (and not noted in the log)."""
        if key not in self.made:
            self.made[key] = self.make(self.entities[key])
        return self.made[key]

    def ref(self, key: str) -> CardRef:
        """The value of `key` as a page holds it while it is planned and keyed (`CardRef`):
        read as `self[key]` is (noted in the log), made only when the page is rendered."""
        self.note(key)
        return CardRef(self, key, self.digest_of(key))

    def digest_of(self, key: str) -> str:
        """The digest of the value of `key`: the last build's when its inputs are the same
        (the value is not made then), else the value's."""
        if (found := self.found.get(key)) is None:
            inputs = self.inputs_digest(key)
            last = self.last(key)
            same = inputs and last is not None and last[0] == inputs and key not in self.made
            found = last if same and last else (inputs, self.value(key).digest)  # type: ignore[attr-defined]
            self.found[key] = found
        return found[1]

    def digests(self) -> dict[str, str]:
        """`digest_of` of every entity but those `unchanged` says are made of what they were in
        the last build (whose digests are the last build's: not worked out, nor read), by key;
        the last build's digests of those worked out read at once (`known` keeps what it read)."""
        unchanged, made = self.unchanged, self.made
        if unchanged is None:
            keys = list(self.entities)
        else:
            keys = [key for key, entity in self.entities.items() if key in made or not unchanged(entity)]
        self.read_last(keys)
        return {key: self.digest_of(key) for key in keys}

    def every_digest(self) -> dict[str, str]:
        """`digest_of` of every entity, by key: those `digests` leaves out (unchanged, not
        made) have the last build's digests, read at once."""
        found = self.digests()
        rest = [key for key in self.entities if key not in found]
        self.read_last(rest)
        for key in rest:
            if (last := self.lasts[key]) is not None and key not in self.made:
                self.found[key], self.inputs_found[key], found[key] = last, last[0], last[1]
            else:  # not kept with its inputs: worked out
                found[key] = self.digest_of(key)
        return found

    @cached_property
    def changed(self) -> frozenset[str] | None:
        """The keys whose value's digest is not the last build's (or that it had none of):
        found among those `unchanged` does not say are made of what they were then; None
        without `unchanged` (any may have changed)."""
        if self.unchanged is None:
            return None
        digests = self.digests()
        self.read_last(digests)
        return frozenset(key for key, digest in digests.items() if (self.lasts[key] or ("", ""))[1] != digest)

    def digests_of(self, keys: list[str]) -> list[str]:
        """`digest_of` of each of these keys, the last build's digests of those not worked out
        yet read at once."""
        self.read_last(key for key in keys if key not in self.found)
        return [self.digest_of(key) for key in keys]

    def inputs_digests(self, keys: list[str]) -> list[str]:
        """`inputs_digest` of each of these keys, the last build's digests read at once."""
        unchanged = self.unchanged
        if unchanged is not None:
            self.read_last(
                key for key in keys if key not in self.inputs_found and unchanged(self.entities[key])
            )
        return [self.inputs_digest(key) for key in keys]

    def read_last(self, keys: Iterable[str]) -> None:
        """Read at once the last build's digests of the values of these keys (`last`)."""
        reads = [(self.kind, key) for key in keys if key not in self.lasts]
        kept = self.known(reads)
        for read in reads:
            self.lasts[read[1]] = kept.get(read)

    def last(self, key: str) -> tuple[str, str] | None:
        """The last build's digests of the value of `key` (of its inputs, of it), if kept."""
        if key not in self.lasts:
            self.read_last([key])
        return self.lasts[key]

    def inputs_digest(self, key: str) -> str:
        """The digest of what the value of `key` is made from ("" without `inputs`), found
        without making the value."""
        if (found := self.inputs_found.get(key)) is None:
            entity = self.entities[key]
            last = self.last(key) if self.unchanged and self.unchanged(entity) else None
            found = last[0] if last else (key_of(self.inputs(entity)) if self.inputs is not None else "")
            self.inputs_found[key] = found
        return found

    def __contains__(self, key: object) -> bool:
        return key in self.entities

    def __iter__(self) -> Iterator[str]:
        return iter(self.entities)

    def __len__(self) -> int:
        return len(self.entities)


class CardRef(Digested, Mapping[str, Any]):
    """A card (`Digested`) a page holds by its digest, made when the page is rendered and
    reads it: a listing page is planned and keyed with its cards' digests, which `digest_of`
    knows without the cards, so a change re-planning a subject's listing of thousands of
    papers makes only the cards of the pages it renders. It reads and pickles as the card."""

    def __init__(self, values: MadeOnDemand[Any, Any], key: str, digest: str):
        self._values, self._key = values, key
        self.__dict__["digest"] = digest  # the card's (`Digested.digest` is cached there)

    @property
    def card(self) -> Card:
        """The card itself, made if not yet."""
        return self._values.value(self._key)

    def __getitem__(self, name: str) -> Any:
        return self.card[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.card)

    def __len__(self) -> int:
        return len(self.card)

    def __eq__(self, other: object) -> bool:
        return self.card == (other.card if isinstance(other, CardRef) else other)

    __hash__ = None  # type: ignore[assignment]  # as the card's (a dict)

    def __reduce_ex__(self, protocol: Any) -> Any:
        return self.card.__reduce_ex__(protocol)


LISTED_ABSTRACT = (
    "a listing's rows know whether a paper has an abstract, not its text (shown on the paper's "
    "page, and fetched from it by the row's toggle); test it, do not print it"
)


class AbstractOnItsPage:
    """A listing row's `abstract` (and `abstract_plain`): true when the paper has one. Listings
    are keyed without the text, so an edited abstract makes none of them again; a template
    printing it there is stopped (TypeError, reported at its line) rather than left stale."""

    def __init__(self, present: bool):
        self.present = present

    def __bool__(self) -> bool:
        return self.present

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbstractOnItsPage) and other.present == self.present

    def __hash__(self) -> int:
        return hash(self.present)

    def __html__(self) -> str:
        raise TypeError(LISTED_ABSTRACT)

    __str__ = __html__


def summary_of(card: Card) -> DigestedDict:
    """What a listing row reads of a paper's card: all of it but the abstract's text
    (`AbstractOnItsPage`)."""
    present = AbstractOnItsPage(bool(card["abstract"]))
    return DigestedDict({**card, "abstract": present, "abstract_plain": present})


def digested(make: Callable[[Entity], Card]) -> Callable[[Entity], DigestedDict]:
    """`make`, its cards `Digested`: never changed once made, each stands for itself in keys."""
    return lambda entity: DigestedDict(make(entity))


def abstract_html(abstract: str) -> Markup:
    """An abstract's paragraphs as `<p>` elements with rendered TeX."""
    paragraphs = [p for p in abstract.split("\n\n") if p.strip()]
    return Markup("").join(Markup("<p>{}</p>").format(tex.tex_to_html(p)) for p in paragraphs)


def arxiv_search_url(title_plain: str) -> str:
    """arXiv's title search for a paper (seeds carry no identifier)."""
    return f"https://arxiv.org/search/?query={quote_plus(title_plain)}&searchtype=title"


def iso_date(text: str) -> datetime.date | None:
    """The date of an ISO text (`2025-02-27`), or None when the text is not one (none, as
    for most papers of a collection without sources.yaml, without raising)."""
    if not text:
        return None
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        return None


def published_dates(sources: Sources) -> dict[str, datetime.date]:
    """The publication date of every paper sources.yaml dates (`Sources.published`), by paper key."""
    dates = {key: iso_date(sources.published(key)) for key in sources.entries}
    return {key: date for key, date in dates.items() if date is not None}


def doi_url(doi: str) -> str:
    """The DOI resolver link of a DOI, percent-encoded (a DOI may hold `"`, `<`, `#`, `?`), or ''."""
    return f"https://doi.org/{quote(doi, safe='/:;()')}" if doi else ""


VENUE_TAGS = {  # the Highwire Press tag naming a venue, by type (else citation_journal_title)
    "conference paper": "citation_conference_title",
    "PhD thesis": "citation_dissertation_institution",
    "master's thesis": "citation_dissertation_institution",
    "report": "citation_technical_report_institution",
    "book": "citation_publisher",
    "chapter": "citation_inbook_title",
}


def url_label(url: str) -> str:
    """What a link to a paper's own address says: its host (`ieeexplore.ieee.org`)."""
    return urlsplit(url).hostname or "Link"


def original_card(entry: SourceEntry | None, details: Details) -> Card | None:
    """What a paper shows of its original: identifiers, venue, type, links and dates, from
    sources.yaml and else from its records' details (dates only when valid; `date` may be a
    year or a month, for citations); None when nothing is known."""
    entry = entry or SourceEntry("unknown")
    published, updated = iso_date(entry.published) or iso_date(details.date), iso_date(entry.updated)
    doi = entry.doi or details.doi
    card = {
        "arxiv_id": entry.arxiv_id,
        "version": entry.version,
        "primary_category": entry.primary_category,
        "doi": doi,
        "journal_ref": entry.journal_ref or details.venue,
        "kind": details.kind,
        "kind_label": details.kind[:1].upper() + details.kind[1:],
        "venue_tag": VENUE_TAGS.get(details.kind, "citation_journal_title"),
        "url": details.url,
        "url_label": url_label(details.url) if details.url else "",
        "abs_url": entry.abs_url,
        "pdf_url": entry.pdf_url,
        "doi_url": doi_url(doi),
        "published": published.isoformat() if published else "",
        "date": published.isoformat() if published else details.date,
        "updated": updated.isoformat() if updated else "",
    }
    known = ("arxiv_id", "doi", "journal_ref", "kind", "url", "date")
    return card if any(card[name] for name in known) else None


# A name of an author list as the collection spells it, remembered: every build reads the
# links of every paper's list (`Cards.paper_inputs`), and a name is in many lists.
spelling_of = lru_cache(maxsize=REMEMBERED_TEXTS)(normalise)


def unique_spellings(authors: list[Author]) -> dict[str, Author]:
    """Each spelling that names one author of the collection only, with that author."""
    owners: dict[str, list[Author]] = {}
    for author in authors:
        for spelling in author.spellings:
            owners.setdefault(spelling, []).append(author)
    return {spelling: found[0] for spelling, found in owners.items() if len(found) == 1}


class Cards:
    """Cards for every author, subject and paper of a site, each made once, when first asked for."""

    def __init__(
        self,
        site: Site,
        memo: Memo | None = None,
        sources: Sources | None = None,
        log: ReadLog | None = None,
        known: Known | None = None,
        unchanged: Unchanged | None = None,
    ):
        self.memo = memo or Memo()
        self.unchanged = unchanged
        self.same_papers = Checked(self.inputs_as_kept)  # asked one by one: the first page asks few
        self.sources = sources or Sources()
        self.site = site
        self.log = log  # the cards pages read, while they are planned
        subjects = {s.code: s for s in site.subjects}
        self.subjects = MadeOnDemand(subjects, digested(self.subject_card), "subject", log)
        authors = {a.key: a for a in site.authors}
        card = digested(self.author_card)
        self.authors = MadeOnDemand(authors, card, "author", log, self.author_inputs, known, self.same_author)
        papers = dict(site.by_key)
        self.papers = MadeOnDemand(
            papers, digested(self.paper_card), "paper", log, self.paper_inputs, known, self.same_inputs
        )
        self.summaries = MadeOnDemand(  # made from the cards, of the same inputs
            papers, self.summary, "summary", log, self.summary_inputs, known, self.same_inputs
        )

    def summary(self, paper: Paper) -> DigestedDict:
        """What a listing row shows of a paper (`summary_of` its card)."""
        return summary_of(self.papers.value(paper.key))

    def summary_inputs(self, paper: Paper) -> str:
        """What a paper's summary is made from: its card's inputs."""
        return self.papers.inputs_digest(paper.key)

    @cached_property
    def by_spelling(self) -> dict[str, Author]:
        """Each spelling that names one author of the collection only, with that author."""
        return unique_spellings(self.site.authors)

    @staticmethod
    def subject_ref(subject: Subject) -> Card:
        """What a paper shows of its subject: nothing that changes when other papers do."""
        return {
            "code": subject.code,
            "name": subject.name,
            "known": subject.info is not None,
            "path": urls.subject(subject.slug),
        }

    @staticmethod
    def author_ref(author: Author) -> Card:
        """What a paper shows of its author: name and link."""
        return {"name": author.name, "path": urls.author(author.slug)}

    @staticmethod
    def subject_card(subject: Subject) -> Card:
        """Code, names and link of a subject."""
        return {
            **Cards.subject_ref(subject),
            "archive": subject.archive_name,
            "count": len(subject.papers),
        }

    @staticmethod
    def author_card(author: Author) -> Card:
        """Name, link and paper count of an author."""
        return {**Cards.author_ref(author), "count": len(author.papers)}

    @staticmethod
    def author_inputs(author: Author) -> tuple[str, str, int]:
        """Everything `author_card` reads (its digest found without making the card)."""
        return author.name, author.slug, len(author.papers)

    @staticmethod
    def author_list(paper: Paper, entry: SourceEntry | None) -> tuple[tuple[str, ...], bool]:
        """The paper's own author list, in order, and whether it is complete: sources.yaml's
        (always complete), else its records' details' (complete unless it ends in et al.)."""
        if entry is not None and entry.authors:
            return entry.authors, True
        return paper.details.authors, bool(paper.details.authors) and not paper.details.more_authors

    @staticmethod
    def author_names(paper: Paper, entry: SourceEntry | None) -> tuple[str, ...]:
        """The names of `author_list`, found without the paper's texts (`Paper.facts`)."""
        return entry.authors if entry is not None and entry.authors else paper.facts.names

    def full_authors(self, paper: Paper, names: tuple[str, ...]) -> list[Card]:
        """Every author of a paper's list in order, when it has one (collection authors with
        their page, others with path ''); else the collection's own authors."""
        if not names:
            return [self.author_ref(a) for a in paper.authors]
        found = [(name, self.person(paper, name)) for name in names]
        return [{"name": name, "path": urls.author(a.slug) if a else ""} for name, a in found]

    def person(self, paper: Paper, name: str) -> Author | None:
        """The collection's author a name of a paper's source list is: one of the paper's own
        authors under any of their spellings (seeds' names, aliases), else the one author of the
        collection so spelled."""
        spelling = spelling_of(name)
        own = (a for a in paper.authors if spelling in a.spellings)
        return next(own, None) or self.by_spelling.get(spelling)

    def title_plain(self, paper: Paper) -> str:
        """A paper's title as plain text (its TeX rendered)."""
        return self.memo.text(PLAIN_TEXT, tex.tex_to_plain, paper.title)

    def abstract_plain(self, paper: Paper) -> str:
        """A paper's abstract as plain text in one paragraph."""
        return self.memo.text(PLAIN_TEXT, tex.tex_to_plain, paper.abstract.replace("\n\n", " "))

    def first_author(self, paper: Paper) -> str:
        """The name its card lists first: of its own author list, else of its collection
        authors (what a citation key starts with, found without making the card)."""
        names = self.author_names(paper, self.sources.of(paper.key))
        return names[0] if names else paper.authors[0].name

    def same_author(self, author: Author) -> bool:
        """Whether `author_inputs` is known to be what it was in the last build (the kept
        model's author, with the same name, slug and number of papers)."""
        return self.unchanged is not None and id(author) in self.unchanged.authors

    def same_inputs(self, paper: Paper) -> bool:
        """Whether `paper_inputs` is known to be what it was in the last build (`same_papers`)."""
        return paper in self.same_papers

    def inputs_as_kept(self, paper: Paper) -> bool:
        """Whether the paper is one the kept model made and the build did not merge again (its
        records, authors and sources.yaml entry the same), and no name of its author list is a
        spelling of an author added or gone (whom the name links to is the same)."""
        unchanged = self.unchanged
        if unchanged is None or id(paper) not in unchanged.papers:
            return False
        return not unchanged.spellings or not self.names_any(paper, unchanged.spellings)

    def names_any(self, paper: Paper, spellings: frozenset[str]) -> bool:
        """Whether a name of the paper's author list is one of `spellings`."""
        names = self.author_names(paper, self.sources.of(paper.key))
        return any(spelling_of(name) in spellings for name in names)

    def paper_inputs(self, paper: Paper) -> tuple[object, ...]:
        """Everything `paper_card` reads, of the paper and of the rest of the site (with the
        code's version, which the build state is of): the card is the same while this is.
        Of the collection's other authors, a card reads only whom each name of its own author
        list links to (an added author changes only the cards whose lists name them)."""
        entry = self.sources.of(paper.key)
        names, _ = self.author_list(paper, entry)
        return (
            paper.key,
            paper.title,
            paper.abstract,
            paper.year,
            paper.slug,
            paper.source,
            paper.details,
            [(s.code, s.name, s.info is not None, s.slug) for s in paper.subjects],
            [(a.name, a.slug, a.spellings) for a in paper.authors],
            entry,
            self.sources.own(paper.key),
            [(name, person.slug if (person := self.person(paper, name)) else "") for name in names],
        )

    def original(self, paper: Paper) -> tuple[Card | None, list[Card], tuple[str, ...], bool]:
        """What a paper's card says of its original (`original_card`), its links (a maintainer
        added), its own author list and whether that is complete (`author_list`): the part of
        the card the data files read, found without making the card."""
        entry, own = self.sources.of(paper.key), self.sources.own(paper.key)
        details = replace(paper.details, kind=own.type) if own and own.type else paper.details
        links = [
            {"kind": link.kind, "url": link.url, "text": link.text} for link in (own.links if own else ())
        ]
        names, complete = self.author_list(paper, entry)
        return original_card(entry, details), links, names, complete

    def paper_card(self, paper: Paper) -> Card:
        """Everything a paper list shows about a paper."""
        memo = self.memo
        title_plain = self.title_plain(paper)
        original, links, names, complete = self.original(paper)
        return {
            "path": urls.paper(paper.year, paper.slug),
            "title": memo.markup("title", tex.tex_to_title_html, paper.title),
            "title_plain": title_plain,
            "abstract": memo.markup("abstract", abstract_html, paper.abstract),
            "abstract_plain": self.abstract_plain(paper),
            "year": paper.year,
            "source": paper.source,
            "subjects": [self.subject_ref(s) for s in paper.subjects],
            "authors": [self.author_ref(a) for a in paper.authors],
            "all_authors": self.full_authors(paper, names),
            "complete": complete,
            "listed": bool(names),  # all_authors is the paper's own list (complete or not)
            "original": original,
            "links": links,
            "arxiv_search": arxiv_search_url(title_plain),
        }

    def paper(self, paper: Paper) -> Card:
        """The card of a paper."""
        return self.papers[paper.key]

    def author(self, author: Author) -> Card:
        """The card of an author."""
        return self.authors[author.key]

    def subject(self, subject: Subject) -> Card:
        """The card of a subject."""
        return self.subjects[subject.code]

    def by_year(self, papers: list[Paper]) -> list[Card]:
        """Papers (already newest first) grouped as [{year, heading, anchor, when, papers}]
        (`when`: what each row says of its date, nothing under a year's heading), each paper
        by its summary (`summary_of`)."""
        groups: list[Card] = []
        for paper in papers:
            if not groups or groups[-1]["year"] != paper.year:
                groups.append(
                    {
                        "year": paper.year,
                        "heading": paper.year,
                        "anchor": f"y{paper.year}",
                        "when": "",
                        "papers": [],
                    }
                )
            groups[-1]["papers"].append(self.summaries.ref(paper.key))
        return groups

    def published(self, paper: Paper) -> str:
        """The publication date (ISO) the paper's card gives (`listings.published`), or '',
        found without making the card: sources.yaml's, else its records' details'."""
        entry = self.sources.of(paper.key)
        date = (entry and iso_date(entry.published)) or iso_date(paper.facts.date)
        return date.isoformat() if date else ""

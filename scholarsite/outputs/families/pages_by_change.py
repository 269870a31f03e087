"""The pages planned again by the change, in a process that builds again (the preview).

A warm process remembers of its last plan (`PagePlans`): the site paths of each entity's pages
and, for every card, citation record and related list, the entities whose pages read it (noted
as the pages are planned: `cards.ReadLog`; a page's key is made of what it reads, so the values
it shares with other pages are in that set). After a change to the seeds alone, the pages of
the papers taken out and put in, of their authors, subjects and years, of every entity whose
pages read a value of theirs, a changed related list or citation key, and the site's own pages
(indexes, What's new) are planned again; every other page keeps its file and its manifest entry
(`carried`: a missed rebuild is ruled out as far as the reads are, extra ones are allowed).

Anything pages read beyond those values (`Basis`: the settings, templates and content pages,
sources.yaml, the co-author network, the spellings that name authors, the BibTeX parts, the
citations inside the collection) changed, or a model merged whole, plans every page, as a
one-shot build does. The random preview test compares every page and every key with a clean
build after each edit.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from scholarsite.inputs.content import Page
from scholarsite.inputs.digests import code_version, key_of
from scholarsite.inputs.sources import Sources
from scholarsite.model.cards import MadeOnDemand, Read, ReadLog
from scholarsite.model.model import Paper
from scholarsite.outputs.families import exports
from scholarsite.outputs.families.pages import HEAD, TAIL, Owner, Planner, keyed, sitemap
from scholarsite.outputs.registry import Output
from scholarsite.outputs.sitedata import SiteData


@dataclass
class Basis:
    """What pages read beyond the values of entities: when any of it changes, every page is
    planned again."""

    settings: str  # the planner's settings, the templates' sources, the content pages
    sources: Sources
    author_pages: dict[str, Page]
    network: object  # the same object while the co-author network is the same (`KeptNetwork`)
    spellings: dict[str, str]  # the slug of the one author each spelling names
    bibtex_parts: int
    citations: tuple[object, ...]  # the citations inside the collection

    def same(self, other: Basis) -> bool:
        """Whether pages read the same as they did in `other`."""
        plain = (self.settings, self.bibtex_parts, self.citations)
        return (
            self.network is other.network
            and plain == (other.settings, other.bibtex_parts, other.citations)
            and self.spellings == other.spellings
            and self.author_pages == other.author_pages
            and self.sources == other.sources
        )


def basis_of(data: SiteData, planner: Planner) -> Basis:
    """What the pages of `data` read beyond the values of entities."""
    return Basis(
        settings=key_of(code_version(), planner.settings, data.templates.sources_digest, data.pages),
        sources=data.sources,
        author_pages=data.author_pages,
        network=data.network,
        spellings={spelling: author.slug for spelling, author in data.cards.by_spelling.items()},
        bibtex_parts=exports.bibtex_parts(len(data.site.authors)),
        citations=(data.impact.cites, data.impact.cited_here),
    )


@dataclass
class PagePlans:
    """What a process remembers of its last plan of the pages."""

    basis: Basis
    mark: object  # the model's change log when planned (`model.warm.Changes`)
    citation_keys: dict[str, str]
    paths: dict[Owner, tuple[str, ...]] = field(default_factory=dict)  # each entity's pages
    readers: dict[Read, set[Owner]] = field(default_factory=dict)  # whose pages read each value
    digests: dict[Read, str] = field(default_factory=dict)  # of each value as they read it


class PagesByChange:
    """One build's pages: those the change may have changed planned again (`outputs`), the
    others carried over (`carried`); `plans` is what the next build remembers once this one is
    in place."""

    def __init__(self, data: SiteData, last: PagePlans | None, log: ReadLog):
        self.data = data
        self.log = log
        self.planner = Planner(data)
        self.order = list(self.planner.owned())
        basis = basis_of(data, self.planner)
        changes = data.site.changes
        self.plans = PagePlans(basis, changes.mark if changes else None, data.citation_keys)
        self.last = last if last is not None and last.basis.same(basis) else None
        self.chosen = self.replanned(self.last) if self.last is not None else None
        if self.last is not None:  # kept (and added to) while the basis holds
            self.plans.readers, self.plans.digests = self.last.readers, self.last.digests
        self.carried = frozenset(
            path for owner, _ in self.order if not self.planned(owner) for path in self.kept(owner)
        )

    def planned(self, owner: Owner) -> bool:
        """Whether `owner`'s pages are planned again."""
        return self.chosen is None or owner in self.chosen

    def kept(self, owner: Owner) -> tuple[str, ...]:
        """The paths of `owner`'s pages in the last plan."""
        assert self.last is not None
        return self.last.paths[owner]

    def replanned(self, last: PagePlans) -> set[Owner] | None:
        """Whose pages the change since `last` may have changed; None: everyone's."""
        changes, (_, related) = self.data.site.changes, self.data.related_lists
        moved = changes.moved(last.mark) if changes is not None else None
        if moved is None or related is None:
            return None
        chosen, reads = touched([*moved[0], *moved[1]])
        reads |= {("related", key) for key in related}
        keys = self.plans.citation_keys
        reads |= {("record", key) for key in keys if last.citation_keys.get(key) != keys[key]}
        for read in reads - self.unchanged(reads, last):
            chosen |= last.readers.get(read, set())
        return chosen | {owner for owner, _ in self.order if owner not in last.paths}

    def values(self) -> dict[str, MadeOnDemand[Any, Any]]:
        """The shared values pages read, by kind (related lists aside: they are not digested)."""
        cards, records = self.data.cards, self.data.records
        return {"paper": cards.papers, "author": cards.authors, "subject": cards.subjects, "record": records}

    def unchanged(self, reads: set[Read], last: PagePlans) -> set[Read]:
        """The values among `reads` that are as the last plan's pages read them (their readers
        need not be planned again: early cutoff)."""
        values = self.values()

        def same(kind: str, key: str) -> bool:
            known = values.get(kind)
            return known is not None and key in known and known[key].digest == last.digests.get((kind, key))

        return {read for read in reads if same(*read)}

    def outputs(self) -> Iterator[Output]:
        """The pages planned again, keyed, then the sitemap of every page."""
        listed: list[str] = []
        for owner, plans in self.order:
            if self.planned(owner):
                with self.log.reading() as reads:
                    made = plans()
                for read in reads if owner not in (HEAD, TAIL) else ():  # those are always planned
                    self.plans.readers.setdefault(read, set()).add(owner)
                paths = tuple(plan.path for plan in made)
                yield from keyed(self.data, self.planner, made)
            else:
                paths = self.kept(owner)
            self.plans.paths[owner] = paths
            listed.extend(paths)
        for kind, values in self.values().items():
            self.plans.digests.update(((kind, key), value.digest) for key, value in values.made.items())
        yield from sitemap(self.data, listed)


def touched(papers: list[Paper]) -> tuple[set[Owner], set[Read]]:
    """The entities whose pages show `papers` (taken out or put in) themselves, with the site's
    own pages, and the values of theirs that other pages read."""
    authors = {author.key for paper in papers for author in paper.authors}
    subjects = {subject.code for paper in papers for subject in paper.subjects}
    owners = {HEAD, TAIL, *(("paper", paper.key) for paper in papers)}
    owners |= {("author", key) for key in authors} | {("subject", code) for code in subjects}
    owners |= {("year", str(paper.year)) for paper in papers}
    reads = {(kind, paper.key) for paper in papers for kind in ("paper", "record")}
    reads |= {("author", key) for key in authors} | {("subject", code) for code in subjects}
    return owners, reads

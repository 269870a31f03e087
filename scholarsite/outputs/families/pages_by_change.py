"""The pages planned again by the change (read sets), in every build but a clean one.

A build notes, as it plans each author's, paper's, subject's and year's pages, the cards,
citation records and related lists they read (`cards.ReadLog`, in `MadeOnDemand`: a page's key
is made of what it reads, and every value it shares with other pages comes from there). The
build state keeps, once the build is complete (`PagePlans`): each entity's page paths, the
digest of every such value, and for each value the entities whose pages read it.

The next build makes every value again and compares digests: it plans again the pages of the
papers whose card changed (and of their authors, subjects and years when the paper's summary,
all its listing rows show, changed: a new paper, or one that moved, is not read by the listings
it joins yet), of whoever read a value whose digest changed or a related list that changed, of
entities new to the site, and the site's own pages (indexes, the papers listing, What's new);
every other page keeps its file and its manifest entry (`carried`; the sync checks each is
intact first). A value that comes out equal stops the change there (early cutoff).

What pages read beyond those values (`basis_of`: the settings, templates, content and author
pages, OpenAlex's figures, the co-author network, the number of BibTeX parts) changed, or the
last plan is not the one of the site's last complete build, and every page is planned. Tests
compare the site and every manifest key with a clean build after random edits, one-shot and in
the preview.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scholarsite.inputs.digests import code_version, key_of
from scholarsite.model.cards import MadeOnDemand, Read, ReadLog
from scholarsite.outputs.coauthors import community_card
from scholarsite.outputs.families import exports
from scholarsite.outputs.families.pages import HEAD, TAIL, Owner, Planner, keyed, sitemap
from scholarsite.outputs.registry import Output
from scholarsite.outputs.sitedata import SiteData
from scholarsite.outputs.templates import TEMPLATE_ERRORS, Templates

if TYPE_CHECKING:
    from scholarsite.inputs.state import BuildState, Value

VALUES_OF = {  # the kinds of values pages read of each kind of entity with pages, keyed as it is
    "paper": ("paper", "summary", "record", "paper data"),
    "author": ("author", "ego"),
    "subject": ("subject",),
}
Readers = Callable[[Iterable[Read]], set[Owner]]  # whose pages read any of some values


def basis_of(data: SiteData, planner: Planner) -> str:
    """A digest of what the pages of `data` read beyond the values of entities."""
    impact = data.impact
    return key_of(
        code_version(),
        planner.settings,
        templates_digest(data.templates),
        data.pages,
        data.author_pages,
        (impact.papers, impact.cites, impact.cited_here, impact.counts),
        exports.bibtex_parts(len(data.site.authors)),
    )


def templates_digest(templates: Templates) -> str:
    """A digest of the templates' sources; one never given before when a template may not be
    read (every page is then planned, and a page using it reports it)."""
    try:
        return templates.sources_digest
    except TEMPLATE_ERRORS:
        return secrets.token_hex(16)


def network_of(data: SiteData) -> str:
    """A digest of the co-author network (its pairs and communities): while it is the same, an
    ego figure changes only with its author and the author cards it shows."""
    network = data.network
    return key_of(network.key, [community_card(community) for community in network.communities])


@dataclass
class PagePlans:
    """What a complete build planned (its `tag`: the inputs' fingerprint it recorded): each
    entity's page paths, and of the values pages read the digests this process knows, the
    others read from the build state (`stored`) when first asked about."""

    tag: str
    basis: str
    network: str  # the co-author network's digest (`network_of`)
    paths: dict[Owner, tuple[str, ...]] = field(default_factory=dict)  # each entity's pages
    values: dict[Read, Value] = field(default_factory=dict)  # (digest, inputs' digest or "") by value
    stored: BuildState | None = None  # where the other values are kept (None: `values` is all)
    absent: set[Read] = field(default_factory=set)  # asked about, not kept

    def fetched(self, reads: list[Read]) -> dict[Read, Value]:
        """The digests kept of these values (of those kept)."""
        values, absent = self.values, self.absent
        wanted = [read for read in reads if read not in values and read not in absent]
        if wanted and self.stored is not None:
            found = self.stored.page_values_of(wanted)
            values.update(found)
            absent.update(read for read in wanted if read not in found)
        return {read: values[read] for read in reads if read in values}

    def known(self, reads: list[Read]) -> dict[Read, tuple[str, str]]:
        """The digests of the inputs of each of these values and of the value (`cards.Known`),
        of those kept with their inputs."""
        return {read: (inputs, digest) for read, (digest, inputs) in self.fetched(reads).items() if inputs}

    def after(self, now: PagePlans, gone: set[Read]) -> PagePlans:
        """These plans once `now` is kept over them (`gone`: the values no page reads now)."""
        values = {read: value for read, value in {**self.values, **now.values}.items() if read not in gone}
        absent = (self.absent - now.values.keys()) | gone
        return PagePlans(now.tag, now.basis, now.network, now.paths, values, self.stored, absent)


class PagesByChange:
    """One build's pages: those the change may have changed planned again (`outputs`), the
    others carried over (`carried`); `plans` and `reads` are what the next build needs once
    this one is complete."""

    def __init__(self, data: SiteData, tag: str, last: PagePlans | None, readers: Readers):
        self.data = data
        self.planner = Planner(data)
        self.order = [owner for owner, _ in self.planner.owned()]  # not their makers: 13 MB at 37,537 papers
        self.plans = PagePlans(tag, basis_of(data, self.planner), network_of(data))
        self.last = last if last is not None and last.basis == self.plans.basis else None
        self.plans.values.update(self.digests(self.values(), every=self.last is None))
        self.chosen = self.replanned(self.last, readers) if self.last is not None else None
        self.reads: dict[Owner, set[Read]] = {}  # of the entities planned (not the site's own)
        self.carried = frozenset(
            path for owner in self.order if not self.planned(owner) for path in self.kept(owner)
        )

    def planned(self, owner: Owner) -> bool:
        """Whether `owner`'s pages are planned again."""
        return self.chosen is None or owner in self.chosen

    def kept(self, owner: Owner) -> tuple[str, ...]:
        """The paths of `owner`'s pages in the last plan."""
        assert self.last is not None
        return self.last.paths[owner]

    def values(self) -> dict[str, MadeOnDemand[Any, Any]]:
        """The digested values pages read, by kind (related lists and ego figures aside)."""
        cards, records = self.data.cards, self.data.records
        return {
            "paper": cards.papers,
            "summary": cards.summaries,
            "author": cards.authors,
            "subject": cards.subjects,
            "record": records,
            "paper data": self.data.paper_data,  # no page reads it: kept for data/papers.json's parts
        }

    def digests(self, values: dict[str, MadeOnDemand[Any, Any]], every: bool = False) -> dict[Read, Value]:
        """The digest, and the digest of its inputs ("": not kept), of every value of `values`
        (`every`: every page is planned, the settings may not be the last build's) or of every
        one but those `unchanged` says are made of what they were in the last build under the
        same settings (their rows in the build state stay as they are)."""
        found: dict[Read, Value] = {}
        for kind, made in values.items():
            digests, inputs = made.every_digest() if every else made.digests(), made.found
            found.update(((kind, key), (digest, inputs[key][0])) for key, digest in digests.items())
        return found

    def gone(self, last: PagePlans) -> set[Read]:
        """The values of the entities `last` planned pages for that are gone (looked for among
        those that own no page now: a collection's entities are not asked about one by one)."""
        values = {**self.values(), "ego": self.data.egos}
        return {
            (kind, key)
            for owner, key in last.paths.keys() - set(self.order)
            for kind in VALUES_OF.get(owner, ())
            if key not in values[kind]
        }

    def egos(self, last: PagePlans) -> None:
        """The ego figures' digests: while the network is the same, the kept ones stand (a
        figure then changes only with its author and the author cards it shows, which are
        read); else each figure's whose inputs are the last build's (`SiteData.egos`) and the
        others' made again."""
        if last.network != self.plans.network:
            self.plans.values.update(self.digests({"ego": self.data.egos}))

    def replanned(self, last: PagePlans, readers: Readers) -> set[Owner]:
        """Whose pages changed since `last` or may have."""
        self.egos(last)
        now = self.plans.values
        before = last.fetched(list(now))
        changed = {
            read for read, (digest, _) in now.items() if read not in before or before[read][0] != digest
        }
        changed |= self.gone(last)
        changed |= {("related", key) for key in self.data.related_lists[1]}
        by_key = self.data.site.by_key
        papers = [by_key[key] for kind, key in changed if kind == "paper" and key in by_key]
        listed = [by_key[key] for kind, key in changed if kind == "summary" and key in by_key]
        chosen = {HEAD, TAIL, *(("paper", paper.key) for paper in papers)}
        chosen |= {("author", author.key) for paper in listed for author in paper.authors}
        chosen |= {("subject", subject.code) for paper in listed for subject in paper.subjects}
        chosen |= {("year", str(paper.year)) for paper in listed}
        return chosen | readers(changed) | {owner for owner in self.order if owner not in last.paths}

    def outputs(self, log: ReadLog) -> Iterator[Output]:
        """The pages planned again, keyed, then the sitemap of every page; what they read is
        noted in `log` and kept in `reads`."""
        listed: list[str] = []
        for owner, plans in self.planner.owned():  # in `order`'s order, each maker made as it comes
            if self.planned(owner):
                with log.reading() as reads:
                    made = plans()
                if owner not in (HEAD, TAIL):  # those are always planned
                    self.reads[owner] = reads
                paths = tuple(plan.path for plan in made)
                yield from keyed(self.data, self.planner, made)
            else:
                paths = self.kept(owner)
            self.plans.paths[owner] = paths
            listed.extend(paths)
        egos = self.data.egos
        self.plans.values.update(
            (("ego", key), (ego.digest, egos.inputs_digest(key))) for key, ego in egos.made.items()
        )
        yield from sitemap(self.data, listed)

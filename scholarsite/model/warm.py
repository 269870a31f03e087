"""The model kept by a process that builds again (the preview), updated by the change.

A paper's merge depends only on the records of its *group* (year and title identity), read in
`build_model`'s order: authors by their first seed path, each author's records in file order.
So after a save only the groups whose records changed are merged again, and only the authors,
subjects and years whose papers changed are counted again; every other object is the last
build's. The result is the model `build_model` makes of the same records (a test compares the
two after random edits), made in time proportional to the change.

Anything else (other author pages' identities, other publication dates, most seeds changed)
is merged whole, as `build_model` does.
"""

from __future__ import annotations

import bisect
import datetime
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from scholarsite.inputs.seeds import AuthorRecord, SeedRecord
from scholarsite.model.lineage import Followed
from scholarsite.model.model import (
    Author,
    Identities,
    Paper,
    PaperIndex,
    PaperOrder,
    Site,
    Subject,
    Year,
    attach,
    build_model,
    fill_author_views,
    legacy_pages,
    merge_authors,
    page_of,
    paper_order,
    redirects_of,
    title_identity,
)
from scholarsite.model.naming import Naming
from scholarsite.model.network import KeptNetwork

Item = TypeVar("Item")
Group = tuple[int, str]  # (year, title identity): the records that merge into papers together
Tally = tuple[str, object]  # ("subject", code) or ("year", year): whose author counts
WHOLE_ABOVE = 0.25  # a change to more than this share of the seeds is merged whole
LOGGED_UPDATES = 32  # updates a derived value can be behind and still follow them (not start again)


@dataclass(frozen=True)
class Mark:
    """A model as a derived value last saw it: the whole merge it grew from, updates since."""

    origin: object
    updates: int


class Changes:
    """What each update of a warm model took out and put in, so that values derived from the
    whole model (related papers) follow the change: `since(mark)` gives the papers gone and
    made since a value was last brought up to `mark`, whichever builds came in between (one
    that failed before the value was updated included)."""

    def __init__(self) -> None:
        self.origin = object()  # a whole merge starts a new log
        self.first = 0  # updates before the oldest kept
        self.steps: list[tuple[list[Paper], list[Paper]]] = []

    @property
    def mark(self) -> Mark:
        """The model as it is now."""
        return Mark(self.origin, self.first + len(self.steps))

    def add(self, gone: list[Paper], made: list[Paper]) -> None:
        """One update's papers out and in (only the last `LOGGED_UPDATES` are kept)."""
        self.steps.append((gone, made))
        if len(self.steps) > LOGGED_UPDATES:
            self.steps.pop(0)
            self.first += 1

    def since(self, mark: object) -> tuple[set[str], list[Paper]] | None:
        """The keys of the papers gone and the papers made (still in the model) since `mark`;
        None when `mark` is of another merge or older than the log: start from the whole model."""
        if not self.follows(mark):
            return None
        gone_keys: set[str] = set()
        made: dict[int, Paper] = {}
        for gone, new in self.steps_since(mark):
            for paper in gone:
                made.pop(id(paper), None)
                gone_keys.add(paper.key)
            made.update((id(paper), paper) for paper in new)
        return gone_keys, list(made.values())

    def moved(self, mark: object) -> tuple[list[Paper], list[Paper]] | None:
        """The papers taken out since `mark` that were in at `mark`, and those put in that are
        still in (a paper put in and taken out again is in neither); None as for `since`."""
        if not self.follows(mark):
            return None
        out: dict[int, Paper] = {}
        made: dict[int, Paper] = {}  # the log holds every paper it names: their ids are theirs
        for gone, new in self.steps_since(mark):
            for paper in gone:
                if made.pop(id(paper), None) is None:
                    out[id(paper)] = paper
            made.update((id(paper), paper) for paper in new)
        return list(out.values()), list(made.values())

    def follows(self, mark: object) -> bool:
        """Whether the log goes back to `mark`."""
        return isinstance(mark, Mark) and mark.origin is self.origin and mark.updates >= self.first

    def steps_since(self, mark: Mark) -> list[tuple[list[Paper], list[Paper]]]:
        """The updates after `mark` (which the log `follows`)."""
        return self.steps[mark.updates - self.first :]


def group_of(record: SeedRecord | Paper) -> Group:
    """The group of a record, or of a paper (its title is its first record's)."""
    return record.year, title_identity(record.title)


@dataclass
class Merged:
    """A model and what merging it again by the change needs: the records it was made of (by
    seed path), each seed's author key, its papers by group. Its objects belong to it: the next
    update changes them in place, so a `Site` made from it is read before the next build."""

    records: dict[str, AuthorRecord]
    keys: dict[str, str]  # seed path -> author key
    authors: dict[str, Author]  # by key
    ordered_authors: list[Author]  # the site's order: by key
    groups: dict[Group, list[Paper]]
    papers: list[Paper]  # in the site's order
    subjects: dict[str, Subject]  # by code
    years: dict[int, Year]
    published: Mapping[str, datetime.date]
    identities: Identities
    changes: Changes
    pages: Counter[str]  # the page path of each paper (as many as papers there)
    with_legacy: list[Paper]  # the papers whose page under the slug rule before is not theirs now, in order
    contested: list[Paper]  # the papers given several abstracts, in order
    by_key: dict[str, Paper]
    tallies: dict[Tally, Counter[str]]  # papers by author key, of each subject and year

    @classmethod
    def of(
        cls,
        records: list[AuthorRecord],
        published: Mapping[str, datetime.date],
        identities: Identities,
        naming: Naming,
    ) -> Merged:
        """The model `build_model` makes, indexed."""
        site = build_model(records, published, identities, naming)
        groups: dict[Group, list[Paper]] = {}
        for paper in site.papers:
            groups.setdefault(group_of(paper), []).append(paper)
        return cls(
            records={record.path: record for record in records},
            keys={path: author.key for author in site.authors for path in author.seed_paths},
            authors={author.key: author for author in site.authors},
            ordered_authors=site.authors,
            groups=groups,
            papers=site.papers,
            subjects={subject.code: subject for subject in site.subjects},
            years={year.year: year for year in site.years},
            published=published,
            identities=identities,
            changes=Changes(),
            pages=Counter(page_of(paper) for paper in site.papers),
            with_legacy=[paper for paper in site.papers if paper.moved],
            contested=site.contested,
            by_key=dict(site.by_key),
            tallies={
                **{("subject", s.code): tally_of(s.papers) for s in site.subjects},
                **{("year", y.year): tally_of(y.papers) for y in site.years},
            },
        )

    def site(self, records: list[AuthorRecord]) -> Site:
        """The model as `build_model` returns it (lists of its own: a reader may sort them)."""
        slugs = {a.slug for a in self.authors.values()} if self.identities.aliases else set()
        return Site(
            redirects=redirects_of(records, self.identities, slugs),
            legacy_pages=legacy_pages(self.with_legacy, self.pages),
            authors=list(self.ordered_authors),
            papers=list(self.papers),
            subjects=sorted(self.subjects.values(), key=lambda s: s.code),
            years=sorted(self.years.values(), key=lambda y: -y.year),
            changes=self.changes,
            pages=self.pages,
            by_key=self.by_key,
            contested=list(self.contested),
        )

    def update(self, now: dict[str, AuthorRecord], changed: list[str], naming: Naming) -> None:
        """Merge again what the seeds `changed` since (`now`: every seed's record, by path)."""
        touched_keys = {self.keys[path] for path in changed if path in self.keys}
        for path in changed:
            self.keys.pop(path, None)
            if path in now:
                self.keys[path] = self.identities.identity(now[path], naming)[0]
                touched_keys.add(self.keys[path])
        self.records = now
        gone_authors = [self.authors.pop(key) for key in touched_keys if key in self.authors]
        touched_seeds = [now[path] for path, key in self.keys.items() if key in touched_keys]
        fresh_authors = {
            a.key: (a, list(own)) for a, own in merge_authors(touched_seeds, self.identities, naming)
        }
        self.authors.update({key: author for key, (author, _) in fresh_authors.items()})
        removed(self.ordered_authors, gone_authors, author_key)
        inserted(self.ordered_authors, (author for author, _ in fresh_authors.values()), author_key)
        groups = {group_of(paper) for author in gone_authors for paper in author.papers}
        groups |= {group_of(record) for _, own in fresh_authors.values() for record in own}
        self.merge_groups(groups, fresh_authors, naming)

    def merge_groups(
        self,
        groups: set[Group],
        fresh_authors: dict[str, tuple[Author, list[SeedRecord]]],
        naming: Naming,
    ) -> None:
        """Merge the papers of `groups` again from their records, and count again what their
        papers, before and after, are part of."""
        gone = [paper for group in groups for paper in self.groups.pop(group, [])]
        gone_ids = {id(paper) for paper in gone}
        kept_members = {
            a.key: a for paper in gone for a in paper.authors if self.authors.get(a.key) is a
        }  # authors listing a group who stay the same objects
        for author in kept_members.values():
            author.papers = [paper for paper in author.papers if id(paper) not in gone_ids]
        members = sorted(
            [*kept_members.values(), *(author for author, _ in fresh_authors.values())],
            key=lambda author: author.seed_paths[0],  # build_model's order of authors
        )
        index = PaperIndex(naming)
        made: list[Paper] = []
        for author in members:
            own = fresh_authors[author.key][1] if author.key in fresh_authors else self.records_of(author)
            for record in own:
                if group_of(record) in groups:
                    paper = index.paper_for(record, author)
                    if not paper.provenance:
                        made.append(paper)
                    attach(paper, record, author, self.subjects)
        for group, papers in index.variants.items():
            self.groups[group] = papers
        touched = {*kept_members.values(), *(a for a, _ in fresh_authors.values())}
        self.replace_papers(gone, made, touched, fresh_authors.keys())
        self.changes.add(gone, made)

    def records_of(self, author: Author) -> Iterable[SeedRecord]:
        """An author's seed records in `build_model`'s order (its seed files by path)."""
        for path in author.seed_paths:
            yield from self.records[path].records

    def replace_papers(
        self, gone: list[Paper], made: list[Paper], authors: set[Author], fresh: Collection[str]
    ) -> None:
        """Put `made` where `gone` were in the site's order, its subjects' and years'; count
        again the authors, subjects and years they are part of (`fresh`: the keys of the
        authors made again)."""
        order = paper_order(self.published)
        touched_subjects = {s.code for p in (*gone, *made) for s in p.subjects}
        touched_years = {p.year for p in (*gone, *made)}
        self.papers = inserted(removed(self.papers, gone, order), made, order)
        self.reindex(gone, made, order)
        for code in touched_subjects:
            subject = self.subjects[code]
            kept = removed(list(subject.papers), [p for p in gone if subject in p.subjects], order)
            subject.papers = inserted(kept, [p for p in made if subject in p.subjects], order)
        for year in touched_years:
            entry = self.years.setdefault(year, Year(year))
            kept = removed(list(entry.papers), [p for p in gone if p.year == year], order)
            entry.papers = inserted(kept, [p for p in made if p.year == year], order)
        for code in touched_subjects:
            subject = self.subjects[code]
            subject.author_counts = self.counted(
                ("subject", code),
                subject.author_counts,
                [p for p in made if code in {s.code for s in p.subjects}],
                [p for p in gone if code in {s.code for s in p.subjects}],
                fresh,
            )
        for year in touched_years:
            entry = self.years[year]
            entry.author_counts = self.counted(
                ("year", year),
                entry.author_counts,
                [p for p in made if p.year == year],
                [p for p in gone if p.year == year],
                fresh,
            )
        self.subjects = {code: s for code, s in self.subjects.items() if s.papers}
        self.years = {year: y for year, y in self.years.items() if y.papers}
        for author in authors:  # every author of `made` is one of them
            fill_author_views(author, order)

    def reindex(self, gone: list[Paper], made: list[Paper], order: PaperOrder) -> None:
        """The papers' page paths, the papers with a legacy page or several abstracts and the
        papers by key, after `gone` were taken out and `made` put in."""
        self.pages.update(page_of(paper) for paper in made)
        self.pages.subtract(page_of(paper) for paper in gone)
        for page in {page_of(paper) for paper in gone}:
            if self.pages[page] <= 0:
                del self.pages[page]
        removed(self.with_legacy, [p for p in gone if p.moved], order)
        inserted(self.with_legacy, [p for p in made if p.moved], order)
        removed(self.contested, [p for p in gone if len(p.versions) > 1], order)
        inserted(self.contested, [p for p in made if len(p.versions) > 1], order)
        for paper in gone:
            if self.by_key.get(paper.key) is paper:
                del self.by_key[paper.key]
        self.by_key.update((paper.key, paper) for paper in made)

    def counted(
        self,
        tally: Tally,
        before: list[tuple[Author, int]],
        made: list[Paper],
        gone: list[Paper],
        fresh: Collection[str],
    ) -> list[tuple[Author, int]]:
        """The author counts of a subject or year (`author_counts` of its papers) after
        `made` were put in and `gone` taken out: its tally changed by theirs (`before`, its
        counts until now, in the same order when the tally is the same, a paper retitled:
        then only the authors made again, `fresh` by key, are put in their former places)."""
        counts = self.tallies.setdefault(tally, Counter())
        added, taken = tally_of(made), tally_of(gone)
        if added == taken:
            now = list(before)
            for key in fresh:
                if count := counts.get(key):
                    at = bisect.bisect_left(now, (-count, key), key=lambda item: (-item[1], item[0].key))
                    now[at] = (self.authors[key], count)
            return now
        counts.update(added)
        counts.subtract(taken)
        for key in [key for key, n in counts.items() if n <= 0]:
            del counts[key]
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        return [(self.authors[key], n) for key, n in ranked]


def tally_of(papers: Iterable[Paper]) -> Counter[str]:
    """How many of `papers` each author lists, by author key."""
    return Counter(a.key for p in papers for a in p.authors)


def removed(items: list[Item], gone: Iterable[Item], order: Callable[[Item], Any]) -> list[Item]:
    """`items` (in `order`, no two alike) without `gone`, each found by bisection."""
    for item in gone:
        at = bisect.bisect_left(items, order(item), key=order)
        if at == len(items) or items[at] is not item:
            raise ValueError(f"{item!r} is not where its order puts it")
        del items[at]
    return items


def inserted(items: list[Item], new: Iterable[Item], order: Callable[[Item], Any]) -> list[Item]:
    """`items` (in `order`) with `new` put in their places."""
    for item in new:
        bisect.insort(items, item, key=order)
    return items


def author_key(author: Author) -> str:
    """The order of a site's authors."""
    return author.key


def same(a: AuthorRecord | None, b: AuthorRecord | None) -> bool:
    """Whether two parses of a seed are the same (a warm cache gives the same object)."""
    return a is b or a == b


class WarmModel:
    """The last build's model, merged again by the change (`build`); empty until the first
    build, and after a build that failed while merging."""

    def __init__(self) -> None:
        self.last: Merged | None = None
        self.changed = False  # whether a build merged anything since the model was last kept
        self.kept: object = None  # what the model was made of when last kept (`model.snapshot`)
        self.lineage = Followed()  # the last lineage made of this model (`model.lineage`)
        self.network = KeptNetwork()  # ... and the last co-author network (`model.network`)

    def build(
        self,
        records: Iterable[AuthorRecord],
        published: Mapping[str, datetime.date],
        identities: Identities,
        naming: Naming,
    ) -> Site:
        """The model `build_model` makes of `records` (same arguments)."""
        records = list(records)
        last, self.last = self.last, None  # not kept if merging fails half-way
        now = {record.path: record for record in records}
        changed = changed_paths(last.records, now) if last is not None else []
        if (
            last is None
            or (last.identities, last.published) != (identities, published)
            or len(changed) > WHOLE_ABOVE * max(len(records), 1)
        ):
            last = Merged.of(records, published, identities, naming)
            self.changed = True
        else:
            last.update(now, changed, naming)
            self.changed |= bool(changed)
        self.last = last
        return last.site(records)


def changed_paths(before: dict[str, AuthorRecord], now: dict[str, AuthorRecord]) -> list[str]:
    """The seeds new, gone or changed."""
    maybe = [
        *(path for path, record in now.items() if before.get(path) is not record),
        *(before.keys() - now.keys()),
    ]
    return [path for path in maybe if not same(before.get(path), now.get(path))]

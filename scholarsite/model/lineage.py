"""Papers whose identity changed: a corrected title keeps the pages the paper had.

A paper's identity is its key (year and normalised title), so a corrected typo makes it another
paper at another URL. The lineage (`inputs.lineage_file`, committed with the project) remembers each
paper's page and its *anchors*, what stays when a title is corrected:

- `arxiv:ID` and `doi:DOI`, from sources.yaml and the records' details;
- `abstract:HASH`, for each (non-empty) abstract its records carry;
- `seed:PATH#N`, for each of its records: the file and the record's place in it, counted from
  the end (seeds list the newest first: a paper added at the top moves no other's place).

A paper new to the lineage takes over the lineage of a paper gone from it when they share an
anchor: identifiers first, then abstracts, then places. Only a one-to-one match counts (two
gone papers with one abstract decide nothing). A gone paper left over is taken in by a paper
that stays when they share an identifier or an abstract (a corrected title that makes two
listings of a paper one); a place alone never decides that, since deleting a record moves
others into its place. The paper then keeps every (key, page) pair it
had: each old page redirects to its page, and sources.yaml's entry under an old key is its.

`updated` is idempotent: a build that reads the lineage it wrote writes the same one, so a
rebuild after a retitle and a clean build of the same committed inputs make the same site.
"""

from __future__ import annotations

import datetime
import weakref
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, replace

from scholarsite.inputs.lineage_file import MAX_ANCHORS, MAX_FORMER, Lineage, is_anchor
from scholarsite.inputs.sources import SourceEntry, Sources
from scholarsite.model import urls
from scholarsite.model.cards import published_dates
from scholarsite.model.model import Paper, Site

LEVELS = (("arxiv", "doi"), ("abstract",), ("seed",))  # anchors tried in turn, strongest first
Anchors = tuple[str, ...]  # sorted
Positions = Mapping[tuple[str, int], int]  # (seed path, record line) -> the record's place in its file


@dataclass
class LastLineage:
    """What `with_lineage` made in the last build of a process that builds again, for the next
    to follow the warm model's change (`model.warm.Changes`) instead of every paper."""

    mark: object  # the model it was made for
    written: dict[str, Lineage]  # the lineage it gave (which lineage.txt then holds)
    sources: Sources
    former: dict[str, str]  # its former keys


@dataclass
class Followed:
    """Where a process that builds again keeps its `LastLineage`."""

    last: LastLineage | None = None


def with_lineage(
    build: Callable[[Mapping[str, datetime.date]], Site],
    sources: Sources,
    before: Mapping[str, Lineage],
    positions: Positions,
    followed: Followed | None = None,
) -> Site:
    """The model `build` makes from publication dates by key, with its lineage: the pages its
    papers had (`moved_papers`), the keys they had (`former_keys`), what lineage.txt keeps next
    (`lineage`). The dates are sources.yaml's with each entry under an old key taken as the
    paper's (built again when a title corrected now changes them).

    With `followed` (the last build's of this process) and a warm model's change, only the
    papers made since are worked out (`by_change`), when that gives what the whole would."""
    dates = published_dates(sources.following(former_keys(before, before)))
    site = build(dates)
    last = followed.last if followed is not None else None
    if last is None or not by_change(site, sources, before, positions, dates, last):
        site = whole_lineage(build, site, sources, before, positions, dates)
    site.moved_papers = former_pages(site.lineage, site)
    site.legacy_pages = {path: p for path, p in site.legacy_pages.items() if path not in site.moved_papers}
    if followed is not None:
        changes = site.changes
        kept = LastLineage(changes.mark, site.lineage, sources, site.former_keys) if changes else None
        followed.last = kept
    return site


def whole_lineage(
    build: Callable[[Mapping[str, datetime.date]], Site],
    site: Site,
    sources: Sources,
    before: Mapping[str, Lineage],
    positions: Positions,
    dates: Mapping[str, datetime.date],
) -> Site:
    """`with_lineage` over every paper: the site (built again when the dates changed) with its
    lineage and former keys."""
    keys = {paper.key for paper in site.papers}
    own = {paper.key: own_anchors(paper, positions) for paper in site.papers}
    lineage = updated(before, site.papers, with_identifiers(own, site.papers, sources))
    followed = sources.following(former_keys(lineage, keys))
    if (now := published_dates(followed)) != dates:
        site = build(now)
    anchors = with_identifiers(own, site.papers, followed)
    site.lineage = {key: with_anchors(line, anchors[key]) for key, line in lineage.items()}
    site.former_keys = former_keys(site.lineage, keys)
    return site


def by_change(
    site: Site,
    sources: Sources,
    before: Mapping[str, Lineage],
    positions: Positions,
    dates: Mapping[str, datetime.date],
    last: LastLineage,
) -> bool:
    """Give `site` its lineage and former keys from the last build's and the papers made since,
    when that is what `whole_lineage` gives: lineage.txt holds what the last build wrote,
    sources.yaml is the same, every paper gone is continued by a new one (one left could be
    taken in by any paper), and the former keys that changed (a corrected title adds one) lead
    to made papers (or gone ones), so no other paper's entry moves. False (nothing done)
    otherwise."""
    change = site.changes.since(last.mark) if site.changes is not None else None
    if change is None or before != last.written or not (sources is last.sources or sources == last.sources):
        return False
    gone_keys, made = change
    made_keys = {paper.key for paper in made}
    own = {paper.key: own_anchors(paper, positions) for paper in made}
    identified = with_identifiers(own, made, sources)
    gone = {key: before[key] for key in gone_keys - made_keys if key in before}
    if len(matches({key: identified[key] for key in made_keys - before.keys()}, gone)) != len(gone):
        return False  # a paper gone and not continued: any paper could take it in
    around = {key: before[key] for key in (gone_keys | made_keys) & before.keys()}
    changed = updated(around, made, identified)
    lineage = dict(before)
    for key in gone_keys:
        lineage.pop(key, None)
    lineage.update(changed)
    keys = lineage.keys()
    former = former_keys(lineage, keys)
    moved_to = {key for old, key in former.items() ^ last.former.items()} & keys  # an entry may follow
    moved = sources.following(former)
    if not moved_to <= made_keys or published_dates(moved) != dates:
        return False
    anchors = with_identifiers(own, made, moved)
    lineage.update((key, with_anchors(lineage[key], anchors[key])) for key in made_keys)
    site.lineage, site.former_keys = lineage, former
    return True


def with_anchors(line: Lineage, anchors: Anchors) -> Lineage:
    """A line with these anchors (the same line when they are its own)."""
    return line if line.anchors == anchors else replace(line, anchors=anchors)


REMEMBERED: weakref.WeakKeyDictionary[Paper, list[str]] = weakref.WeakKeyDictionary()
IDENTIFIED: weakref.WeakKeyDictionary[Paper, tuple[SourceEntry | None, list[str], Anchors]] = (
    weakref.WeakKeyDictionary()
)


def own_anchors(paper: Paper, positions: Positions) -> list[str]:
    """A paper's anchors from its records: each abstract (not an empty one) and each place.

    Remembered while the paper lives: a paper is never changed once its model is made, and a
    model merged again by the change (`model.warm`) keeps only papers whose seeds did not
    change, so their records keep their places."""
    if (found := REMEMBERED.get(paper)) is None:
        found = REMEMBERED[paper] = anchors_of_records(paper, positions)
    return found


def anchors_of_records(paper: Paper, positions: Positions) -> list[str]:
    """What `own_anchors` remembers."""
    found = paper.facts.abstracts
    places = [
        f"seed:{p.path}#{positions[(p.path, p.line)]}"
        for p in paper.provenance
        if (p.path, p.line) in positions
    ]
    return [f"abstract:{digest}" for digest in found] + [place for place in places if is_anchor(place)]


def with_identifiers(
    own: Mapping[str, list[str]], papers: Iterable[Paper], sources: Sources
) -> dict[str, Anchors]:
    """Every paper's anchors by key (sorted, each once): its identifiers, `arxiv:` from its
    `sources` entry and `doi:` from that entry or its records' details, then its `own`; at most
    `MAX_ANCHORS` (a paper a thousand seeds list has a thousand places: the first are kept, so
    lineage.txt always reads back). Remembered while the paper lives, for the same entry."""
    found = {}
    for paper in papers:
        entry = sources.of(paper.key)
        known = IDENTIFIED.get(paper)
        if known is not None and known[1] is own[paper.key] and (known[0] is entry or known[0] == entry):
            found[paper.key] = known[2]
            continue
        dois = {doi.lower() for doi in (entry.doi if entry else "", paper.facts.doi) if doi}
        ids = [f"arxiv:{entry.arxiv_id}"] if entry else []
        ids += [anchor for doi in dois if is_anchor(anchor := f"doi:{doi}")]
        kept = list(dict.fromkeys([*ids, *own[paper.key]]))[:MAX_ANCHORS]  # ids, abstracts, places
        found[paper.key] = tuple(sorted(kept))
        IDENTIFIED[paper] = (entry, own[paper.key], found[paper.key])
    return found


def matches(
    fresh: Mapping[str, Anchors], gone: Mapping[str, Lineage], levels: tuple[tuple[str, ...], ...] = LEVELS
) -> dict[str, str]:
    """New paper key -> the gone paper's key it continues, for one-to-one matches by anchor."""
    found: dict[str, str] = {}
    if not gone:
        return found
    for kinds in levels:
        holders: dict[str, set[str]] = {}
        for old in sorted(gone.keys() - found.values()):
            for anchor in gone[old].anchors:
                if anchor.partition(":")[0] in kinds:
                    holders.setdefault(anchor, set()).add(old)
        pairs = {
            (new, old)
            for new in sorted(fresh.keys() - found.keys())
            for anchor in fresh[new]
            for old in holders.get(anchor, ())
        }
        news, olds = Counter(new for new, _ in pairs), Counter(old for _, old in pairs)
        found.update({new: old for new, old in pairs if news[new] == 1 and olds[old] == 1})
    return found


def updated(
    before: Mapping[str, Lineage], papers: Iterable[Paper], anchors: Mapping[str, Anchors]
) -> dict[str, Lineage]:
    """The lineage after a build of `papers` (with their `anchors` by key): each paper with its
    page, anchors and every (key, page) pair it or the gone paper it continues had. A gone paper
    that shares an identifier or an abstract with a paper that stays (two listings of one paper
    made one by a correction) is taken in by it, its pages too."""
    papers = list(papers)
    keys = {paper.key for paper in papers}
    gone = {key: line for key, line in before.items() if key not in keys}
    continued = matches({key: anchors[key] for key in keys - before.keys()}, gone)
    left = {key: line for key, line in gone.items() if key not in continued.values()}
    merged = matches({key: anchors[key] for key in keys}, left, LEVELS[:2])  # not by place alone
    after = {}
    for paper in papers:
        path = urls.paper(paper.year, paper.slug)
        line = before.get(paper.key)
        if paper.key not in merged and unchanged(line, path, anchors[paper.key]):
            after[paper.key] = line  # as it was: the same page, anchors and former pages
            continue
        origins = [
            before.get(paper.key) or gone.get(continued.get(paper.key, "")),
            left.get(merged.get(paper.key, "")),
        ]
        former = {
            pair for origin in origins if origin for pair in (*origin.former, (origin.key, origin.path))
        }
        former.discard((paper.key, path))
        after[paper.key] = Lineage(paper.key, path, anchors[paper.key], tuple(sorted(former))[:MAX_FORMER])
    return after


def unchanged(line: Lineage | None, path: str, anchors: Anchors) -> bool:
    """Whether a paper's line stays as it is: its page and anchors, and former pages as
    `updated` writes them (each once, not its own page)."""
    return (
        line is not None
        and line.path == path
        and line.anchors == anchors
        and len(set(line.former)) == len(line.former)
        and (line.key, path) not in line.former
    )


def former_keys(lineage: Mapping[str, Lineage], keys: Collection[str]) -> dict[str, str]:
    """Old key -> the key of the paper that had it, for old keys no paper of `keys` has now."""
    return {
        old: line.key
        for line in sorted((line for line in lineage.values() if line.former), key=lambda line: line.key)
        for old, _ in line.former
        if old not in keys
    }


def former_pages(lineage: Mapping[str, Lineage], site: Site) -> dict[str, Paper]:
    """Each page a paper of `site` had that is no paper's page now, with the paper, by path
    (sorted)."""
    found: dict[str, Paper] = {}
    for line in sorted((line for line in lineage.values() if line.former), key=lambda line: line.key):
        paper = site.by_key.get(line.key)
        for _, path in line.former if paper is not None else ():
            if path not in site.pages:
                found.setdefault(path, paper)
    return dict(sorted(found.items()))

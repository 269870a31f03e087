"""The collection's co-author network: who wrote with whom, grouped into communities.

Two authors of the collection are linked when they list a paper in common, weighted by how many
(`Author.coauthors` counts them). Communities follow each author's strongest tie
(`model.communities`), so the same network gives the same communities in every process and
one added author leaves the communities away from it as they were. A community is named after its most central
members (the most papers shared within it) and gets one of `COLOURS` colour classes, chosen
from a hash of its centre's slug so that it keeps its colour while its centre stays, and
differing from those of its closest neighbours where it can. Everything here is linear in
co-author pairs.
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from scholarsite.model.identity import short_hash
from scholarsite.model.model import MAX_TEAM, Author, Paper, Site

COLOURS = 8  # colour classes of the stylesheet (`community-0` ... `community-7`)
AVOIDED = 3  # a community's colour differs from those of the communities it shares most pairs with
NAMED_AFTER = 3  # central members that name a community
EGO_LIMIT = 20  # co-authors drawn in an author's ego network (those with the most shared papers)
STRONGEST = 100  # the pairs with the most shared papers a network keeps (the network page lists them)

Pair = tuple[str, str]  # two author keys, the smaller first


def coauthor_pairs(site: Site) -> dict[Pair, int]:
    """The papers each pair of authors shares, by pair of keys, in key order."""
    pairs = {(a.key, b.key): n for a in site.authors for b, n in a.coauthors if a.key < b.key}
    return dict(sorted(pairs.items()))


@dataclass(eq=False)
class Community:
    """Authors who wrote much together: the most central first."""

    slug: str  # the slug of its most central member (unique: that author is in no other)
    name: str  # 'Ada Lovelace, Charles Babbage and Mary Somerville'
    members: list[Author]
    pairs: int  # co-author pairs inside it
    colour: int = -1  # its colour class, once chosen (`colour_communities`)


def named_after(members: list[Author]) -> str:
    """'A', 'A and B', 'A, B and C' from the first NAMED_AFTER members."""
    names = [a.name for a in members[:NAMED_AFTER]]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def make_community(keys: list[str], authors: Mapping[str, Author], pairs: Mapping[Pair, int]) -> Community:
    """A community of these keys, members by papers shared inside it (then by how many
    co-authors inside, then by key)."""
    inside = set(keys)
    strength: dict[str, int] = dict.fromkeys(keys, 0)
    degree: dict[str, int] = dict.fromkeys(keys, 0)
    count = 0
    for key in keys:
        for coauthor, shared in authors[key].coauthors:
            if coauthor.key in inside:
                strength[key] += shared
                degree[key] += 1
                count += key < coauthor.key
    members = sorted((authors[k] for k in keys), key=lambda a: (-strength[a.key], -degree[a.key], a.key))
    return Community(members[0].slug, named_after(members), members, count)


def colour_communities(
    communities: list[Community], community_of: Mapping[str, Community], pairs: Iterable[Pair]
) -> None:
    """Give each community a colour class: the one its slug hashes to, or the next one that none
    of the `AVOIDED` communities it shares most pairs with has taken before it (in the order of
    their slugs' hashes). Neither order nor choice depends on sizes, so a community keeps its
    colour while its centre and its closest neighbours stay (a proper colouring would not:
    changes would cascade through the whole network)."""
    cross: Counter[tuple[str, str]] = Counter()
    for a, b in pairs:
        first, second = community_of[a].slug, community_of[b].slug
        if first != second:
            cross[first, second] += 1
            cross[second, first] += 1
    nearest: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for (first, second), count in cross.items():
        nearest[first].append((-count, second))
    colours: dict[str, int] = {}
    for community in sorted(communities, key=lambda c: short_hash(c.slug)):
        start = int(short_hash(community.slug), 16) % COLOURS
        avoided = sorted(nearest[community.slug])[:AVOIDED]
        taken = {colours[slug] for _, slug in avoided if slug in colours}
        free = [c % COLOURS for c in range(start, start + COLOURS) if c % COLOURS not in taken]
        community.colour = colours[community.slug] = free[0] if free else start


@dataclass(frozen=True)
class Ego:
    """An author's co-authors as drawn: the most frequent, and the pairs among them."""

    author: Author
    coauthors: list[tuple[Author, int]]  # shown, most shared papers first
    links: list[tuple[int, int, int]]  # (i, j, shared papers) of shown co-authors who wrote together
    more: int  # co-authors not shown


@dataclass(frozen=True)
class Network:
    """The co-author network of a site: its communities (largest first), its `STRONGEST`
    pairs (most shared papers first, then by pair) and how many pairs it has. Who shares how
    many papers is in each author's `coauthors`."""

    communities: list[Community]
    community_of: dict[str, Community]  # by author key
    strongest: list[tuple[Pair, int]]
    pair_count: int
    key: str = field(default="", compare=False)  # a digest of the pairs (the communities' source)
    shares: dict[str, dict[str, int]] = field(default_factory=dict, compare=False, repr=False)

    def shared(self, a: Author, b: Author) -> int:
        """Papers the two authors share (0 when none)."""
        if (found := self.shares.get(a.key)) is None:
            found = self.shares[a.key] = {other.key: n for other, n in a.coauthors}
        return found.get(b.key, 0)

    def ego(self, author: Author, limit: int = EGO_LIMIT) -> Ego:
        """The author's `limit` most frequent co-authors and the pairs among them."""
        shown = author.coauthors[:limit]
        links = [
            (i, j, n)
            for i, (a, _) in enumerate(shown)
            for j, (b, _) in enumerate(shown[i + 1 :], start=i + 1)
            if (n := self.shared(a, b))
        ]
        return Ego(author, shown, links, len(author.coauthors) - len(shown))


def paper_pairs(paper: Paper) -> Iterator[Pair]:
    """The co-author pairs a paper counts in (none when its team is over `MAX_TEAM`)."""
    if len(paper.authors) <= MAX_TEAM:
        keys = sorted(a.key for a in paper.authors)
        yield from ((a, b) for i, a in enumerate(keys) for b in keys[i + 1 :] if a != b)


def pairs_counted(papers: Iterable[Paper]) -> Counter[Pair]:
    """How many of `papers` count in each co-author pair."""
    return Counter(pair for paper in papers for pair in paper_pairs(paper))


def same_people(now: list[Author], before: list[Author]) -> bool:
    """Whether two lists of authors name the same people alike, one by one: key, name and
    slug, what a network shows of its members (an author object never changes them)."""
    return len(now) == len(before) and all(
        a is b or (a.key, a.name, a.slug) == (b.key, b.name, b.slug) for a, b in zip(now, before, strict=True)
    )


@dataclass
class KeptNetwork:
    """The last co-author network a process that builds again made (`network`), of the model
    at `seen`, with its `authors`: the next build's network when the papers taken out
    and put in since count the same co-author pairs and the authors and their names are the
    same (a retitled or rewritten paper, its authors unchanged): then it is that network,
    whose members stand for authors of the same key, name, slug and co-authors."""

    network: Network | None = None
    seen: object = None  # the model's mark (`ChangeLog.mark`) when made or last found the same
    authors: list[Author] = field(default_factory=list)

    def reused(self, site: Site) -> Network | None:
        """The kept network if it is `site`'s (see the class), else None."""
        moved = site.changes.moved(self.seen) if site.changes is not None and self.network else None
        if moved is None:
            return None
        gone, made = moved
        if pairs_counted(gone) != pairs_counted(made) or not same_people(site.authors, self.authors):
            return None
        self.seen = site.changes.mark if site.changes is not None else None
        return self.network

    def keep(self, network: Network, site: Site) -> None:
        """Remember `network`, made of `site`."""
        self.network, self.authors = network, list(site.authors)
        self.seen = site.changes.mark if site.changes is not None else None


def build_network(site: Site, groups: Iterable[list[str]], pairs: dict[Pair, int], key: str = "") -> Network:
    """The network of `site` with the communities `groups` (from `find_communities(pairs)`,
    whose digest is `key`)."""
    authors = {a.key: a for a in site.authors}
    communities = [make_community(keys, authors, pairs) for keys in groups]
    communities.sort(key=lambda c: (-len(c.members), c.slug))
    community_of = {a.key: c for c in communities for a in c.members}
    colour_communities(communities, community_of, pairs)
    strongest = heapq.nsmallest(STRONGEST, pairs.items(), key=lambda item: (-item[1], item[0]))
    return Network(communities, community_of, strongest, len(pairs), key)

"""What the co-author pages read: the network page's communities and pairs, and each author's
ego network, as plain data from the model's `Network` (authors as their cards, so a page's key
costs a digest per card, and a figure's key changes only when what it draws does)."""

from __future__ import annotations

from typing import Any

from scholarsite.model.cards import Card, Cards
from scholarsite.model.model import Author, Site
from scholarsite.model.network import Community, Network

COMMUNITIES_LISTED = 200  # on the network page, the largest (pages stay under 1 MB)
MEMBERS_LISTED = 100  # members named per community there (the most central) ...
MEMBERS_ON_PAGE = 2000  # ... fewer when many communities share the page, down to
MEMBERS_AT_LEAST = 5


def community_card(community: Community) -> Card:
    """Name, most central member, colour class and anchor (on the network page) of a
    community: what an ego figure shows of it (not its size, which changes with any member)."""
    return {
        "slug": community.slug,
        "name": community.name,
        "lead": community.members[0].name,
        "colour": community.colour,
        "anchor": f"community-{community.slug}",
    }


class CoauthorViews:
    """The network's communities as cards, built once, and the views pages read."""

    def __init__(self, network: Network, cards: Cards, site: Site):
        self.network = network
        self.cards = cards
        self.site = site
        self.communities = {c.slug: community_card(c) for c in network.communities}

    def community(self, author: Author) -> Card:
        """The card of an author's community (the author has a co-author)."""
        return self.communities[self.network.community_of[author.key].slug]

    def ego(self, author: Author) -> Card | None:
        """What an author's ego-network figure draws, None without co-authors: the co-authors
        grouped by community (the author's own first, then those with most co-authors shown),
        each group by shared papers; the pairs among them by position."""
        ego = self.network.ego(author)
        if not ego.coauthors:
            return None
        own = self.network.community_of[author.key]
        shown: dict[str, int] = {}
        for coauthor, _ in ego.coauthors:
            slug = self.network.community_of[coauthor.key].slug
            shown[slug] = shown.get(slug, 0) + 1
        rank = {slug: (slug != own.slug, -count, slug) for slug, count in shown.items()}
        order = sorted(
            range(len(ego.coauthors)),
            key=lambda i: rank[self.network.community_of[ego.coauthors[i][0].key].slug],
        )
        position = {old: new for new, old in enumerate(order)}
        return {
            "name": author.name,
            "community": self.community(author),
            "nodes": [
                {
                    "author": self.cards.author(ego.coauthors[i][0]),
                    "shared": ego.coauthors[i][1],
                    "community": self.community(ego.coauthors[i][0]),
                }
                for i in order
            ],
            "links": sorted(tuple(sorted((position[i], position[j]))) + (n,) for i, j, n in ego.links),
            "more": ego.more,
        }

    def index(self) -> dict[str, Any]:
        """The network page's reads: the largest communities with their most central members,
        the pairs with the most shared papers, and the counts."""
        network = self.network
        listed = network.communities[:COMMUNITIES_LISTED]
        named = max(MEMBERS_AT_LEAST, min(MEMBERS_LISTED, MEMBERS_ON_PAGE // max(1, len(listed))))
        by_key = {a.key: a for a in self.site.authors}
        pairs = []
        for (a, b), shared in network.strongest:
            same = network.community_of[a] is network.community_of[b]
            pairs.append(
                {
                    "first": self.cards.author(by_key[a]),
                    "second": self.cards.author(by_key[b]),
                    "shared": shared,
                    "community": self.community(by_key[a]) if same else None,
                }
            )
        return {
            "communities": [
                {
                    "card": self.communities[c.slug],
                    "size": len(c.members),
                    "pairs": c.pairs,
                    "members": [
                        {"author": self.cards.author(a), "coauthors": len(a.coauthors)}
                        for a in c.members[:named]
                    ],
                    "more": max(0, len(c.members) - named),
                }
                for c in listed
            ],
            "community_count": len(network.communities),
            "unlisted_authors": sum(len(c.members) for c in network.communities[COMMUNITIES_LISTED:]),
            "pairs": pairs,
            "pair_count": network.pair_count,
            "linked": len(network.community_of),
            "alone": len(self.site.authors) - len(network.community_of),
        }

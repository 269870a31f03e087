"""Communities of the co-author network: Louvain's method (networkx) with a fixed seed, in
each connected component, on a graph built in key order, so the same pairs give the same
communities in every process, and one added author leaves those away from it as they were.

Apart from `model.network` because networkx takes a tenth of a second to import: a build asks
for communities only when the co-author pairs changed (they are kept in the memo by a digest of
the pairs), so most builds never import it.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Mapping

import networkx as nx

from scholarsite.model.identity import short_hash
from scholarsite.model.network import Pair

SEED = 21  # Louvain's random state: fixed, so communities are the same in every build


def components(pairs: Mapping[Pair, int]) -> list[tuple[list[str], list[tuple[str, str, int]]]]:
    """Each connected component of the network: its keys and weighted edges, in key order."""
    graph = nx.Graph()
    graph.add_edges_from(pairs)
    component_of = {}
    found = sorted(sorted(keys) for keys in nx.connected_components(graph))
    for number, keys in enumerate(found):
        component_of.update(dict.fromkeys(keys, number))
    edges: list[list[tuple[str, str, int]]] = [[] for _ in found]
    for (a, b), shared in pairs.items():
        edges[component_of[a]].append((a, b, shared))
    return list(zip(found, edges, strict=True))


class KeyedOrder(random.Random):
    """Louvain's random state: it visits nodes in an order drawn once per node, from a hash of
    the node's name and `SEED`. A seeded shuffle of the node list would redraw every node's
    place when one node is added, and so move communities all over the network; here an added
    author takes a place of its own and leaves the others' order as it was."""

    def shuffle(self, x: list[object]) -> None:  # type: ignore[override]
        """Put `x` in the hash order of its items (the only draw Louvain makes)."""
        x.sort(key=lambda node: short_hash(f"{SEED}\0{node}"))


def louvain(graph: nx.Graph) -> list[list[str]]:
    """Louvain's communities of a connected graph of author keys, level by level: each level
    is networkx's (one level of local moves, nodes visited in `KeyedOrder`), then the groups
    become the nodes of the next level's graph, each named after its smallest key (networkx
    would number them in the order found, which one added author changes everywhere), until
    a level merges nothing."""
    members = {node: [node] for node in graph}
    while True:
        level = nx.community.louvain_communities(graph, weight="weight", seed=KeyedOrder(SEED), max_level=1)
        if len(level) == graph.number_of_nodes():
            return sorted(sorted(keys) for keys in members.values())
        name = {node: min(group) for group in level for node in group}
        merged: dict[str, list[str]] = defaultdict(list)
        for node, keys in members.items():
            merged[name[node]] += keys
        weights: Counter[tuple[str, str]] = Counter()
        for a, b, weight in graph.edges(data="weight"):
            weights[min(name[a], name[b]), max(name[a], name[b])] += weight
        graph = nx.Graph()
        graph.add_nodes_from(sorted(merged))
        graph.add_weighted_edges_from((a, b, w) for (a, b), w in sorted(weights.items()))
        members = merged


def find_communities(pairs: Mapping[Pair, int]) -> list[list[str]]:
    """Groups of author keys (each sorted, the groups too) with many shared papers inside:
    Louvain's communities in each connected component (a pair alone is one community)."""
    groups = []
    for keys, edges in components(pairs):
        if len(keys) <= 2:
            groups.append(keys)
            continue
        graph = nx.Graph()
        graph.add_nodes_from(keys)
        graph.add_weighted_edges_from(edges)
        groups += louvain(graph)
    return sorted(groups)

"""The co-author network: pairs, communities (deterministic, named, coloured), ego networks and
the figure's layout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from itertools import combinations, pairwise
from pathlib import Path

import pytest

from scholarsite.inputs.seeds import AuthorRecord, SeedRecord
from scholarsite.model import communities, network
from scholarsite.model.cards import Cards
from scholarsite.model.model import Site, build_model
from scholarsite.outputs import coauthors, egofigure

from .test_model import shipped_site

ROOT = Path(__file__).resolve().parent.parent

# Read off the two shipped seeds by hand: the titles both list (and nothing else is shared).
SHIPPED_SHARED_TITLES = {
    "FLUX: Fast Software-based Communication Overlap On GPUs Through Kernel Fusion",
    "Comet: Fine-grained Computation-communication Overlapping for Mixture-of-Experts",
    "MegaScale-MoE: Large-Scale Communication-Efficient Training of Mixture-of-Experts Models in Production",
    "TileLink: Generating Efficient Compute-Communication Overlapping Kernels using Tile-Centric Primitives",
    "Triton-distributed: Programming Overlapping Kernels on Distributed AI Systems with the Triton Compiler",
    "DisagMoE: Computation-Communication overlapped MoE Training via Disaggregated AF-Pipe Parallelism",
}
SHIPPED_PAIRS = {("ningxin zheng", "ziheng jiang"): 6}


def collection(teams: dict[str, list[str]]) -> Site:
    """A site where each paper title is listed by the authors of its team."""
    listed: dict[str, list[SeedRecord]] = {}
    for line, (title, team) in enumerate(sorted(teams.items()), start=9):
        for name in team:
            path = f"seeds/{name}.txt"
            listed.setdefault(name, []).append(SeedRecord("arXiv", 2024, title, "A.", ("cs.DC",), path, line))
    return build_model(AuthorRecord(n, f"seeds/{n}.txt", 3, None, False, tuple(r)) for n, r in listed.items())


def two_cliques() -> Site:
    """Two groups of four who wrote much together, joined by one paper; and a pair apart."""
    teams = {f"left {i}": ["Ann", "Bob", "Cat", "Dan"] for i in range(3)}
    teams |= {f"right {i}": ["Eve", "Fay", "Gus", "Hal"] for i in range(3)}
    teams |= {"bridge": ["Dan", "Eve"], "apart": ["Ivy", "Jon"], "alone": ["Kim"]}
    teams |= {"Ann again": ["Ann", "Bob"], "Ann and Cat": ["Ann", "Cat"]}
    return collection(teams)


def test_the_shipped_pairs_are_the_hand_checked_list() -> None:
    site = shipped_site()
    assert network.coauthor_pairs(site) == SHIPPED_PAIRS
    assert {p.title for p in site.shared_papers} == SHIPPED_SHARED_TITLES


def test_pairs_count_shared_papers_once_per_pair() -> None:
    site = two_cliques()
    pairs = network.coauthor_pairs(site)
    assert pairs[("ann", "bob")] == 4
    assert pairs[("dan", "eve")] == 1
    assert ("kim", "kim") not in pairs and not any("kim" in pair for pair in pairs)
    assert list(pairs) == sorted(pairs)


def test_dense_groups_are_communities_and_components_stay_apart() -> None:
    site = two_cliques()
    groups = communities.find_communities(network.coauthor_pairs(site))
    assert groups == [["ann", "bob", "cat", "dan"], ["eve", "fay", "gus", "hal"], ["ivy", "jon"]]


def test_communities_are_named_after_their_most_central_members_and_coloured_apart() -> None:
    site = two_cliques()
    pairs = network.coauthor_pairs(site)
    built = network.build_network(site, communities.find_communities(pairs), pairs)
    left = built.community_of["ann"]
    assert [a.name for a in left.members] == ["Ann", "Bob", "Cat", "Dan"]  # Ann shares most inside
    assert left.name == "Ann, Bob and Cat" and left.slug == "ann" and left.pairs == 6
    assert built.community_of["ivy"].name == "Ivy and Jon"
    assert "kim" not in built.community_of
    assert built.community_of["dan"].colour != built.community_of["eve"].colour  # they touch
    assert all(0 <= c.colour < network.COLOURS for c in built.communities)
    assert [len(c.members) for c in built.communities] == [4, 4, 2]


def test_an_ego_network_shows_the_most_frequent_coauthors_and_their_pairs() -> None:
    site = two_cliques()
    pairs = network.coauthor_pairs(site)
    built = network.build_network(site, communities.find_communities(pairs), pairs)
    dan = next(a for a in site.authors if a.key == "dan")
    ego = built.ego(dan)
    assert [(a.name, n) for a, n in ego.coauthors] == [("Ann", 3), ("Bob", 3), ("Cat", 3), ("Eve", 1)]
    names = [a.name for a, _ in ego.coauthors]
    assert {(names[i], names[j], n) for i, j, n in ego.links} == {
        ("Ann", "Bob", 4),
        ("Ann", "Cat", 4),
        ("Bob", "Cat", 3),
    }
    small = built.ego(dan, limit=2)
    assert len(small.coauthors) == 2 and small.more == 2 and small.links == [(0, 1, 4)]


def test_a_network_keeps_its_strongest_pairs_and_answers_any_pair_from_the_authors() -> None:
    site = two_cliques()
    pairs = network.coauthor_pairs(site)
    built = network.build_network(site, communities.find_communities(pairs), pairs)
    by_key = {a.key: a for a in site.authors}
    assert built.pair_count == len(pairs)
    assert built.strongest == sorted(pairs.items(), key=lambda item: (-item[1], item[0]))[: network.STRONGEST]
    for (a, b), shared in pairs.items():
        assert built.shared(by_key[a], by_key[b]) == built.shared(by_key[b], by_key[a]) == shared
    assert built.shared(by_key["ann"], by_key["kim"]) == 0


COMMUNITIES_SCRIPT = """
import json, sys
from benchmarks.corpus import make_corpus
from scholarsite.model import communities, network
corpus = make_corpus(120, 600, seed=4)
pairs = {}
for paper in corpus.papers:
    for a, b in __import__("itertools").combinations(sorted(corpus.names[i] for i in paper.authors), 2):
        pairs[(a, b)] = pairs.get((a, b), 0) + 1
print(json.dumps(communities.find_communities(dict(sorted(pairs.items())))))
"""


def test_communities_are_the_same_in_every_process() -> None:
    """Communities depend on keys and shared papers alone: string hashing (which differs
    between processes) changes nothing."""
    found = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
        out = subprocess.run(
            [sys.executable, "-c", COMMUNITIES_SCRIPT], env=env, capture_output=True, text=True, check=True
        )
        found.append(json.loads(out.stdout))
    assert found[0] == found[1]
    assert len(found[0]) > 2  # a real partition, not one group


def test_a_chain_of_follows_is_one_community_and_equal_ties_follow_the_more_central() -> None:
    """Each author of a line shares more with the next, who shares more in all: every one
    follows the next, up to the last, who leads them all (20,000 long: each chain is walked
    once). The line's first author shares one paper with the next and one with B, who shares
    more in all (with C): of equal ties the more central is followed, so it joins B and C."""
    keys = [f"a{n:05d}" for n in range(20_000)]
    pairs: dict[network.Pair, int] = {(a, b): n + 1 for n, (a, b) in enumerate(pairwise(keys))}
    pairs |= {("a00000", "b"): 1, ("b", "c"): 5}
    assert communities.find_communities(dict(sorted(pairs.items()))) == [["a00000", "b", "c"], keys[1:]]


def corpus_pairs(authors: int, papers: int, seed: int) -> dict[network.Pair, int]:
    """The co-author pairs of a generated collection, as `coauthor_pairs` gives them."""
    from benchmarks.corpus import make_corpus

    corpus = make_corpus(authors, papers, seed=seed)
    pairs: dict[network.Pair, int] = {}
    for paper in corpus.papers:
        for pair in combinations(sorted({corpus.names[i] for i in paper.authors}), 2):
            pairs[pair] = pairs.get(pair, 0) + 1
    return dict(sorted(pairs.items()))


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_an_added_author_moves_only_the_communities_within_two_ties_of_them(seed: int) -> None:
    """Whom an author follows depends on their own ties and their co-authors' totals, which
    an added author changes only for their co-authors: so every community with no member
    within two ties of the newcomer is found again as it was (Louvain moved every one here)."""
    pairs = corpus_pairs(300, 900, seed)
    before = communities.find_communities(pairs)
    joined = list(list(pairs)[len(pairs) // 2])  # two co-authors
    after = communities.find_communities(
        dict(sorted({**pairs, **{tuple(sorted(("newcomer", key))): 2 for key in joined}}.items()))
    )
    near = {"newcomer", *joined}
    near |= {b if a in near else a for a, b in pairs if a in near or b in near}
    kept = [group for group in before if not near & set(group)]
    assert kept and all(group in after for group in kept)
    assert len(kept) < len(before)  # the newcomer did move some


def ego_card(names: list[str], links: list[tuple[int, int, int]] = ()) -> dict:
    """An ego-network card as `CoauthorViews.ego` makes it."""
    community = {"slug": "x", "name": "X", "lead": "X", "colour": 2, "anchor": "community-x"}
    nodes = [
        {
            "author": {"name": n, "path": f"authors/{i}/index.html", "count": 1},
            "shared": i + 1,
            "community": community,
        }
        for i, n in enumerate(names)
    ]
    return {"name": "Ego Author", "community": community, "nodes": nodes, "links": list(links), "more": 0}


def test_labels_never_overlap_and_stay_outside_the_lines() -> None:
    names = [f"Co-author number {i} with a rather long family name" for i in range(20)]
    fig = egofigure.layout(ego_card(names, [(0, 19, 1), (3, 4, 2)]))
    nodes = fig["nodes"]
    rows = [n["label_y"] for n in nodes]
    assert all(b - a >= egofigure.FONT for a, b in combinations(rows, 2))  # one row per label
    for node in nodes:
        assert node["label_x"] > node["x"]  # right of its node: every line ends at a node's left
        width = egofigure.text_width(node["label"] + node["count"])
        assert node["label_x"] + width <= fig["width"] - egofigure.MARGIN + 0.01
        assert node["label"].endswith("…")
    assert fig["height"] >= nodes[-1]["y"] + egofigure.ROW
    assert [row["partners"] for row in fig["rows"]][0] == [fig["rows"][19]["author"]]


def test_the_figure_draws_each_line_once_in_few_elements() -> None:
    names = [f"Co-author {i}" for i in range(20)]
    fig = egofigure.layout(ego_card(names, [(0, 19, 1), (3, 4, 2)]))
    nodes = fig["nodes"]
    assert fig["links"].count("M") == 2 and f"M{nodes[0]['x']} {nodes[0]['y']}L" in fig["links"]
    ends = [end for spoke in fig["spokes"] for end in spoke["path"].split("M")[1:]]
    assert sorted(end.split("L")[1] for end in ends) == sorted(f"{n['x']} {n['y']}" for n in nodes)
    widths = [spoke["width"] for spoke in fig["spokes"]]
    assert widths == sorted(widths) and len(widths) <= 7 and widths[-1] == egofigure.WIDEST_SPOKE
    assert [n for group in fig["groups"] for n in group["nodes"]] == nodes


def test_short_names_are_whole_and_wide_characters_count_double() -> None:
    assert egofigure.fit("Ada Lovelace", 200) == "Ada Lovelace"
    assert egofigure.text_width("张伟") == 2 * egofigure.FONT
    assert egofigure.text_width("ab") == 2 * 0.6 * egofigure.FONT
    cut = egofigure.fit("张伟张伟张伟张伟张伟", 5 * egofigure.FONT)
    assert cut.endswith("…") and egofigure.text_width(cut) <= 5 * egofigure.FONT


def test_the_network_page_lists_the_largest_communities_within_its_bounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    site = two_cliques()
    pairs = network.coauthor_pairs(site)
    built = network.build_network(site, communities.find_communities(pairs), pairs)
    monkeypatch.setattr(coauthors, "COMMUNITIES_LISTED", 2)
    monkeypatch.setattr(coauthors, "MEMBERS_ON_PAGE", 6)
    monkeypatch.setattr(coauthors, "MEMBERS_AT_LEAST", 1)
    index = coauthors.CoauthorViews(built, Cards(site), site).index()
    assert [(c["size"], len(c["members"]), c["more"]) for c in index["communities"]] == [(4, 3, 1), (4, 3, 1)]
    assert index["community_count"] == 3 and index["unlisted_authors"] == 2  # Ivy and Jon
    assert index["linked"] == 10 and index["alone"] == 1 and index["pair_count"] == len(pairs) == 14
    top = [(p["first"]["name"], p["second"]["name"], p["shared"]) for p in index["pairs"][:2]]
    assert top == [("Ann", "Bob", 4), ("Ann", "Cat", 4)]
    across = [p for p in index["pairs"] if p["community"] is None]
    assert [(p["first"]["name"], p["second"]["name"]) for p in across] == [("Dan", "Eve")]

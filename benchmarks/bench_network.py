"""The co-author network's cost, in process: pairs, communities, views, keys, layout, render.

    python benchmarks/bench_network.py --authors 1000 --papers 10000 [--repeats 3] [--json OUT]

Builds the model of a `benchmarks.corpus` collection from its records (no seed text is parsed:
that is the build's cost, not the network's), then times each part the network adds to a
build, median of `--repeats`: the co-author pairs, the communities (what the memo saves
when no pair changed, and what reading them back from it costs), naming and colouring them,
the views every author page and the network page read, those reads' keys, the figures' layout
and their rendering (the partial alone, for every author), and the network page. Then one seed
is added as `bench_build.py` adds it (a newcomer with a new paper and an existing one) and it
counts the ego figures whose reads changed: the author pages the network makes again.

The corpus's teams are drawn at random, so its network has no communities to find (Louvain's
method, used before, was unstable on such a graph: one more node moved every other).
`--clustered N` redraws each paper's co-authors from its first author's group of N (one in
twenty from anywhere), a network with communities as collections of labs have, to count what
adding a seed changes there. Prints a Markdown table and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_build import NEWCOMER, Changes  # noqa: E402
from benchmarks.corpus import Corpus, Seed, make_corpus  # noqa: E402
from scholarsite.inputs.config import Config  # noqa: E402
from scholarsite.inputs.digests import key_of  # noqa: E402
from scholarsite.inputs.seeds import AuthorRecord, SeedRecord  # noqa: E402
from scholarsite.model import urls  # noqa: E402
from scholarsite.model.cards import Cards  # noqa: E402
from scholarsite.model.communities import find_communities  # noqa: E402
from scholarsite.model.model import Author, Site, build_model  # noqa: E402
from scholarsite.model.network import Network, build_network, coauthor_pairs  # noqa: E402
from scholarsite.outputs import egofigure  # noqa: E402
from scholarsite.outputs.coauthors import CoauthorViews  # noqa: E402
from scholarsite.outputs.families import pages  # noqa: E402
from scholarsite.outputs.sitedata import SiteData  # noqa: E402
from scholarsite.outputs.templates import Templates  # noqa: E402

PARTIAL = "partials/ego_network.html"


class AuthorCards:
    """The author cards the network's views show (the build's `Cards` also renders every paper's
    TeX, which is not the network's cost), with their digests as the build keeps them."""

    def __init__(self, site: Site):
        self.cards = {a.key: Cards.author_card(a) for a in site.authors}

    def author(self, author: Author) -> dict[str, Any]:
        return self.cards[author.key]

    def digests(self) -> dict[int, str]:
        return {id(card): key_of(card) for card in self.cards.values()}


def records(corpus: Corpus, extra: list[tuple[str, list[int]]] = ()) -> list[AuthorRecord]:
    """The corpus's seeds as parsed records (and `extra` seeds: name, paper numbers)."""
    listed = [(corpus.names[s.author], list(s.papers)) for s in corpus.seeds] + list(extra)
    found = []
    for number, (name, numbers) in enumerate(listed):
        path = f"seeds/{number:06d}.txt"
        papers = [corpus.papers[i] for i in numbers]
        found.append(
            AuthorRecord(
                name,
                path,
                3,
                len(papers),
                False,
                tuple(SeedRecord("arXiv", p.year, p.title, p.abstract, p.subjects, path, 9) for p in papers),
            )
        )
    return found


def clustered(corpus: Corpus, group: int, seed: int = 1) -> Corpus:
    """The corpus with each paper's co-authors redrawn from its first author's group of `group`
    authors, one in twenty from anywhere (teams keep their sizes)."""
    rng, count = random.Random(seed), len(corpus.names)
    papers, listed = [], [[] for _ in corpus.names]
    for paper in corpus.papers:
        first = paper.authors[0]
        start = first - first % group
        team = {first}
        while len(team) < len(paper.authors):
            anywhere = rng.random() < 0.05
            team.add(rng.randrange(count) if anywhere else min(start + rng.randrange(group), count - 1))
        papers.append(replace(paper, authors=tuple(sorted(team))))
        for member in team:
            listed[member].append(paper.number)
    seeds = [Seed(f"{i:06d}.txt", i, tuple(found), len(found)) for i, found in enumerate(listed) if found]
    return Corpus(corpus.names, papers, seeds)


def timed(repeats: int, work: Callable[[], Any]) -> tuple[float, Any]:
    """Median seconds of `repeats` runs of `work`, and its last result."""
    seconds, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = work()
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds), result


def ego_reads(site: Site) -> tuple[Network, CoauthorViews, dict[str, Any]]:
    """The network of `site`, its views, and every author's ego-figure reads by author key."""
    pairs = coauthor_pairs(site)
    network = build_network(site, find_communities(pairs), pairs)
    views = CoauthorViews(network, AuthorCards(site), site)  # type: ignore[arg-type]
    return network, views, {a.key: views.ego(a) for a in site.authors}


def measure(authors: int, papers: int, repeats: int, group: int | None) -> dict[str, Any]:
    """Every figure of the table, by row name."""
    corpus = make_corpus(authors, papers)
    corpus = clustered(corpus, group) if group else corpus
    site = build_model(records(corpus))
    figures: dict[str, Any] = {"authors": len(site.authors), "papers": len(site.papers)}
    figures["pairs"], pairs = timed(repeats, lambda: coauthor_pairs(site))
    figures["communities"], groups = timed(repeats, lambda: find_communities(pairs))
    saved = json.dumps(groups, ensure_ascii=False, separators=(",", ":"))
    figures["communities from the memo"], _ = timed(repeats, lambda: json.loads(saved))
    figures["name and colour"], network = timed(repeats, lambda: build_network(site, groups, pairs))
    cards = AuthorCards(site)
    views = CoauthorViews(network, cards, site)  # type: ignore[arg-type]
    figures["views (every ego, the network page)"], egos = timed(
        repeats, lambda: ([views.ego(a) for a in site.authors], views.index())
    )
    egos, index = egos
    known = cards.digests()
    figures["keys of those reads"], _ = timed(repeats, lambda: [key_of(e, known=known) for e in egos])
    drawn = [(a, e) for a, e in zip(site.authors, egos, strict=True) if e is not None]
    figures["layout"], _ = timed(repeats, lambda: [egofigure.layout(e) for _, e in drawn])
    templates = Templates(Path("/nonexistent-project/templates"), {})
    partial = templates.env.get_template(PARTIAL)

    def render_all() -> list[str]:
        return [partial.render(ego=e, page_path=urls.author(a.slug)) for a, e in drawn]

    figures["render the figures"], rendered = timed(repeats, render_all)
    data = SiteData(site, Config(), [], {}, templates, {})
    data.__dict__["cards"], data.__dict__["network"] = cards, network  # no paper cards needed
    plan = pages.Planner(data).coauthor_index()
    figures["network page"], page = timed(repeats, lambda: pages.render(templates, plan))
    figures["communities found"] = len(network.communities)
    figures["co-author pairs"] = len(pairs)
    figures["ego figures drawn"] = len(drawn)
    figures["largest figure KB"] = max(len(text.encode()) for text in rendered) / 1000
    figures["network page KB"] = len(page) / 1000
    listed = sum(len(c["members"]) for c in index["communities"])
    figures["network page: pairs, members listed"] = f"{len(index['pairs'])}, {listed}"

    changes = Changes.choose(corpus)
    grown = Corpus(corpus.names + [NEWCOMER], [*corpus.papers, changes.new_paper], corpus.seeds)
    before = {key: key_of(e, known=known) for key, e in zip((a.key for a in site.authors), egos, strict=True)}
    new_site = build_model(records(grown, [(NEWCOMER, [len(corpus.papers), changes.shared])]))
    new_network, new_views, new_egos = ego_reads(new_site)
    new_known = new_views.cards.digests()  # type: ignore[attr-defined]
    after = {key: key_of(e, known=new_known) for key, e in new_egos.items()}
    figures["ego figures of others changed by adding one seed"] = sum(before[k] != after[k] for k in before)
    figures["communities after adding it"] = len(new_network.communities)
    figures["peak RSS MB"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return figures


def main() -> None:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--authors", type=int, default=1000)
    parser.add_argument("--papers", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--clustered", type=int, metavar="N", help="teams from groups of N authors")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    figures = measure(args.authors, args.papers, args.repeats, args.clustered)
    teams = f", teams in groups of {args.clustered}" if args.clustered else ""
    print(f"| {args.papers:,} papers, {args.authors:,} authors{teams} (median of {args.repeats}) | |")
    print("|---|---:|")
    for name, value in figures.items():
        sized = "KB" in name or "MB" in name
        shown = (f"{value:.1f}" if sized else f"{value:.3f} s") if isinstance(value, float) else value
        print(f"| {name} | {shown} |")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1, default=str))


if __name__ == "__main__":
    main()

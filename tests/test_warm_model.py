"""The warm model (`model.warm`): after any sequence of seed edits, merging again by the change
gives the model `build_model` gives of the same records, field by field."""

from __future__ import annotations

import datetime
import random
import sys
from dataclasses import replace
from typing import Any

import pytest

from scholarsite.inputs.records import Details
from scholarsite.inputs.seeds import AuthorRecord, SeedRecord
from scholarsite.model.communities import find_communities
from scholarsite.model.model import Identities, Site, build_model, page_paths, title_identity
from scholarsite.model.naming import Naming
from scholarsite.model.network import KeptNetwork, Network, build_network, coauthor_pairs
from scholarsite.model.warm import WarmModel

NAMES = ["Ann Lee", "Bob Ray", "Cat Wu", "ann lee", "Dan Oz", "Eve Ng", "Fay Li"]
TITLES = [f"On topic {n}" for n in range(14)] + ["On  topic 3", "ON TOPIC 5"]
ABSTRACTS = ["", "First.", "Second one.", "First. ", "Third  text."]
SUBJECTS = ["cs.DC", "cs.LG", "math.OC", "xx.YY"]
PUBLISHED = {"2024/on topic 1": datetime.date(2024, 5, 1), "2023/on topic 2": datetime.date(2023, 1, 2)}


plain = Naming(plain_title=str.strip)
shown = Naming(  # a title as shown, TeX rendered (its slug differs from its source's: a legacy page)
    plain_title=lambda text: text.strip().replace("$\\mathcal{O}(n)$", "O(n)")
)


def record(rng: random.Random, path: str, line: int) -> SeedRecord:
    details = rng.choice(
        [Details(), Details(("A", "B"), False, "Venue"), Details(("A",), True, doi="10.1/x")]
    )
    return SeedRecord(
        "arXiv",
        rng.choice([2023, 2024]),
        rng.choice(TITLES),
        rng.choice(ABSTRACTS),
        tuple(rng.sample(SUBJECTS, rng.randint(0, 2))),
        path,
        line,
        details,
    )


def seed(rng: random.Random, path: str) -> AuthorRecord:
    records = tuple(record(rng, path, 3 + 4 * n) for n in range(rng.randint(0, 6)))
    return AuthorRecord(rng.choice(NAMES), path, 1, rng.choice([None, 3, 9]), rng.random() < 0.3, records)


def edited(rng: random.Random, seeds: dict[str, AuthorRecord]) -> str:
    """One random edit of `seeds` (in place); what it was."""
    path = rng.choice(sorted(seeds))
    kind = rng.choice(["record", "add", "remove", "rename", "name", "drop record", "new record"])
    old = seeds[path]
    if kind == "add" or len(seeds) < 3:
        new_path = f"seeds/s{rng.randint(0, 99)}.txt"
        seeds[new_path] = seed(rng, new_path)
        return f"add {new_path}"
    if kind == "remove":
        del seeds[path]
    elif kind == "rename":
        new_path = f"seeds/r{rng.randint(0, 99)}.txt"
        del seeds[path]
        seeds[new_path] = replace(
            old, path=new_path, records=tuple(replace(r, path=new_path) for r in old.records)
        )
    elif kind == "name":
        seeds[path] = replace(old, name=rng.choice(NAMES))
    elif kind == "drop record" and old.records:
        seeds[path] = replace(old, records=old.records[1:])
    elif kind == "new record":
        seeds[path] = replace(old, records=(record(rng, path, 99), *old.records))
    elif old.records:
        at = rng.randrange(len(old.records))
        changed = record(rng, path, old.records[at].line)
        seeds[path] = replace(old, records=(*old.records[:at], changed, *old.records[at + 1 :]))
    return f"{kind} {path}"


def shape(site: Site) -> dict[str, Any]:
    """Every field of the model, entities named by their identity."""

    def paper(p: Any) -> tuple[Any, ...]:
        return (
            p.key, p.slug, p.title, p.abstract, p.year, p.source, [s.code for s in p.subjects],
            [a.key for a in p.authors], p.provenance, p.abstract_key, p.versions, p.legacy_slug, p.details,
        )  # fmt: skip

    def author(a: Any) -> tuple[Any, ...]:
        return (
            a.key, a.slug, a.name, a.claimed_count, a.at_least, a.seed_paths, a.spellings,
            [p.key for p in a.papers], [(c.key, n) for c, n in a.coauthors],
            [(s.code, n) for s, n in a.subject_counts], a.year_counts,
        )  # fmt: skip

    return {
        "papers": [paper(p) for p in site.papers],
        "authors": [author(a) for a in site.authors],
        "subjects": [
            (s.code, s.slug, s.info, [p.key for p in s.papers], [(a.key, n) for a, n in s.author_counts])
            for s in site.subjects
        ],
        "years": [
            (y.year, [p.key for p in y.papers], [(a.key, n) for a, n in y.author_counts]) for y in site.years
        ],
        "redirects": site.redirects,
        "legacy": {path: p.key for path, p in site.legacy_pages.items()},
        "contested": [p.key for p in site.contested],
    }


def linked(site: Site) -> bool:
    """Whether the authors and papers every part of the model names are the site's own (not
    former objects of the same key)."""
    authors = {id(a) for a in site.authors}
    papers = {id(p) for p in site.papers}
    counted = [a for group in (*site.subjects, *site.years) for a, _ in group.author_counts]
    listed = [p for group in (*site.subjects, *site.years, *site.authors) for p in group.papers]
    return all(id(a) in authors for a in counted) and all(id(p) in papers for p in listed)


def test_merging_by_the_change_gives_the_whole_merge() -> None:
    rng = random.Random(1203)
    identities = Identities(aliases={"dan oz": "eve-ng"})
    for run in range(12):
        seeds = {f"seeds/s{n}.txt": seed(rng, f"seeds/s{n}.txt") for n in range(8)}
        warm = WarmModel()
        warm.build(seeds.values(), PUBLISHED, identities, plain)
        for step in range(40):
            change = edited(rng, seeds)
            updated = warm.build(seeds.values(), PUBLISHED, identities, plain)
            whole = build_model(seeds.values(), PUBLISHED, identities, plain)
            assert shape(updated) == shape(whole), f"run {run}, step {step}: {change}"
            assert linked(updated), f"run {run}, step {step}: {change}"
            assert set(updated.pages) == page_paths(whole.papers), f"run {run}, step {step}: {change}"
            assert updated.by_key == {p.key: p for p in updated.papers}, f"run {run}, step {step}: {change}"


def test_legacy_pages_follow_the_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """Titles in TeX, whose pages under the slug rule before are legacy pages: the warm model's
    (found among the papers that moved, against the pages it keeps) are the whole merge's."""
    monkeypatch.setattr(
        sys.modules[__name__], "TITLES", [*TITLES, "Sort in $\\mathcal{O}(n)$", "Graphs in $\\mathcal{O}(n)$"]
    )
    rng = random.Random(1205)
    legacy = 0
    for run in range(6):
        seeds = {f"seeds/s{n}.txt": seed(rng, f"seeds/s{n}.txt") for n in range(8)}
        warm = WarmModel()
        warm.build(seeds.values(), PUBLISHED, Identities(), shown)
        for step in range(40):
            change = edited(rng, seeds)
            updated = warm.build(seeds.values(), PUBLISHED, Identities(), shown)
            whole = build_model(seeds.values(), PUBLISHED, Identities(), shown)
            assert shape(updated) == shape(whole), f"run {run}, step {step}: {change}"
            legacy += len(whole.legacy_pages)
    assert legacy > 0


def test_a_small_change_is_merged_by_the_change_not_whole() -> None:
    """Papers that share no group with the changed seed are the last build's objects; the
    model is updated in place, not merged whole."""
    rng = random.Random(7)
    seeds = {f"seeds/s{n}.txt": seed(rng, f"seeds/s{n}.txt") for n in range(20)}
    warm = WarmModel()
    before = {p.key: p for p in warm.build(seeds.values(), PUBLISHED, Identities(), plain).papers}
    kept = warm.last
    path = "seeds/s4.txt"
    seeds[path] = replace(seeds[path], records=(record(rng, path, 99), *seeds[path].records))
    after = warm.build(seeds.values(), PUBLISHED, Identities(), plain).papers
    assert warm.last is kept
    touched = {
        (p.year, title_identity(p.title)) for p in after if any(where.path == path for where in p.provenance)
    }
    untouched = [p for p in after if (p.year, title_identity(p.title)) not in touched]
    assert untouched and all(before.get(p.key) is p for p in untouched)
    assert all(before.get(p.key) is not p for p in after if (p.year, title_identity(p.title)) in touched)


def test_the_change_log_gives_what_changed_since_any_earlier_build() -> None:
    """A derived value that missed builds (one failed before it was brought up to date) gets
    every paper gone and made since it last looked; a value of another merge starts again."""
    rng = random.Random(11)
    seeds = {f"seeds/s{n}.txt": seed(rng, f"seeds/s{n}.txt") for n in range(12)}
    warm = WarmModel()
    first = warm.build(seeds.values(), PUBLISHED, Identities(), plain)
    assert first.changes is not None
    mark, before = first.changes.mark, {id(p): p for p in first.papers}
    for _ in range(5):
        edited(rng, seeds)
        site = warm.build(seeds.values(), PUBLISHED, Identities(), plain)
    assert site.changes is first.changes  # five small edits: updated, never merged whole
    change = site.changes.since(mark)
    assert change is not None
    gone, made = change
    now = {id(p): p for p in site.papers}
    assert {id(p) for p in made} == now.keys() - before.keys()
    assert gone >= {p.key for i, p in before.items() if i not in now}
    assert site.changes.since(site.changes.mark) == (set(), [])
    assert WarmModel().build(seeds.values(), PUBLISHED, Identities(), plain).changes.since(mark) is None
    moved = site.changes.moved(mark)
    assert moved is not None
    out, put_in = moved
    assert sorted(id(p) for p in out) == sorted(before.keys() - now.keys())
    assert sorted(id(p) for p in put_in) == sorted(now.keys() - before.keys())


def retitled(rng: random.Random, seeds: dict[str, AuthorRecord]) -> str:
    """A record's title changed, nothing else (its authors' co-author pairs stay)."""
    path = rng.choice(sorted(path for path, s in seeds.items() if s.records))
    old = seeds[path]
    at = rng.randrange(len(old.records))
    changed = replace(old.records[at], title=f"Retitled {rng.randint(0, 10**6)}")
    seeds[path] = replace(old, records=(*old.records[:at], changed, *old.records[at + 1 :]))
    return f"retitle in {path}"


def network_shape(network: Network) -> dict[str, Any]:
    """What pages read of a network, authors by key."""
    return {
        "strongest": network.strongest,
        "pair_count": network.pair_count,
        "communities": [
            (c.slug, c.name, [(a.key, a.name, a.slug) for a in c.members], c.pairs, c.colour)
            for c in network.communities
        ],
        "of": {key: c.slug for key, c in network.community_of.items()},
    }


def test_a_kept_network_is_the_network_of_the_model_it_is_reused_for() -> None:
    """After each edit the network a warm process keeps (reused when the papers moved count the
    same co-author pairs and the authors are named the same, else made again) is the one made
    from the whole model; retitles reuse it (and the model, its counts kept, is the whole's)."""
    rng = random.Random(1204)
    reused = 0
    for run in range(6):
        seeds = {f"seeds/s{n}.txt": seed(rng, f"seeds/s{n}.txt") for n in range(8)}
        warm, kept = WarmModel(), KeptNetwork()
        for step in range(30):
            change = (retitled if step % 2 else edited)(rng, seeds) if step else "first"
            site = warm.build(seeds.values(), PUBLISHED, Identities(), plain)
            assert shape(site) == shape(build_model(seeds.values(), PUBLISHED, Identities(), plain)), change
            pairs = coauthor_pairs(site)
            whole = build_network(site, find_communities(pairs), pairs)
            network = kept.reused(site)
            reused += network is not None
            if network is None:
                network = build_network(site, find_communities(pairs), pairs)
                kept.keep(network, site)
            assert network_shape(network) == network_shape(whole), f"run {run}, step {step}: {change}"
    assert reused >= 40

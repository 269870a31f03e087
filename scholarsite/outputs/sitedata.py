"""What every output family reads: the model and what is derived from it once (cards,
citations, related papers, the page plan).

All of it is keyed by identity (`paper.key`, `author.key`, `subject.code`), never by `id()`
(a process that builds again remembers some values by the paper object itself, which lives as
long as the paper is unchanged).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from typing import Any

from scholarsite.inputs.config import Config
from scholarsite.inputs.content import Page
from scholarsite.inputs.digests import DigestedDict, DigestedList, key_of
from scholarsite.inputs.files import Hashed
from scholarsite.inputs.memo import Memo
from scholarsite.inputs.sources import Sources
from scholarsite.lifetime import cores
from scholarsite.model import related, urls
from scholarsite.model.cards import Cards, Known, MadeOnDemand, ReadLog, Unchanged, nothing_known
from scholarsite.model.communities import find_communities
from scholarsite.model.impact_figures import ImpactFigures
from scholarsite.model.model import Author, Paper, Site
from scholarsite.model.network import KeptNetwork, Network, build_network, coauthor_pairs
from scholarsite.model.ondemand import OnDemand
from scholarsite.outputs import citations
from scholarsite.outputs.coauthors import CoauthorViews
from scholarsite.outputs.parts import PartKeys
from scholarsite.outputs.templates import Templates


def citation_bases(site: Site, cards: Cards) -> dict[str, str]:
    """Each paper's citation key before its suffix, by paper key, in the site's order. The
    kept model holds those of the papers it made that did not change (`Unchanged.bases`); the
    memo keeps the others by the digest of what the paper's card is made from, which holds
    everything a base is made of (its first author, year and title): a build works out only
    the bases of the papers whose card changed."""
    papers, memo = cards.papers, cards.memo
    known = cards.unchanged.bases if cards.unchanged is not None else {}

    def base(paper: Paper) -> str:
        made = partial(citation_base, paper, cards)
        return known.get(paper.key) or memo.text(CITATION_BASE, made, papers.inputs_digest(paper.key))

    return {paper.key: base(paper) for paper in site.papers}


CITATION_BASE = "citation base"  # the memo's name for a citation key before its suffix


def citation_base(paper: Paper, cards: Cards, inputs: str = "") -> str:
    """A paper's citation key before its suffix (`citations.base_key`; `inputs`, the digest the
    memo keeps it by, is not read)."""
    return citations.base_key(cards.first_author(paper), paper.year, cards.title_plain(paper))


def citation_records(
    keys: dict[str, str], cards: Cards, config: Config, known: Known | None = None
) -> MadeOnDemand[Paper, citations.CitationRecord]:
    """A CitationRecord per paper key under its citation key (`keys`), each made when first
    asked for (its digest known without it while what `citation_record` reads is the same:
    the paper's card, made of what its inputs' digest is of, paper fields among them; its
    citation key; the base URL: unchanged while its card's inputs and its citation key are
    the kept model's, under the same settings, which `pages_by_change` sees to)."""

    def inputs(paper: Paper) -> tuple[str, str, str]:
        return cards.papers.inputs_digest(paper.key), keys[paper.key], config.base_url

    last = cards.unchanged
    kept = last.keys if last is not None and last.base_url == config.base_url else {}

    def unchanged(paper: Paper) -> bool:  # its card's inputs, citation key and base URL the last build's
        return cards.same_inputs(paper) and kept.get(paper.key) == keys[paper.key]

    return MadeOnDemand(
        cards.papers.entities,
        lambda paper: citation_record(paper, keys[paper.key], cards, config),
        "record",
        cards.log,
        inputs,
        known,
        unchanged,
    )


def citation_record(paper: Paper, key: str, cards: Cards, config: Config) -> citations.CitationRecord:
    """A paper's citation record under citation key `key`: a paper whose original is known
    cites it (its authors, identifiers, date and abstract page), others their page here."""
    card = cards.paper(paper)
    original = card["original"] or {}
    page = urls.absolute(config.base_url, card["path"]) if config.base_url else None
    return citations.CitationRecord(
        key=key,
        title_tex=paper.title,
        title_plain=card["title_plain"],
        authors=tuple(a["name"] for a in card["all_authors"]),
        year=paper.year,
        source=paper.source,
        subjects=tuple(s.code for s in paper.subjects),
        abstract_plain=card["abstract_plain"],
        url=original.get("abs_url") or original.get("url") or page,
        complete=card["complete"],
        arxiv_id=original.get("arxiv_id", ""),
        primary_category=original.get("primary_category", ""),
        doi=original.get("doi", ""),
        published=original.get("date", ""),
        kind=original.get("kind", ""),
        venue=original.get("journal_ref", ""),
    )


@dataclass
class SiteData:
    """The model with what every output family reads from it."""

    site: Site
    config: Config
    pages: list[Page]
    author_pages: dict[str, Page]
    templates: Templates
    assets: dict[str, bytes]
    memo: Memo = field(default_factory=Memo)
    sources: Sources = field(default_factory=Sources)
    bibtex_made: dict[citations.CitationRecord, str] = field(default_factory=dict)
    static: dict[str, Hashed] = field(default_factory=dict)  # static/'s files, by site path
    related_index: related.RelatedIndex = field(default_factory=related.RelatedIndex)  # warm state
    kept_network: KeptNetwork = field(default_factory=KeptNetwork)  # warm state too
    read_log: ReadLog = field(default_factory=ReadLog)  # the shared values pages read, as planned
    known: Known = nothing_known  # the last build's values' digests (warm state)
    unchanged: Unchanged | None = None  # the papers whose cards' inputs are known to be `known`'s
    part_keys: PartKeys = field(default_factory=PartKeys)  # the files of many items' (warm state)

    @cached_property
    def cards(self) -> Cards:
        """Plain-data views of every author, subject and paper."""
        return Cards(self.site, self.memo, self.sources, self.read_log, self.known, self.unchanged)

    @cached_property
    def impact(self) -> ImpactFigures:
        """Cited-by counts, venues and h-indexes from sources.yaml's OpenAlex parts."""
        return ImpactFigures(self.sources, self.cards)

    @cached_property
    def citation_bases(self) -> dict[str, str]:
        """Citation keys before their suffixes by paper key, in the site's order."""
        return citation_bases(self.site, self.cards)

    @cached_property
    def citation_keys(self) -> dict[str, str]:
        """Citation keys by paper key: unique and stable (found for every paper at once, since
        a key is unique in the site)."""
        bases = self.citation_bases
        return dict(zip(bases, citations.unique_keys(list(bases.values())), strict=True))

    @cached_property
    def records(self) -> MadeOnDemand[Paper, citations.CitationRecord]:
        """Citation records by paper key."""
        return citation_records(self.citation_keys, self.cards, self.config, self.known)

    @cached_property
    def paper_data(self) -> MadeOnDemand[Paper, DigestedList]:
        """What each paper's line of `data/papers.json` is made from, by paper key: its card's
        inputs' digest, citation key, records' places and impact (digested; the last build's
        while its citation record is known to be: the paper is the kept model's, records and
        places and all, under the same sources.yaml)."""
        cards, keys, impact = self.cards.papers, self.citation_keys, self.impact

        def read(paper: Paper) -> list[Any]:
            places = [(q.path, q.line) for q in paper.provenance]
            return [cards.inputs_digest(paper.key), keys[paper.key], places, impact.paper(paper)]

        def made(paper: Paper) -> DigestedList:
            return DigestedList(read(paper))

        return MadeOnDemand(
            cards.entities, made, "paper data", None, read, self.known, self.records.unchanged
        )

    def bibtex_of(self, record: citations.CitationRecord) -> str:
        """A paper's BibTeX, without the abstract (as DBLP and arXiv do; RIS and CSL carry it).

        Made only for pages and BibTeX files being made, and kept for this build (a paper's
        entry is on its page and in the files of its authors and subjects); the files' entries
        are kept in the memo too, by their records' digests (`exports.bulk_entry`).
        """
        if record not in self.bibtex_made:
            self.bibtex_made[record] = citations.to_bibtex(replace(record, abstract_plain=""))
        return self.bibtex_made[record]

    @property
    def related(self) -> Mapping[str, list[Paper]]:
        """Each paper's most similar papers by title and abstract, by paper key
        (`model.related`: the index, kept between builds, is updated by the texts that changed;
        after a warm model's update, by the texts of the papers it made alone)."""
        return self.related_lists[0]

    @cached_property
    def related_lists(self) -> tuple[Mapping[str, list[Paper]], set[str]]:
        """`related`, and the keys of the papers whose list this build changed (or that are
        gone)."""
        index, k, cards = self.related_index, self.config.related_papers, self.cards

        by_key = cards.papers.entities

        def text(key: str) -> tuple[str, str]:  # from the texts alone: no card is made for it
            title = cards.title_plain(by_key[key])
            return title, f"{title} {cards.abstract_plain(by_key[key])}"

        known = self.unchanged.texts if self.unchanged is not None else {}

        def digests(papers: Iterable[Paper]) -> dict[str, str]:  # of the TeX: its text is made if new
            return {
                paper.key: known.get(paper.key) or related.text_digest(paper.title, paper.abstract)
                for paper in papers
            }

        log, texts = self.site.changes, OnDemand(text)
        change = log.since(index.seen) if log is not None and k == index.k else None
        if change is None:
            changed = index.update(texts, k, cores(), digests(self.site.papers))
        else:
            gone, made = change
            made_digests = digests(made)
            changed = index.update_some(texts, gone - made_digests.keys(), k, cores(), digests=made_digests)
        index.seen = log.mark if log is not None else None

        def related_to(paper: Paper) -> list[Paper]:
            return [by_key[other] for other in index.related.get(paper.key, ())]

        return MadeOnDemand(by_key, related_to, "related", cards.log), changed

    @cached_property
    def network(self) -> Network:
        """The co-author network: the last build's when it is the same (`KeptNetwork`). Its
        communities are kept in the memo by a digest of the co-author pairs and found again
        only when a pair changed."""
        if kept := self.kept_network.reused(self.site):
            return kept
        pairs = coauthor_pairs(self.site)

        def compute(_: str) -> str:
            return json.dumps(find_communities(pairs), ensure_ascii=False, separators=(",", ":"))

        key = key_of(list(pairs.items()))
        groups = json.loads(self.memo.text("communities", compute, key))
        network = build_network(self.site, groups, pairs, key)
        self.kept_network.keep(network, self.site)
        return network

    @cached_property
    def coauthor_views(self) -> CoauthorViews:
        """The co-author network's views pages read."""
        return CoauthorViews(self.network, self.cards, self.site)

    @cached_property
    def egos(self) -> MadeOnDemand[Author, DigestedDict]:
        """What each author's ego-network figure draws, by author key (empty: no co-authors);
        its digest known without making it while what it is made from is the last build's, as
        far as the network goes (the author cards it shows are read by the pages that show it):
        the name, co-authors with the papers shared, and community of the author and of each
        co-author (a pair among the co-authors is among those co-authors' own)."""
        views = self.coauthor_views
        authors = {author.key: author for author in self.site.authors}
        own: dict[str, str] = {}

        def own_digest(author: Author) -> str:
            if author.key not in own:
                community = views.community(author) if author.coauthors else None
                own[author.key] = key_of(author.name, [(c.key, n) for c, n in author.coauthors], community)
            return own[author.key]

        def inputs(author: Author) -> list[str]:
            return [own_digest(author), *(own_digest(coauthor) for coauthor, _ in author.coauthors)]

        def make(author: Author) -> DigestedDict:
            return DigestedDict(views.ego(author) or {})

        return MadeOnDemand(authors, make, "ego", self.cards.log, inputs, self.known)

    @property
    def has_feeds(self) -> bool:
        """Feeds need absolute URLs."""
        return bool(self.config.base_url)

    @property
    def stylesheet(self) -> str:
        """The stylesheet's text (inlined in the 404 page, which is served at any depth)."""
        return self.assets.get(urls.STYLESHEET, b"").decode("utf-8", "replace")

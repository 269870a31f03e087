"""Impact figures from the OpenAlex parts of `sources.yaml` (the build never asks OpenAlex):
each paper's cited-by count, venue and open-access copy, citations per year, and the papers of
this collection it cites and that cite it (from OpenAlex's `referenced_works`); each author's
citations and h-index over the papers of this collection; the most cited papers of a listing.

The h-index of a list of papers is the largest h such that h of them are cited at least h
times each (Hirsch 2005); here only papers of the collection that OpenAlex found count.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scholarsite.inputs.sources import Sources
from scholarsite.model.cards import Card, Cards, iso_date
from scholarsite.model.model import Author, Paper

MOST_CITED = 5  # papers in a listing's "most cited" block
SHOWN_CITATIONS = 100  # papers listed under "Cites" and "Cited by" on a page; the count says the rest


def h_index(counts: Iterable[int]) -> int:
    """The largest h such that h of the counts are at least h."""
    ranked = sorted(counts, reverse=True)
    return sum(1 for rank, count in enumerate(ranked, start=1) if count >= rank)


def day(text: str) -> str:
    """An ISO date as it is, or '' for text that is none."""
    date = iso_date(text)
    return date.isoformat() if date else ""


class ImpactFigures:
    """The impact figures of a site's papers and authors, as plain-data cards."""

    def __init__(self, sources: Sources, cards: Cards):
        self.cards = cards
        self.papers: dict[str, Card] = {}
        for key in sources.entries:
            found = sources.impact(key)
            if found is not None and key in cards.papers:
                self.papers[key] = {
                    "cited_by": found.cited_by,
                    "checked": day(found.checked),
                    "venue": found.venue,
                    "oa_url": found.oa_url,
                    "openalex_id": found.id,
                    "openalex_url": found.url,
                }
        self.cites, self.cited_here = citations_inside(sources, self.papers)
        self.counts = {
            key: [{"year": year, "count": count} for year, count in found.counts]
            for key in self.papers
            if (found := sources.impact(key)) is not None and found.counts
        }

    def paper(self, paper: Paper) -> Card | None:
        """What a paper's page shows of its impact, or None when OpenAlex did not find it."""
        return self.papers.get(paper.key)

    def citations(self, paper: Paper) -> Card | None:
        """The papers of the collection a paper cites and that cite it (their cards, the first
        SHOWN_CITATIONS by key, and how many in all), and its citations per year; None when
        there are none of these."""
        cites, cited = self.cites.get(paper.key, []), self.cited_here.get(paper.key, [])
        counts = self.counts.get(paper.key, [])
        if not (cites or cited or counts):
            return None
        return {
            "cites": [self.cards.papers[k] for k in cites[:SHOWN_CITATIONS]],
            "cites_count": len(cites),
            "cited_here": [self.cards.papers[k] for k in cited[:SHOWN_CITATIONS]],
            "cited_here_count": len(cited),
            "counts": counts,
        }

    def counted(self, papers: Iterable[Paper]) -> list[tuple[Paper, int]]:
        """The papers with a cited-by count, and their counts."""
        known = ((paper, self.papers.get(paper.key)) for paper in papers)
        return [(paper, card["cited_by"]) for paper, card in known if card and card["cited_by"] is not None]

    def author(self, author: Author) -> Card | None:
        """An author's citations and h-index over their papers in this collection that
        OpenAlex found, with how many those are and when they were checked; None for none."""
        counted = self.counted(author.papers)
        if not counted:
            return None
        checked = sorted({self.papers[p.key]["checked"] for p, _ in counted} - {""})
        counts = [count for _, count in counted]
        return {
            "citations": sum(counts),
            "h_index": h_index(counts),
            "counted": len(counted),
            "papers": len(author.papers),
            "checked_from": checked[0] if checked else "",
            "checked_to": checked[-1] if checked else "",
        }

    def most_cited(self, papers: Iterable[Paper], limit: int = MOST_CITED) -> list[dict[str, Any]]:
        """The most cited of some papers (cited at least once), most cited first."""
        ranked = sorted(
            ((p, n) for p, n in self.counted(papers) if n > 0), key=lambda item: (-item[1], item[0].key)
        )
        return [{"paper": self.cards.paper(p), "cited_by": n} for p, n in ranked[:limit]]


Keys = dict[str, list[str]]


def citations_inside(sources: Sources, found: dict[str, Card]) -> tuple[Keys, Keys]:
    """For the papers OpenAlex found (`found`), the keys of the papers of the collection each
    cites, and of those that cite it, sorted by key (a paper never cites itself here)."""
    by_id = {card["openalex_id"]: key for key, card in sorted(found.items()) if card["openalex_id"]}
    cites: Keys = {}
    cited: Keys = {}
    for key in sorted(found):
        impact = sources.impact(key)
        inside = sorted({by_id[i] for i in impact.references if i in by_id} - {key}) if impact else []
        if inside:
            cites[key] = inside
        for other in inside:
            cited.setdefault(other, []).append(key)
    return cites, cited

"""What lists of papers say about themselves: pages of a long list, the order they follow, the
home page's heading, an author's counts, and the bars beside an author's papers."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from scholarsite.model import urls
from scholarsite.model.cards import Card
from scholarsite.model.model import Author, Paper

ORDER_DATED = "Newest first."
ORDER_PARTLY_DATED = "Newest first where the date is known; papers without a date follow, by title."
ORDER_UNDATED = "Newest year first; by title within a year (publication dates are not known)."


def paginate(
    first: str, papers: list[Paper], per_page: int
) -> Iterator[tuple[str, dict[str, Any], list[Paper]]]:
    """(path, pager, papers) for each page of a long, newest-first list of papers; always at
    least one page.

    Pages are cut from the oldest end: every page but the first holds `per_page` papers, the
    first from `per_page` to twice as many less one. A paper added at the front (new papers are
    the newest) then changes the first page only, where cutting from the front would move a
    paper from every page to the next; the others change when the number of pages does.
    """
    count = max(1, len(papers) // per_page)
    head = len(papers) - (count - 1) * per_page
    chunks = [papers[:head]] + [
        papers[start : start + per_page] for start in range(head, len(papers), per_page)
    ]
    links = [{"number": n, "path": urls.paged(first, n)} for n in range(1, len(chunks) + 1)]
    for number, chunk in enumerate(chunks, start=1):
        yield (
            links[number - 1]["path"],
            {
                "number": number,
                "count": len(chunks),
                "links": links if len(chunks) > 1 else [],
            },
            chunk,
        )


def published(card: Card) -> str:
    """A paper card's publication date (ISO), or '' when sources.yaml does not know it."""
    return card["original"]["published"] if card["original"] else ""


def order_note(dates: list[str]) -> str:
    """The order a list of papers follows (`model.paper_order`), said plainly, from their
    publication dates (`published`): newest first when every date is known, else what comes
    after the dated papers."""
    dated = sum(1 for date in dates if date)
    if dates and dated == len(dates):
        return ORDER_DATED
    return ORDER_PARTLY_DATED if dated else ORDER_UNDATED


def latest(cards: list[Card]) -> dict[str, str]:
    """The home page's heading over its first papers, what their rows say of their dates, and
    their order when the heading does not say it: "Latest papers" (with dates) only when every
    one of them has a known date, else the years they are from ("Papers from 2026"; rows with
    their year when there are several)."""
    if cards and all(published(card) for card in cards):
        return {"heading": "Latest papers", "when": "date", "note": ""}
    years = sorted({card["year"] for card in cards})
    note = order_note([published(card) for card in cards])
    if len(years) < 2:
        return {"heading": f"Papers from {years[0]}" if years else "Papers", "when": "", "note": note}
    return {"heading": f"Papers from {years[0]}–{years[-1]}", "when": "year", "note": note}


KIND_HEADINGS = {  # the heading over an author's papers of one type (`records.KINDS`), in this order
    "article": "Articles",
    "conference paper": "Conference papers",
    "preprint": "Preprints",
    "PhD thesis": "PhD theses",
    "master's thesis": "Master's theses",
    "book": "Books",
    "chapter": "Book chapters",
    "report": "Reports",
    "dataset": "Datasets",
    "other": "Other works",
    "": "Type not known",
}
BY_TYPE = "Grouped by type."
RANKS = {kind: rank for rank, kind in enumerate(KIND_HEADINGS)}


def kind(card: Card) -> str:
    """A paper card's type ('' when neither its records nor sources.yaml say it)."""
    return card["original"]["kind"] if card["original"] else ""


def by_kind(papers: list[Paper], card: Callable[[Paper], Card]) -> list[Paper]:
    """Papers in the order of their types' headings (KIND_HEADINGS), each type's in the order given."""
    return sorted(papers, key=lambda paper: RANKS.get(kind(card(paper)), len(RANKS)))


def kind_groups(cards: list[Card]) -> list[Card]:
    """Paper cards (`by_kind`'s order) grouped by type, each row saying its year."""
    groups: list[Card] = []
    for card in cards:
        heading = KIND_HEADINGS.get(kind(card), KIND_HEADINGS[""])
        if not groups or groups[-1]["heading"] != heading:
            anchor = "type-" + (re.sub(r"[^a-z]+", "-", kind(card).lower()) or "unknown")
            groups.append({"heading": heading, "anchor": anchor, "when": "year", "papers": []})
        groups[-1]["papers"].append(card)
    return groups


def count_text(author: Author) -> str:
    """One plain sentence for an author's counts: '23 papers here; the profile lists at least
    98.', '1 paper here.' (no claim), '5 papers here, all the profile lists.'"""
    listed = len(author.papers)
    here = f"{listed} {'paper' if listed == 1 else 'papers'} here"
    claimed = author.claimed_count
    if claimed is None:
        return f"{here}."
    if claimed == listed and not author.at_least:
        return f"{here}, all the profile lists."
    return f"{here}; the profile lists {'at least ' if author.at_least else ''}{claimed}."


def chart(items: list[tuple[Card | int, int]], label: Callable[[Any], str]) -> list[dict[str, Any]]:
    """Bars with a share of the largest count, for the charts."""
    top = max((count for _, count in items), default=1)
    return [
        {"label": label(item), "item": item, "count": count, "share": count / top} for item, count in items
    ]

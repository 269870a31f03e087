""" "What's new", in arXiv's manner: the newest papers by publication date, for the collection
(`papers/new/`) and each subject (`subjects/<slug>/new/`), each with its Atom feed.

Dates are those `sources.yaml` has (`Sources.published`: the first arXiv version, else
OpenAlex's date); the seeds give only a year, so papers without a known date are left out,
and the page says how many and why.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from scholarsite.inputs.sources import Sources
from scholarsite.model import urls
from scholarsite.model.cards import iso_date
from scholarsite.model.model import Paper
from scholarsite.outputs.plan import PagePlan, Spec, home_trail
from scholarsite.outputs.sitedata import SiteData

TITLE = "What's new"


def publication_dates(papers: Iterable[Paper], sources: Sources) -> dict[str, datetime.date]:
    """The publication date sources.yaml gives each of these papers that has one, by key
    (found once for every listing: a paper is in the collection's and its subjects')."""
    known = ((paper.key, iso_date(sources.published(paper.key))) for paper in papers)
    return {key: date for key, date in known if date is not None}


def dated(papers: Iterable[Paper], dates: Mapping[str, datetime.date]) -> list[tuple[datetime.date, Paper]]:
    """The papers with a known publication date (`dates`), newest first (then by key)."""
    found = [(dates[paper.key], paper) for paper in papers if paper.key in dates]
    return sorted(found, key=lambda item: (-item[0].toordinal(), item[1].key))


@dataclass(frozen=True)
class Scope:
    """One "What's new" listing: its page, title, papers, and the trail to it from home."""

    page: str
    title: str
    papers: list[Paper]
    trail: tuple[tuple[str, str], ...]

    @property
    def listing(self) -> str:
        """The page listing the same papers by year."""
        return self.trail[-1][1]


def scopes(data: SiteData) -> list[Scope]:
    """The collection's listing and each subject's."""
    found = [Scope(urls.new(), TITLE, data.site.papers, (("Papers", urls.PAPERS),))]
    found += [
        Scope(
            urls.new(s.slug),
            f"{TITLE} in {s.name} ({s.code})",
            s.papers,
            (("Subjects", urls.SUBJECTS), (s.code, urls.subject(s.slug))),
        )
        for s in data.site.subjects
    ]
    return found


def plans(data: SiteData, spec: Spec) -> list[PagePlan]:
    """The "What's new" pages, planned by `spec` (the planner's)."""
    pages, dates = [], publication_dates(data.site.papers, data.sources)
    for scope in scopes(data):
        newest = dated(scope.papers, dates)
        shown = newest[: data.config.papers_per_page]
        groups: list[dict[str, Any]] = [
            {"date": date.isoformat(), "papers": [data.cards.paper(p) for _, p in group]}
            for date, group in groupby(shown, key=lambda item: item[0])
        ]
        pages.append(
            spec(
                scope.page,
                "new.html",
                scope.title,
                home_trail(*scope.trail, (TITLE, scope.page)),
                groups=groups,
                shown=len(shown),
                dated=len(newest),
                total=len(scope.papers),
                listing=scope.listing,
                feed=urls.beside(scope.page, "feed.xml") if data.has_feeds else None,
                description=f"{scope.title}: the newest papers by publication date, newest first.",
            )
        )
    return pages


def feeds(data: SiteData) -> list[tuple[str, str, list[Paper]]]:
    """(title, page, papers newest first) of each "What's new" feed."""
    site, dates = data.config.title, publication_dates(data.site.papers, data.sources)
    return [
        (f"{scope.title} · {site}", scope.page, [paper for _, paper in dated(scope.papers, dates)])
        for scope in scopes(data)
    ]

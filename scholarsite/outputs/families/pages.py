"""Plan the site: one `PagePlan` per HTML page, its context made only when the page is rendered.

A plan holds what its page reads (`reads`: cards, counts, a citation record, small values) and
a function of those reads that makes the page's context. The page's key is a digest of the
reads (each card as its digest), never of the context, so planning the whole site costs a few
digests per page however heavy the pages are (JSON-LD, BibTeX, related papers), and a page
whose reads are unchanged is neither given a context nor rendered. Soundness is by
construction: `make` sees only `reads` and the settings, which are in every key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from itertools import groupby
from typing import Any

from markupsafe import Markup

from scholarsite.inputs.content import Page
from scholarsite.inputs.digests import DigestedList, code_version, key_of
from scholarsite.model import urls
from scholarsite.model.cards import Card
from scholarsite.model.model import Author, Paper, Subject, Year
from scholarsite.outputs import citations, downloads, newest, shards
from scholarsite.outputs import seo as metadata
from scholarsite.outputs.coauthors import CoauthorViews
from scholarsite.outputs.families import exports, hosting
from scholarsite.outputs.listings import (
    BY_TYPE,
    by_kind,
    chart,
    count_text,
    kind_groups,
    latest,
    order_note,
    paginate,
)
from scholarsite.outputs.plan import PagePlan, home_trail
from scholarsite.outputs.registry import Output, fixed
from scholarsite.outputs.sitedata import SiteData
from scholarsite.outputs.templates import Templates

AUTHORS_ON_ONE_PAGE = 2000  # beyond this the A-Z index gets one page per initial (pages < 1 MB)
LISTED_AUTHORS = 100  # authors beside a subject's or year's papers (pages stay under 1 MB)
LISTED_COAUTHORS = 100  # co-authors in an author's sidebar, the most shared papers first
Owner = tuple[str, str]  # whose pages: ("author", key), ("paper", key), ("subject", code), ("year", "2020")
HEAD: Owner = ("site", "head")  # the site's own pages, planned first...
TAIL: Owner = ("site", "tail")  # ... and What's new, last


class Planner:
    """Builds the context of every page of the site."""

    def __init__(self, inputs: SiteData):
        self.inputs = inputs
        self.site = inputs.site
        self.config = inputs.config
        self.cards = inputs.cards
        self.meta = metadata.Metadata(inputs.config)
        self.common = {
            "site": {
                "title": inputs.config.title,
                "description": inputs.config.description,
                "language": inputs.config.language,
                "base_url": inputs.config.base_url,
                "portable": inputs.config.portable,  # in every page's key: it changes every link
                "pages": [
                    {"title": p.title, "path": urls.content_page(p.name)}
                    for p in inputs.pages
                    if p.name != "index"
                ],
            },
            "has_feeds": inputs.has_feeds,
            "portable": inputs.config.portable,  # how links to index pages are written
        }

    @property
    def coauthors(self) -> CoauthorViews:
        """The co-author network's views (the network is found when a page first needs it)."""
        return self.inputs.coauthor_views

    @property
    def settings(self) -> tuple[Any, ...]:
        """Everything a page's context takes from the settings (in every page's key)."""
        return (self.common, repr(self.config))

    def spec(
        self,
        path: str,
        template: str,
        title: str,
        crumbs: list[tuple[str, str]],
        make: Callable[..., dict[str, Any]] | None = None,
        **reads: Any,
    ) -> PagePlan:
        """The plan of a page whose context `make` (by default `frame`) makes from `reads`."""
        return PagePlan(
            path, template, {"path": path, "title": title, "crumbs": crumbs, **reads}, make or self.frame
        )

    def frame(self, path: str, title: str, crumbs: list[tuple[str, str]], **context: Any) -> dict[str, Any]:
        """A page's context with what every template expects."""
        description = context.pop("description", self.config.description)
        jsonld = context.pop("jsonld", None) or self.meta.collection(path, title, description)
        trail = len(crumbs) > 1 and context.pop("trail_data", True)  # the BreadcrumbList too
        return {
            **self.common,
            "page_path": path,
            "is_home": path == urls.HOME,
            "root": urls.root_of(path),
            "title": title,
            "description": metadata.clip(description),
            "canonical": self.meta.absolute(path) if path != urls.NOT_FOUND else None,
            "breadcrumbs": [{"name": n, "path": p} for n, p in crumbs],
            "jsonld": [jsonld, self.meta.breadcrumbs(crumbs)] if trail else [jsonld],
            "og_type": context.pop("og_type", "website"),
            "feed": context.pop("feed", None),
            "searchable": context.pop("searchable", False),
            **context,
        }

    def all(self) -> Iterator[PagePlan]:
        """Every page, in a stable order, one entity's pages at a time (a plan whose page is
        unchanged is dropped as soon as it is keyed: the site's plans are never held at once)."""
        for _, plans in self.owned():
            yield from plans()

    def owned(self) -> Iterator[tuple[Owner, Callable[[], list[PagePlan]]]]:
        """Every page by whose it is, in `all`'s order: the site's own pages (indexes, content,
        What's new: `HEAD` and `TAIL`), then each author's, paper's, subject's and year's."""
        yield HEAD, self.head
        for author in self.site.authors:
            yield ("author", author.key), partial(self.author, author)
        for paper in self.site.papers:
            yield ("paper", paper.key), partial(self.paper_pages, paper)
        for subject in self.site.subjects:
            yield ("subject", subject.code), partial(self.subject, subject)
        for year in self.site.years:
            yield ("year", str(year.year)), partial(self.year, year)
        yield TAIL, partial(newest.plans, self.inputs, self.spec)

    def head(self) -> list[PagePlan]:
        """The home page, the indexes, search, the 404 page, the papers listing, content pages."""
        return [
            self.home(),
            *self.authors_index(),
            self.subjects_index(),
            self.years_index(),
            self.coauthor_index(),
            self.search(),
            self.not_found(),
            self.papers_index(),
            *(self.content(page) for page in self.inputs.pages if page.name != "index"),
        ]

    def owning(self, path: str) -> list[PagePlan]:
        """The plans of the author, paper, subject or year one of whose pages is at site path
        `path` (the page a browser shows, planned before the rest of the site); [] for any
        other page (indexes, What's new, content pages), which are planned with the rest."""
        kind, _, rest = path.partition("/")
        name = rest.partition("/")[0]
        if kind == "authors":
            return [plan for a in self.site.authors if a.slug == name for plan in self.author(a)]
        if kind == "papers":
            return [self.paper(p) for p in self.site.papers if urls.paper(p.year, p.slug) == path]
        if kind == "subjects":
            return [plan for s in self.site.subjects if s.slug == name for plan in self.subject(s)]
        if kind == "years":
            return [plan for y in self.site.years if str(y.year) == name for plan in self.year(y)]
        return []

    def home(self) -> PagePlan:
        """The home page: introduction, figures, authors, latest papers, subjects."""
        intro = next((p.body for p in self.inputs.pages if p.name == "index"), Markup(""))
        top_authors = sorted(self.site.authors, key=lambda a: (-len(a.papers), a.key))[:60]
        newest = [self.cards.paper(p) for p in self.site.papers[: self.config.latest_papers]]
        return self.spec(
            urls.HOME,
            "home.html",
            self.config.title,
            home_trail(),
            intro=intro,
            figures={
                "authors": len(self.site.authors),
                "papers": len(self.site.papers),
                "shared": len(self.site.shared_papers),
                "subjects": len(self.site.subjects),
                "years": len(self.site.years),
            },
            authors=[self.cards.author(a) for a in top_authors],
            more_authors=len(self.site.authors) > len(top_authors),
            latest={"papers": newest, **latest(newest)},
            archives=self.archives(),
            feed=urls.FEED if self.inputs.has_feeds else None,
        )

    def archives(self) -> list[dict[str, Any]]:
        """Subjects grouped by archive, archives by name, unknown codes last."""
        ordered = sorted(self.site.subjects, key=lambda s: (s.info is None, s.archive_name, s.code))
        return [
            {"name": name, "subjects": [self.cards.subject(s) for s in group]}
            for name, group in groupby(ordered, key=lambda s: s.archive_name)
        ]

    def authors_index(self) -> list[PagePlan]:
        """Authors A-Z with paper counts; one page per initial once the list is long."""

        def initial(author: Author) -> str:
            first = author.key[:1].upper()
            return first if first.isalpha() and first.isascii() else "#"

        ordered = sorted(self.site.authors, key=lambda a: (initial(a), a.key))
        split = len(ordered) > AUTHORS_ON_ONE_PAGE
        cards = self.cards.authors
        cards.digests_of([a.key for a in ordered])  # known without the cards when kept, read at once
        letters = DigestedList(  # read by every page of the index: keyed once
            {
                "letter": letter,
                "authors": [cards.ref(a.key) for a in group],  # made only if a page is rendered
                "path": urls.authors_letter(letter) if split else urls.AUTHORS,
            }
            for letter, group in groupby(ordered, key=initial)
        )
        crumbs = home_trail(("Authors", urls.AUTHORS))
        index = self.spec(
            urls.AUTHORS,
            "authors.html",
            "Authors",
            crumbs,
            letters=letters,
            current=None if split else "all",
            description=f"All {len(self.site.authors)} authors of the collection, A to Z.",
        )
        if not split:
            return [index]
        return [index] + [
            self.spec(
                group["path"],
                "authors.html",
                f"Authors: {group['letter']}",
                crumbs + [(group["letter"], group["path"])],
                letters=letters,
                current=group["letter"],
                description=f"Authors of the collection under {group['letter']}.",
            )
            for group in letters
        ]

    def coauthor_index(self) -> PagePlan:
        """Who wrote with whom: the co-author network's communities and its strongest pairs."""
        title, path = "Co-author network", urls.COAUTHORS
        crumbs = home_trail(("Authors", urls.AUTHORS), (title, path))
        described = f"Who wrote with whom among the {len(self.site.authors)} authors of the collection."
        network = self.coauthors.index()
        return self.spec(path, "coauthors.html", title, crumbs, network=network, description=described)

    def author(self, author: Author) -> list[PagePlan]:
        """An author's pages: profile, co-authors, charts, papers by year."""
        first = urls.author(author.slug)
        card = self.cards.author(author)
        profile = self.inputs.author_pages.get(author.slug)
        description = metadata.author_description(author)
        impact = self.inputs.impact.author(author)
        ego = self.inputs.egos[author.key] or None  # drawn on the first page only
        by_type = self.config.author_papers_by == "type"
        author_feeds = self.inputs.has_feeds and self.config.author_feeds
        bibtex_part = exports.author_bibtex_part(author.slug, len(self.site.authors))
        ordered = by_kind(author.papers, self.cards.paper) if by_type else author.papers
        specs = []
        for path, pager, papers in paginate(first, ordered, self.config.papers_per_page):
            specs.append(
                self.spec(
                    path,
                    "author.html",
                    author.name,
                    home_trail(("Authors", urls.AUTHORS), (author.name, first)),
                    author=card,
                    count_text=count_text(author),
                    profile={"meta": profile.meta, "bio": profile.body} if profile else None,
                    coauthors=[
                        {"author": self.cards.author(a), "count": n}
                        for a, n in author.coauthors[:LISTED_COAUTHORS]
                    ],
                    unlisted_coauthors=max(0, len(author.coauthors) - LISTED_COAUTHORS),
                    subject_chart=chart(
                        [(self.cards.subject_ref(s), n) for s, n in author.subject_counts],
                        lambda c: c["name"],
                    ),
                    year_chart=chart(author.year_counts, str),
                    **self.papers_of(papers, by_type),
                    ego=ego if pager["number"] == 1 else None,
                    pager=pager,
                    bib=bibtex_part,
                    bib_slug=author.slug,
                    feed=urls.beside(first, "feed.xml") if author_feeds else None,
                    description=description,
                    og_type="profile",
                    searchable=True,
                    impact=impact,
                    jsonld=self.meta.person(author, profile, first, impact),
                    trail_data=False,  # an author page's place is in its Person's URL and page
                )
            )
        return specs

    def paper_pages(self, paper: Paper) -> list[PagePlan]:
        """A paper's page, as a list (as every entity's pages are)."""
        return [self.paper(paper)]

    def paper(self, paper: Paper) -> PagePlan:
        """A paper's page: abstract, authors, subjects, citation, related papers."""
        card = self.cards.paper(paper)
        path = card["path"]
        related = self.inputs.related.get(paper.key, [])
        return self.spec(
            path,
            "paper.html",
            card["title_plain"],
            home_trail(
                ("Papers", urls.PAPERS), (str(paper.year), urls.year(paper.year)), (card["title_plain"], path)
            ),
            self.paper_page,
            paper=card,
            records=len(paper.provenance),
            citation=self.inputs.records[paper.key],
            related=[self.cards.paper(p) for p in related],
            impact=self.inputs.impact.paper(paper),
            citing=self.inputs.impact.citations(paper),
        )

    def paper_page(
        self, path: str, paper: Card, citation: citations.CitationRecord, impact: Card | None, **reads: Any
    ) -> dict[str, Any]:
        """A paper page's context: its citation in every format and its JSON-LD, made here
        (when the page is rendered) from the card and the citation record it reads."""
        bibtex = self.inputs.bibtex_of(citation)
        return self.frame(
            path,
            paper=paper,
            bibtex=bibtex,
            citation_data=downloads.page_data(
                citation, paper["abstract"] or "", paper["title_plain"], self.meta.absolute(path)
            ),
            description=paper["abstract_plain"] or paper["title_plain"],
            og_type="article",
            jsonld=self.meta.article(paper, path, impact),
            trail_data=False,  # a paper page's place is in its ScholarlyArticle's URL and page
            impact=impact,
            **reads,
        )

    def subjects_index(self) -> PagePlan:
        """Subjects grouped by archive, with counts."""
        return self.spec(
            urls.SUBJECTS,
            "subjects.html",
            "Subjects",
            home_trail(("Subjects", urls.SUBJECTS)),
            archives=self.archives(),
            description=f"The {len(self.site.subjects)} arXiv subjects of the collection, by archive.",
        )

    def listing(
        self,
        first: str,
        template: str,
        title: str,
        crumbs: list[tuple[str, str]],
        papers: list[Paper],
        front: dict[str, Any],
        rest: dict[str, Any],
        **context: Any,
    ) -> list[PagePlan]:
        """A paginated list of papers grouped by year. What changes with every paper of the list
        (its counts, the authors beside it: `front`) is on the first page only; later pages
        carry `rest` instead, so a paper added re-plans no more pages than it moves."""
        return [
            self.spec(
                path,
                template,
                title if pager["number"] == 1 else f"{title} (page {pager['number']})",
                crumbs,
                **self.papers_of(chunk),
                pager=pager,
                **(front if pager["number"] == 1 else rest),
                **context,
            )
            for path, pager, chunk in paginate(first, papers, self.config.papers_per_page)
        ]

    def papers_of(self, papers: list[Paper], by_type: bool = False) -> dict[str, Any]:
        """A page's papers grouped by year (or by type), and the order they follow, said plainly."""
        order = order_note([self.cards.published(p) for p in papers])
        if by_type:
            return {
                "groups": kind_groups([self.cards.paper(p) for p in papers]),
                "order": f"{BY_TYPE} {order}",
            }
        return {"groups": self.cards.by_year(papers), "order": order}

    def subject(self, subject: Subject) -> list[PagePlan]:
        """A subject's papers by year and its authors."""
        card = self.cards.subject(subject)
        first, named = card["path"], f"{subject.name} ({subject.code})"
        return self.listing(
            first,
            "subject.html",
            subject.name,
            home_trail(("Subjects", urls.SUBJECTS), (subject.code, first)),
            subject.papers,
            front={
                "subject": card,
                "most_cited": self.inputs.impact.most_cited(subject.papers),
                **self.top_authors(subject.author_counts),
                "description": f"{card['count']} papers in {named} from the collection.",
            },
            rest={
                "subject": self.cards.subject_ref(subject),
                "authors": None,
                "more_authors": 0,
                "description": f"Papers in {named} from the collection.",
            },
            searchable=True,
            bib=urls.beside(first, "papers.bib"),
            feed=urls.beside(first, "feed.xml") if self.inputs.has_feeds else None,
            new_page=urls.new(subject.slug),
        )

    def year_counts(self) -> list[dict[str, Any]]:
        """Each year's page and paper count, as the years and papers indexes list them."""
        return [{"year": y.year, "path": urls.year(y.year), "count": len(y.papers)} for y in self.site.years]

    def years_index(self) -> PagePlan:
        """Years with paper counts."""
        years = self.year_counts()
        return self.spec(
            urls.YEARS,
            "years.html",
            "Years",
            home_trail(("Years", urls.YEARS)),
            years=years,
            year_chart=chart([(y["year"], y["count"]) for y in years], str),
            description="Papers of the collection by year.",
        )

    def year(self, year: Year) -> list[PagePlan]:
        """A year's papers and authors."""
        first = urls.year(year.year)
        return self.listing(
            first,
            "year.html",
            f"Papers of {year.year}",
            home_trail(("Years", urls.YEARS), (str(year.year), first)),
            year.papers,
            front={
                "most_cited": self.inputs.impact.most_cited(year.papers),
                **self.top_authors(year.author_counts),
                "description": f"{len(year.papers)} papers from {year.year} in the collection.",
            },
            rest={
                "authors": None,
                "more_authors": 0,
                "description": f"Papers from {year.year} in the collection.",
            },
            year=year.year,
        )

    def top_authors(self, counts: list[tuple[Author, int]]) -> dict[str, Any]:
        """The most frequent authors of a listing and how many more there are."""
        shown = [{"author": self.cards.author(a), "count": n} for a, n in counts[:LISTED_AUTHORS]]
        return {"authors": shown, "more_authors": len(counts) - len(shown)}

    def papers_index(self) -> PagePlan:
        """The papers by year: the year pages (which list them, as the subject and author pages
        do) and What's new; not every paper again (issue 27: the same rows as the year pages)."""
        return self.spec(
            urls.PAPERS,
            "papers.html",
            "Papers",
            home_trail(("Papers", urls.PAPERS)),
            years=self.year_counts(),
            count=len(self.site.papers),
            new_page=urls.new(),
            description=f"The {len(self.site.papers)} papers of the collection, by year.",
        )

    def content(self, page: Page) -> PagePlan:
        """A hand-written Markdown page."""
        path = urls.content_page(page.name)
        return self.spec(
            path,
            "page.html",
            page.title,
            home_trail((page.title, path)),
            body=page.body,
            description=str(page.meta.get("description", self.config.description)),
        )

    def search(self) -> PagePlan:
        """The search page (Pagefind), with plain index links for readers without JavaScript;
        `shards` are the folders of the search bundles from the site's root (see `shards`)."""
        folders = shards.folders(self.site, self.config.search_shard_size, self.config.portable)
        return self.spec(
            urls.SEARCH,
            "search.html",
            "Search",
            home_trail(("Search", urls.SEARCH)),
            description="Search titles, abstracts, authors and subjects.",
            shards=[folder + "/" for folder in folders],
        )

    def not_found(self) -> PagePlan:
        """The 404 page, which GitHub Pages serves at any missing path (see the template)."""
        return self.spec(
            urls.NOT_FOUND,
            "404.html",
            "Page not found",
            home_trail(),
            description="This page does not exist.",
            inline_css=Markup(self.inputs.stylesheet),
            top_folders=sorted(urls.RESERVED | {page.name for page in self.inputs.pages}),
            moved_map=urls.MOVED if self.site.legacy_pages else "",
        )


def render(templates: Templates, plan: PagePlan) -> bytes:
    """A page: its templates checked (once per process), its context made, rendered."""
    templates.check(plan.template, plan.path)
    return templates.render(plan.template, plan.context(), plan.path)


def keyed(data: SiteData, planner: Planner, plans: Iterable[PagePlan]) -> Iterator[Output]:
    """The outputs of `plans`, each keyed by the sources of its template, the settings and
    what it reads."""
    templates = data.templates
    settings = key_of(code_version(), planner.settings)
    for plan in plans:
        key = key_of(
            settings, templates.digest(plan.template, plan.path), plan.template, plan.reads, digested=True
        )
        yield Output(plan.path, key, partial(render, templates, plan))


def opened_page(data: SiteData, path: str) -> list[Output]:
    """The page at site path `path` alone, keyed as `outputs` keys it, when it is a page of an
    author, paper, subject or year (planning only its own entity: a fraction of planning the
    site); [] otherwise."""
    planner = Planner(data)
    return [output for output in keyed(data, planner, planner.owning(path)) if output.path == path]


def outputs(data: SiteData) -> Iterator[Output]:
    """Every HTML page, keyed (see `keyed`); with base_url, the sitemap listing them."""
    planner = Planner(data)
    listed: list[str] = []
    for output in keyed(data, planner, planner.all()):
        listed.append(output.path)
        yield output
    yield from sitemap(data, listed)


def sitemap(data: SiteData, listed: list[str]) -> list[Output]:
    """With base_url, the sitemap listing the pages at `listed` (in the site's order)."""
    if not data.config.base_url:
        return []
    pages = [path for path in listed if path != urls.NOT_FOUND]
    return [fixed(urls.SITEMAP, hosting.sitemap(data.config.base_url, pages))]

"""The build, top to bottom: load -> model -> plan -> render -> write.

Only `load_project` reads the disk and only `write.sync` changes it; everything between is
pure. The whole site is rendered in memory before the first byte is written, so a failing
build leaves `site/` exactly as it was.
"""

from __future__ import annotations

import datetime
import difflib
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from scholarsite import write
from scholarsite.errors import BuildError, Diagnostic, Severity, error, note
from scholarsite.inputs.cache import CACHE_FILE, ParseCache
from scholarsite.inputs.config import Config, load_config
from scholarsite.inputs.content import Page, read_pages
from scholarsite.inputs.seeds import SeedParse, read_seeds
from scholarsite.model import related
from scholarsite.model.cards import Cards
from scholarsite.model.model import Paper, Site, build_model
from scholarsite.outputs import citations, exports, feeds, search, urls
from scholarsite.outputs import hosting as deploy
from scholarsite.outputs.pages import Inputs, Planner
from scholarsite.outputs.render import render_pages

FEEDS_NEED_BASE_URL = "no base_url: Atom feeds, sitemap and canonical links are not written"


@dataclass
class Project:
    """Everything read from a project folder, with the problems found while reading."""

    root: Path
    config: Config
    seeds: list[SeedParse]
    pages: list[Page]
    author_pages: list[Page]
    cache: ParseCache
    diagnostics: list[Diagnostic] = field(default_factory=list)


@dataclass(frozen=True)
class BuildResult:
    """What a build did."""

    report: write.SyncReport
    seconds: float
    diagnostics: tuple[Diagnostic, ...]

    def summary(self) -> str:
        """`12 written, 310 unchanged, 2 removed in 0.41 s`."""
        return self.report.summary(self.seconds)


def latest_possible_year() -> int:
    """Records cannot be from later than next year."""
    return datetime.date.today().year + 1


def load_project(root: Path, cache: ParseCache | None = None) -> Project:
    """Read site.yaml, seeds/ and content/; never raises for bad input, collects problems.

    Seeds go through `cache` (by default the project's `.scholarsite-cache/`), so unchanged
    seeds are not parsed again; the caller decides whether to save it.
    """
    diagnostics: list[Diagnostic] = []
    try:
        config = load_config(root / "site.yaml", "site.yaml")
    except BuildError as exc:
        config = Config()
        diagnostics.extend(exc.diagnostics)
    cache = cache or ParseCache(root / CACHE_FILE)
    year = latest_possible_year()
    parses, notes = read_seeds(root / "seeds", "seeds", lambda data, shown: cache.parse(data, shown, year))
    diagnostics += notes + [d for parse in parses for d in parse.diagnostics]
    pages, author_pages, problems = read_pages(root / "content", "content")
    diagnostics += problems
    if not config.base_url:
        diagnostics.append(note("site.yaml", 0, FEEDS_NEED_BASE_URL))
    return Project(root, config, parses, pages, author_pages, cache, sorted(diagnostics))


def model_of(project: Project) -> Site:
    """The cross-referenced model of a project's accepted seeds."""
    return build_model(parse.author for parse in project.seeds if parse.author is not None)


def match_author_pages(site: Site, pages: list[Page]) -> tuple[dict[str, Page], list[Diagnostic]]:
    """Author pages by slug; an unknown slug is an error naming the closest ones."""
    slugs = [a.slug for a in site.authors]
    matched: dict[str, Page] = {}
    problems: list[Diagnostic] = []
    for page in pages:
        if page.name in slugs:
            matched[page.name] = page
            continue
        close = difflib.get_close_matches(page.name, slugs, n=3, cutoff=0.5)
        hint = f"did you mean {', '.join(close)}?" if close else "name the file after an author's slug"
        problems.append(error(page.path, 0, f"no author with the slug '{page.name}'", hint))
    return matched, problems


def reserved_page_problems(pages: list[Page]) -> list[Diagnostic]:
    """A content page may not take a folder the build uses."""
    return [
        error(p.path, 0, f"the page name '{p.name}' is reserved for the site's own pages")
        for p in pages
        if p.name in urls.RESERVED
    ]


def related_by_content(site: Site, cards: Cards, k: int) -> dict[int, list[Paper]]:
    """Each paper's most similar papers by title and abstract (TF-IDF), by paper id."""
    titles = [cards.paper(p)["title_plain"] for p in site.papers]
    docs = [
        f"{title} {cards.paper(p)['abstract_plain']}" for title, p in zip(titles, site.papers, strict=True)
    ]
    nearest = related.related_papers(docs, k, titles=titles)
    return {
        id(paper): [site.papers[j] for j in found] for paper, found in zip(site.papers, nearest, strict=True)
    }


def render_site(project: Project, site: Site, previous_search: dict[str, bytes]) -> dict[str, bytes]:
    """Every output file of the site, in memory; BuildError for user mistakes."""
    author_pages, problems = match_author_pages(site, project.author_pages)
    problems += reserved_page_problems(project.pages)
    if problems:
        raise BuildError(problems)
    config = project.config
    assets = deploy.asset_files(project.root / "assets")
    cards = Cards(site)
    records = exports.citation_records(site, cards, config)
    # BibTeX, on the page and in .bib files, leaves the abstract out (as DBLP and arXiv do);
    # RIS and CSL-JSON carry it.
    bibtex = {key: citations.to_bibtex(replace(rec, abstract_plain="")) for key, rec in records.items()}
    inputs = Inputs(
        site=site,
        config=config,
        pages=project.pages,
        author_pages=author_pages,
        related=related_by_content(site, cards, config.related_papers),
        bibtex=bibtex,
        has_feeds=bool(config.base_url),
        stylesheet=assets.get(urls.STYLESHEET, b"").decode("utf-8", "replace"),
    )
    specs = Planner(inputs, cards).all()
    outputs = render_pages(specs, project.root / "templates")
    outputs.update(deploy.hosting_files(config, list(outputs)))
    outputs.update(assets)
    outputs.update(exports.paper_files(site, cards, records, bibtex))
    outputs.update(exports.collection_bibs(site, cards, bibtex))
    outputs.update(exports.data_files(site, cards, records))
    outputs["llms.txt"] = exports.llms_txt(site, config)
    if config.base_url:
        outputs.update(feeds.feed_files(site, cards, config))
    outputs.update(search.search_files(outputs, config.language, previous_search))
    return outputs


def build(
    root: Path, site_dir: Path | None = None, *, strict: bool = False, cache: ParseCache | None = None
) -> BuildResult:
    """Build the site of the project at `root` into `site_dir` (default `root/site`)."""
    started = time.perf_counter()
    project = load_project(root, cache)
    project.cache.save()
    failing = {Severity.ERROR, Severity.WARNING} if strict else {Severity.ERROR}
    if any(d.severity in failing for d in project.diagnostics):
        raise BuildError(project.diagnostics)
    site_dir = site_dir or root / "site"
    outputs = render_site(project, model_of(project), search.read_previous(site_dir))
    report = write.sync(outputs, site_dir)
    return BuildResult(report, time.perf_counter() - started, tuple(project.diagnostics))

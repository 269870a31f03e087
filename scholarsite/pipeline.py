"""The build, top to bottom: inputs -> validate -> model -> outputs -> write.

Only `load_project` reads the project and only `write.sync` changes `site/`; everything
between is pure. Each output family is a function from `SiteData` to outputs that carry a key
of what they are made from; the writer produces only those whose key changed.
"""

from __future__ import annotations

import difflib
import itertools
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from scholarsite import ownership, shortcut, write
from scholarsite.errors import BuildError, Diagnostic, error, fails, note, warning
from scholarsite.inputs.cache import CACHE_FILE, ParseCache
from scholarsite.inputs.config import Config, load_config
from scholarsite.inputs.content import Page, read_pages
from scholarsite.inputs.freshness import (
    latest_possible_year,
    save_last_build,
)
from scholarsite.inputs.memo import MEMO_FILE, Memo
from scholarsite.inputs.seeds import SeedParse, read_seeds
from scholarsite.inputs.sources import SOURCES_FILE, Sources, read_sources
from scholarsite.inputs.unicode import normalise
from scholarsite.model import urls
from scholarsite.model.cards import published_dates
from scholarsite.model.model import Identities, Site, build_model
from scholarsite.outputs import downloads, exports, feeds, hosting, pages, search
from scholarsite.outputs.registry import Bundle, Family, Produced
from scholarsite.outputs.render import Templates
from scholarsite.outputs.sitedata import SiteData

STATIC_HINT = "rename or move it in static/"
FEEDS_NEED_BASE_URL = "no base_url: Atom feeds, sitemap and canonical links are not written"

Progress = Callable[[str, int, int], None]  # stage, done, total

SITE_FAMILIES: tuple[Family, ...] = (
    pages.outputs,
    hosting.assets,
    hosting.outputs,
    hosting.redirects,
    exports.citation_files,
    downloads.outputs,
    exports.data_files,
    feeds.outputs,
)
SEARCH_FAMILIES: tuple[Family, ...] = (search.outputs,)


def in_search(path: str) -> bool:
    """Whether a site path belongs to a search bundle (synced last, and on its own in serve)."""
    return path.startswith(search.FOLDER + "/")


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
    sources: Sources = field(default_factory=Sources)
    identities: Identities = field(default_factory=Identities)  # who is who, from author pages


@dataclass
class Caches:
    """What a build keeps for the next: seed parses, derived text and, in a process that builds
    again (the preview), the compiled templates."""

    parses: ParseCache
    memo: Memo
    templates: Templates | None = None
    related: dict[str, list[str]] | None = None  # the last build's related lists (kept warm)

    @classmethod
    def of(cls, root: Path) -> Caches:
        """The project's caches, in `.scholarsite-cache/`."""
        return cls(ParseCache(root / CACHE_FILE), Memo(root / MEMO_FILE))

    @classmethod
    def empty(cls) -> Caches:
        """Caches that start empty and are never saved (a clean build)."""
        return cls(ParseCache(None), Memo(None))

    def save(self) -> None:
        """Write what changed."""
        self.parses.save()
        self.memo.save()


@dataclass(frozen=True)
class BuildResult:
    """What a build did."""

    report: write.SyncReport
    seconds: float
    diagnostics: tuple[Diagnostic, ...]

    def summary(self) -> str:
        """`12 written, 310 unchanged, 2 removed in 0.41 s`."""
        return self.report.summary(self.seconds)


def load_project(root: Path, cache: ParseCache | None = None) -> Project:
    """Read site.yaml, seeds/, content/ and sources.yaml; never raises for bad input, collects
    problems.

    Seeds go through `cache` (by default the project's `.scholarsite-cache/`), so unchanged
    seeds are not parsed again; the caller decides whether to save it.
    """
    diagnostics: list[Diagnostic] = []
    try:
        config, problems = load_config(root / "site.yaml", "site.yaml")
        diagnostics += problems
    except BuildError as exc:
        config = Config()
        diagnostics.extend(exc.diagnostics)
    cache = cache or ParseCache(root / CACHE_FILE)
    diagnostics += [cache.problem] if cache.problem else []
    year = latest_possible_year()
    parses, notes = read_seeds(root / "seeds", "seeds", lambda data, shown: cache.parse(data, shown, year))
    diagnostics += notes + [d for parse in parses for d in parse.diagnostics]
    content, author_pages, problems = read_pages(root / "content", "content", config.unsafe_html)
    diagnostics += problems
    sources, problems = read_sources(root)
    diagnostics += problems
    identities, problems = identities_of(author_pages)
    diagnostics += problems
    if not config.base_url:
        diagnostics.append(note("site.yaml", 0, FEEDS_NEED_BASE_URL))
    return Project(
        root, config, parses, content, author_pages, cache, sorted(diagnostics), sources, identities
    )


def validate(diagnostics: Iterable[Diagnostic], strict: bool) -> None:
    """BuildError when the problems fail the build (warnings too under --strict)."""
    found = list(diagnostics)
    if fails(found, strict):
        raise BuildError(found)


def model_of(project: Project) -> Site:
    """The cross-referenced model of a project's accepted seeds, ordered by the publication
    dates sources.yaml knows."""
    authors = (parse.author for parse in project.seeds if parse.author is not None)
    return build_model(authors, published_dates(project.sources), project.identities)


def identities_of(author_pages: list[Page]) -> tuple[Identities, list[Diagnostic]]:
    """Who is who, as author pages declare it (`seeds:` and `aliases:`); a seed file or an
    alias declared by two pages is an error."""
    claims: dict[str, str] = {}
    aliases: dict[str, str] = {}
    problems: list[Diagnostic] = []
    for page in author_pages:
        for table, items in (
            (claims, [f"seeds/{s}" for s in page.meta.get("seeds", [])]),
            (aliases, [normalise(a) for a in page.meta.get("aliases", [])]),
        ):
            for item in items:
                if table.setdefault(item, page.name) != page.name:
                    problems.append(
                        error(page.path, 0, f"{item!r} is declared by content/authors/{table[item]}.md too")
                    )
    return Identities(claims, aliases), problems


def claim_problems(project: Project) -> list[Diagnostic]:
    """An author page claiming a seed file that is not among the accepted seeds."""
    known = {parse.author.path for parse in project.seeds if parse.author is not None}
    return [
        error(
            page.path,
            0,
            f"no accepted seed file 'seeds/{name}'",
            "name a file of seeds/, as in seeds: [x.txt]",
        )
        for page in project.author_pages
        for name in page.meta.get("seeds", [])
        if f"seeds/{name}" not in known
    ]


def source_problems(site: Site, sources: Sources) -> list[Diagnostic]:
    """A warning per sources.yaml entry whose key is no paper's any more (the paper's title or
    year changed, or its seed went), a note per paper whose source is ambiguous."""
    keys = {paper.key for paper in site.papers}
    stale = [
        warning(
            SOURCES_FILE,
            sources.line(key),
            f"no paper has the key {key!r}",
            "remove the entry or run link-sources again",
        )
        for key in sorted(sources.entries.keys() - keys)
    ]
    ambiguous = [
        note(
            SOURCES_FILE,
            sources.line(key),
            f"{key!r} has {len(entry.candidates)} possible arXiv matches",
            "set its arxiv_id by hand, or mark it not-found",
        )
        for key, entry in sorted(sources.entries.items())
        if entry.status == "ambiguous" and key in keys
    ]
    return stale + ambiguous


def match_author_pages(site: Site, content: list[Page]) -> tuple[dict[str, Page], list[Diagnostic]]:
    """Author pages by slug; an unknown slug is an error naming the closest ones."""
    slugs = [a.slug for a in site.authors]
    matched: dict[str, Page] = {}
    problems: list[Diagnostic] = []
    for page in content:
        if page.name in slugs:
            matched[page.name] = page
            continue
        close = difflib.get_close_matches(page.name, slugs, n=3, cutoff=0.5)
        hint = f"did you mean {', '.join(close)}?" if close else "name the file after an author's slug"
        problems.append(error(page.path, 0, f"no author with the slug '{page.name}'", hint))
    return matched, problems


def reserved_page_problems(content: list[Page]) -> list[Diagnostic]:
    """A content page may not take a folder the build uses."""
    return [
        error(p.path, 0, f"the page name '{p.name}' is reserved for the site's own pages")
        for p in content
        if p.name in urls.RESERVED
    ]


def prepare(project: Project, caches: Caches | None = None) -> tuple[SiteData, list[Diagnostic]]:
    """The data every output family reads, and every problem found before rendering: those
    of the inputs, author pages without an author, pages taking a reserved name and sources.yaml
    entries of no paper."""
    site = model_of(project)
    author_pages, problems = match_author_pages(site, project.author_pages)
    problems += claim_problems(project)
    problems += reserved_page_problems(project.pages)
    problems += source_problems(site, project.sources)
    assets, refused = hosting.read_assets(project.root / "assets")
    static, refused_static = hosting.read_static(project.root)
    caches = caches or Caches(project.cache, Memo())
    urls.PORTABLE.on = project.config.portable
    templates = caches.templates = Templates(project.root / "templates", caches.memo, caches.templates)
    data = SiteData(
        site=site,
        config=project.config,
        pages=project.pages,
        author_pages=author_pages,
        templates=templates,
        assets=assets,
        memo=caches.memo,
        sources=project.sources,
        static=static,
    )
    return data, sorted(project.diagnostics + problems + refused + refused_static)


@dataclass(frozen=True)
class CheckResult:
    """What `check` found: the data a build would write, and every problem it would report."""

    data: SiteData
    diagnostics: tuple[Diagnostic, ...]


def check(
    root: Path,
    site_dir: Path | None = None,
    *,
    strict: bool = False,
    workers: int | None = None,
    progress: Progress = lambda stage, done, total: None,
) -> CheckResult:
    """Everything a build would find, writing nothing: the build's problems in the same order,
    then the pages are rendered in memory (those `site_dir` holds from the same key excepted).
    An output folder the build would refuse is refused (`ownership.claim`)."""
    site_dir = site_dir or root / "site"
    ownership.claim(site_dir, root)
    progress("read", 0, 0)
    project = load_project(root)
    data, diagnostics = prepare(project, Caches(project.cache, Memo(root / MEMO_FILE)))
    if not fails(diagnostics, strict):
        progress("model", 0, 0)
        count = write.default_workers() if workers is None else workers
        diagnostics += write.rehearse(
            site_outputs(data),
            site_dir,
            workers=count,
            progress=lambda done, total: progress("pages", done, total),
        )
    return CheckResult(data, tuple(diagnostics))


def outputs(data: SiteData, families: Iterable[Family]) -> Iterable[Produced]:
    """Every output of the given families, lazily, in family order."""
    return itertools.chain.from_iterable(family(data) for family in families)


def site_outputs(data: SiteData) -> Iterator[Produced]:
    """The outputs of SITE_FAMILIES, lazily, then the files of `static/`; BuildError, before
    anything is written, when a static file is where the build puts its own (see
    `static_problems`)."""
    made: list[str] = [search.FOLDER + "/"]  # a folder the search index owns whole
    for item in outputs(data, SITE_FAMILIES):
        made.append(item.folder + "/" if isinstance(item, Bundle) else item.path)
        yield item
    problems = static_problems(data.static, made)
    if problems:
        raise BuildError(problems)
    yield from hosting.static(data)


def static_problems(static: Iterable[str], made: Iterable[str]) -> list[Diagnostic]:
    """An error for each file of `static/` (by site path) that is where the build writes a
    file or a folder, is inside a folder a bundle owns whole ("x/" in `made`), or has a name
    no site path may have."""
    made = list(made)
    files = {path for path in made if not path.endswith("/")}
    folders = {str(parent) for path in made for parent in PurePosixPath(path).parents}
    whole = tuple(path for path in made if path.endswith("/"))
    problems = []
    for path in static:
        if clash := static_clash(path, files, folders, whole):
            message = f"cannot be copied to site/{path}: {clash}"
            problems.append(error(f"static/{path}", 0, message, STATIC_HINT))
    return problems


def static_clash(path: str, files: set[str], folders: set[str], whole: tuple[str, ...]) -> str | None:
    """Why the static file for site path `path` cannot be copied, or None."""
    try:
        write.check_path(path)
    except ValueError:
        return "the site cannot hold that name"
    if path in files:
        return "the build writes that file itself"
    if path in folders or path + "/" in whole:
        return "the build writes a folder there"
    if path.startswith(whole):
        return f"site/{path.split('/')[0]}/ is made whole by the build"
    return None


SearchAfter = Callable[[write.SyncReport, tuple[Diagnostic, ...]], None]


def build(
    root: Path,
    site_dir: Path | None = None,
    *,
    strict: bool = False,
    caches: Caches | None = None,
    workers: int | None = None,
    search_after: SearchAfter | None = None,
    progress: Progress = lambda stage, done, total: None,
) -> BuildResult:
    """Build the site of the project at `root` into `site_dir` (default `root/site`).

    With `search_after`, the site is synced first and the search bundle after it, calling
    `search_after` in between (the preview reloads browsers there, before indexing).
    """
    started = time.perf_counter()
    looked = shortcut.look(root, site_dir or root / "site")
    if looked.unchanged is None:
        return rebuild(
            root,
            site_dir,
            looked.fingerprint,
            strict=strict,
            caches=caches,
            workers=workers,
            search_after=search_after,
            progress=progress,
        )
    report, diagnostics = looked.unchanged  # same inputs, intact site: nothing to do
    validate(diagnostics, strict)
    if search_after is not None:
        search_after(report, diagnostics)
    return BuildResult(report, time.perf_counter() - started, diagnostics)


def rebuild(
    root: Path,
    site_dir: Path | None,
    fingerprint: str,
    *,
    strict: bool = False,
    caches: Caches | None = None,
    workers: int | None = None,
    search_after: SearchAfter | None = None,
    progress: Progress = lambda stage, done, total: None,
) -> BuildResult:
    """Build, doing the work the outputs' keys call for; `fingerprint` (of the inputs, as
    `freshness.fingerprint_of` gives it) is recorded when the build is complete."""
    started = time.perf_counter()
    site_dir = site_dir or root / "site"
    ownership.claim(site_dir, root)
    progress("read", 0, 0)
    caches = caches or Caches.of(root)
    project = load_project(root, caches.parses)
    data, diagnostics = prepare(project, caches)
    if fails(diagnostics, strict):
        caches.parses.save()  # the seeds that parsed need not be parsed again once fixed
        raise BuildError(diagnostics)
    count = write.default_workers() if workers is None else workers
    progress("model", 0, 0)
    search = list(outputs(data, SEARCH_FAMILIES))
    if count > 1:  # index while the pages are made
        search = write.start_bundles(search, site_dir, count)
    try:
        if search_after is None:  # one sync: the pages and their search index switch together
            everything = itertools.chain(site_outputs(data), search)
            report = sync_outputs(everything, site_dir, count, progress, None, "pages", fingerprint)
        else:  # the preview reloads browsers as soon as the pages are in place
            data.related_before = caches.related  # may stand in while the pages are made
            caches.related = None
            pages = sync_outputs(
                site_outputs(data), site_dir, count, progress, lambda p: not in_search(p), "pages"
            )
            search_after(pages, tuple(diagnostics))
            if data.settle_related():  # now the true lists, and the pages they change
                settled = sync_outputs(
                    site_outputs(data), site_dir, count, progress, lambda p: not in_search(p), "pages"
                )
                pages = pages.then(settled)
                if settled.written:
                    search_after(settled, tuple(diagnostics))
            caches.related = {key: [p.key for p in found] for key, found in data.related.items()}
            progress("search", 0, 1)
            found = sync_outputs(search, site_dir, count, progress, in_search, "search", fingerprint)
            report = pages.merged(found)
    except BuildError as exc:  # rendering or writing failed: report it with what was found before
        raise BuildError([*diagnostics, *exc.diagnostics]) from None
    caches.save()  # after the pages: the preview has reloaded browsers by now
    lasting = [d for d in diagnostics if d != project.cache.problem]  # said once, not per build
    save_last_build(root, site_dir, fingerprint, lasting)
    return BuildResult(report, time.perf_counter() - started, tuple(diagnostics))


def sync_outputs(
    items: Iterable[Produced],
    site_dir: Path,
    workers: int,
    progress: Progress,
    scope: write.Scope | None,
    stage: str,
    inputs: str | None = None,
) -> write.SyncReport:
    """Sync outputs into the site, reporting progress as they are produced."""
    return write.sync(
        items,
        site_dir,
        workers=workers,
        scope=scope,
        progress=lambda done, total: progress(stage, done, total),
        inputs=inputs,
    )

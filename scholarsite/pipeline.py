"""The build, top to bottom: load -> validate -> model -> plan -> write (`build`), the one
recipe the command line and the preview both run.

Only `inputs` reads the project and only `write` changes `site/`; everything between is pure.
Each output family is a function from `SiteData` to outputs that carry a key of what they
are made from; the writer produces only those whose key changed. A one-shot build switches
pages and search index together; the preview's (`shown`) syncs in phases: the page the
browser shows, the other pages (browsers reload), then the search index.
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from pathlib import Path

from scholarsite import write
from scholarsite.errors import BuildError, Diagnostic, fails
from scholarsite.inputs.cache import ParseCache
from scholarsite.inputs.config import NONE_GIVEN, Overrides
from scholarsite.inputs.freshness import save_last_build
from scholarsite.inputs.lineage_file import lineage_digest, save_lineage
from scholarsite.inputs.memo import MEMO_FILE, Memo
from scholarsite.inputs.project import Project, load_project
from scholarsite.inputs.sources import SOURCES_FILE
from scholarsite.inputs.state import STATE_FILE, BuildState
from scholarsite.inputs.templates import FOLDER as TEMPLATES_FOLDER
from scholarsite.inputs.watched import WatchedInputs
from scholarsite.lifetime import collector_paused
from scholarsite.model import snapshot
from scholarsite.model.checks import model_of
from scholarsite.model.network import KeptNetwork
from scholarsite.model.related import RelatedIndex
from scholarsite.model.warm import WarmModel
from scholarsite.outputs.families.pages import opened_page
from scholarsite.outputs.families.pages_by_change import PagePlans, PagesByChange
from scholarsite.outputs.parts import PartKeys
from scholarsite.outputs.registry import Output, Produced
from scholarsite.outputs.site import SEARCH_FAMILIES, in_search, outputs, site_outputs
from scholarsite.outputs.sitedata import SiteData
from scholarsite.outputs.templates import Templates
from scholarsite.write import budget, ownership, shortcut, survey
from scholarsite.write.report import BuildResult
from scholarsite.write.survey import Survey

Progress = Callable[[str, int, int], None]  # stage, done, total
Shown = Callable[[write.SyncReport, Iterable[Diagnostic]], None]  # pages in place: reload


def quiet(stage: str, done: int, total: int) -> None:
    """Progress that is not shown."""


@dataclass
class Caches:
    """What a build keeps for the next: seed parses, derived text, the build state (the related
    papers' index) and, in a process that builds again (the preview), the compiled templates,
    the model and the state loaded already."""

    parses: ParseCache
    memo: Memo
    state: BuildState = field(default_factory=lambda: BuildState(None))
    templates: Templates | None = None
    related: RelatedIndex | None = None  # loaded from `state` when first needed, then kept warm
    model: WarmModel | None = None  # a process that builds again: its last model, merged by the change
    inputs: WatchedInputs | None = None  # ... and its inputs, looked at where its watcher saw changes
    plans: PagePlans | None = None  # the pages' plans as the state holds them (`pages_by_change`)
    planned: PagesByChange | None = None  # this build's, kept by `save`

    @classmethod
    def of(cls, root: Path) -> Caches:
        """The project's caches, in `.scholarsite-cache/`."""
        return cls(ParseCache(root), Memo(root / MEMO_FILE), BuildState(root / STATE_FILE))

    @classmethod
    def empty(cls) -> Caches:
        """Caches that start empty and are never saved (a clean build)."""
        return cls(ParseCache(None), Memo(None))

    def related_index(self) -> RelatedIndex:
        """The related papers' index of the last build (empty when there is none)."""
        if self.related is None:
            k = int(self.state.value("related_k") or -1)  # -1: no lists yet
            self.related = RelatedIndex.kept(k, self.state)
        return self.related

    def page_plans(self) -> PagePlans:
        """The pages' plans the state holds (their paths read once a process, the values'
        digests when asked about)."""
        if self.plans is None:
            (tag, basis, network), paths = self.state.page_plans()
            self.plans = PagePlans(tag, basis, network, paths, stored=self.state)
        return self.plans

    def save(self, model: str) -> None:
        """Write what changed, with the mark of the model kept beside (`model.snapshot.keep`:
        the papers it made are taken as `unchanged`, with the digests the state holds, only
        while the two marks agree). The memo keeps only the entries this build used when it
        planned every page (every card made); a build that planned some used only theirs, and
        keeps every entry. (A model merged by the change names only the papers it merged
        again: a build planning every page then drops the others' names, which only a whole
        merge, rare with a kept model, asks for again.)"""
        self.parses.save()
        whole = self.planned is not None and self.planned.chosen is None
        self.memo.save(collect=whole)
        if self.related is not None:
            self.state.save_related(*self.related.saved(), self.related.k)
        if self.planned is not None:
            planned, self.planned = self.planned, None
            now, before = planned.plans, self.page_plans()
            kept = before.fetched(list(now.values))
            changed = {read: value for read, value in now.values.items() if kept.get(read) != value}
            gone = planned.gone(before)
            tags, whole = (now.tag, now.basis, now.network), planned.chosen is None
            paths = (now.paths, before.paths)
            parts = (planned.data.part_keys.now, planned.data.part_keys.last)
            self.state.save_page_plans(tags, paths, (changed, gone), planned.reads, whole, model, parts)
            self.plans = before.after(now, gone)


@dataclass
class Ready:
    """A build's inputs read, modelled and validated: what remains is to plan and write."""

    site_dir: Path
    fingerprint: str  # of the inputs, recorded when the build is complete
    caches: Caches
    project: Project
    data: SiteData
    diagnostics: tuple[Diagnostic, ...]
    workers: int
    basis: snapshot.Basis  # what the model is of (kept with it)
    surveyed: Future[Survey | None] | Survey | None = None  # of site/, begun before the inputs were read,
    # then the listing the last sync left (`left`)

    def search(self) -> list[Produced]:
        """The search bundles, being made already in processes of their own when there are
        several workers (the index takes about as long as all the pages)."""
        bundles = list(outputs(self.data, SEARCH_FAMILIES))
        return write.start_bundles(bundles, self.site_dir, self.workers) if self.workers > 1 else bundles

    def left(self, listing: Survey) -> None:
        """Take the listing of site/ a sync left for the next (the preview's search index)."""
        self.surveyed = listing

    def finish(self) -> None:
        """Keep the caches, the pages papers had (`lineage.txt`) and the record of this complete
        build for the next."""
        root = self.project.root
        parses = self.caches.parses
        save_lineage(root, self.data.site.lineage, self.project.lineage, parses if parses.on_disk else None)
        model = ""  # the model is kept before the state that holds its mark (see `Caches.save`)
        if self.caches.model is not None and self.caches.parses.on_disk:
            basis = replace(self.basis, lineage=lineage_digest(root))  # as this build wrote it
            path = root / snapshot.SNAPSHOT_FILE
            data = self.data
            citing = snapshot.Citing(data.citation_bases, data.citation_keys, data.config.base_url)
            again = self.caches.inputs is not None  # a process that builds again (the preview)
            model = snapshot.keep(path, self.caches.model, basis, citing, data.site.former_keys, again)
        self.caches.save(model)
        lasting = [d for d in self.diagnostics if d != self.project.cache.problem]  # said once
        save_last_build(self.project.root, self.site_dir, self.fingerprint, lasting)


def build(
    root: Path,
    site_dir: Path | None = None,
    *,
    strict: bool = False,
    overrides: Overrides = NONE_GIVEN,
    caches: Caches | None = None,
    workers: int | None = None,
    progress: Progress = quiet,
    looked: shortcut.Look | None = None,
    shown: Shown | None = None,
    opened: str | None = None,
) -> BuildResult:
    """Build the site of the project at `root` into `site_dir` (default `root/site`); nothing to
    do when the inputs are those of the last build into the intact site (`looked`, when the
    caller has looked already). With `shown` (the preview), the build syncs in phases (see
    `sync_in_phases`: the page at site path `opened` first) and calls `shown` as pages land."""
    started = time.perf_counter()
    site_dir = site_dir or root / "site"
    with collector_paused():  # a warm process holds millions of objects: no collection mid-look
        state, watched = (caches.state, caches.inputs) if caches else (None, None)
        looked = looked or shortcut.look(root, site_dir, overrides, state, watched)
    if looked.unchanged is not None:
        result = shortcut.skipped(looked.unchanged, strict, started)
        if shown is not None:
            shown(result.report, result.diagnostics)
        return result
    with collector_paused():
        workers = write.default_workers() if workers is None else workers
        surveyed = survey.start(site_dir) if shown is None and workers > 1 else None
        ready = prepare(root, site_dir, looked, strict, overrides, caches, workers, progress, surveyed)
        with reported_with(ready.diagnostics):
            if shown is None:  # pages and search index switched together
                report = sync_rest(
                    ready, last_plans(ready), None, ready.search(), progress, None, ready.fingerprint
                )
            else:
                report = sync_in_phases(ready, shown, opened)
        ready.finish()
    size = budget.measure(site_dir)
    config = ready.data.config
    warnings = budget.over_budget(size, config.max_site_mb, config.max_files)
    return BuildResult(report, time.perf_counter() - started, (*ready.diagnostics, *warnings), size)


def sync_in_phases(ready: Ready, shown: Shown, opened: str | None) -> write.SyncReport:
    """The preview's syncs: the page at site path `opened` (the one the browser shows), shown
    if it changed; the other pages, shown; then the search index, being made meanwhile (from
    when the first page is in place).

    The page of an author, paper, subject or year is planned on its own first (see
    `pages.opened_page`), before the rest of the site is planned; any other is found among the
    planned outputs."""
    last = last_plans(ready)  # asked before the first page is written in place
    planned: list[Produced] | None = None
    if opened:
        first = opened_page(ready.data, opened)
        if not first:
            planned = list(rest_of_site(ready, last))
            first = [item for item in planned if isinstance(item, Output) and item.path == opened]
        page = sync_outputs(ready, first, quiet, None, "page", only={opened})
        if page.written:
            shown(page, ready.diagnostics)
    search = ready.search()
    pages = sync_rest(ready, last, planned, [], quiet, not_search)
    shown(pages, ready.diagnostics)
    found = sync_outputs(ready, search, quiet, in_search, "search", ready.fingerprint)
    return pages.merged(found)


def last_plans(ready: Ready) -> PagePlans | None:
    """The pages' plans of the site's last complete build, when the state holds them."""
    stored = ready.caches.page_plans()
    try:
        recorded = write.recorded_inputs(str(ready.site_dir.resolve()))
    except (OSError, write.WriteConflict):  # site/ not a folder, its manifest damaged: the sync says so
        return None
    return stored if stored.tag and stored.tag == recorded else None


def rest_of_site(ready: Ready, last: PagePlans | None) -> Iterator[Produced]:
    """Every output but the search index, the pages planned by the change since `last` (every
    page without it: see `pages_by_change`); the build keeps what they read."""
    data, state = ready.data, ready.caches.state
    ready.caches.planned = pages = PagesByChange(data, ready.fingerprint, last, state.page_readers)
    return site_outputs(data, pages.outputs(data.read_log), pages.carried)


def sync_rest(
    ready: Ready,
    last: PagePlans | None,
    planned: list[Produced] | None,
    extra: list[Produced],
    progress: Progress,
    scope: write.Scope | None,
    inputs: str | None = None,
) -> write.SyncReport:
    """Sync every output but the search index (`planned` already, or planned now by the
    change since `last`) with `extra`; when a page to be carried over is missing or changed in
    site/, every page is planned instead."""
    rest = planned if planned is not None else rest_of_site(ready, last)
    assert ready.caches.planned is not None
    carried = ready.caches.planned.carried
    try:
        return sync_outputs(
            ready, itertools.chain(rest, extra), progress, scope, "pages", inputs, carried=carried
        )
    except write.CarriedLost:
        everything = itertools.chain(rest_of_site(ready, None), extra)
        return sync_outputs(ready, everything, progress, scope, "pages", inputs)


def not_search(path: str) -> bool:
    """Whether a site path is outside the search index (synced on its own, last)."""
    return not in_search(path)


def prepare(
    root: Path,
    site_dir: Path,
    looked: shortcut.Look,
    strict: bool,
    overrides: Overrides,
    caches: Caches | None,
    workers: int,
    progress: Progress,
    surveyed: Future[Survey | None] | None,
) -> Ready:
    """Load, validate and model: BuildError when the problems fail the build (the seeds that
    parsed are kept in the cache: they need not be parsed again once the rest is fixed)."""
    ownership.claim(site_dir, root)
    progress("read", 0, 0)
    caches = caches or Caches.of(root)
    recorded = looked.files.regular
    project = load_project(
        root, caches.parses, overrides, recorded, keep_sources=caches.parses.on_disk, memo=caches.memo
    )
    basis = basis_of(project, recorded)
    if caches.model is None and caches.parses.on_disk:  # a process's first build: the model kept last
        authors = [parse.author for parse in project.seeds if parse.author is not None]
        path = root / snapshot.SNAPSHOT_FILE
        caches.model = snapshot.kept_model(path, authors, basis, project.lineage, project.sources)
    data, diagnostics = site_data(project, caches, basis)
    if fails(diagnostics, strict):
        caches.parses.save()
        raise BuildError(diagnostics)
    progress("model", 0, 0)
    found = tuple(diagnostics)
    return Ready(site_dir, looked.fingerprint, caches, project, data, found, workers, basis, surveyed)


def basis_of(project: Project, recorded: Mapping[str, bytes]) -> snapshot.Basis:
    """What the model of `project` is made of beyond its records: the digests of its seeds
    (`recorded`, the look's, by project path), lineage.txt and sources.yaml."""
    paths = [parse.author.path for parse in project.seeds if parse.author is not None]
    seeds = {path: recorded[path].hex() for path in paths if path in recorded}
    sources = recorded.get(SOURCES_FILE)
    return snapshot.Basis(seeds, lineage_digest(project.root), sources.hex() if sources else "")


def site_data(
    project: Project, caches: Caches | None = None, basis: snapshot.Basis | None = None
) -> tuple[SiteData, list[Diagnostic]]:
    """The data every output family reads, and every problem found before rendering (`basis`:
    what the model is of, with a model kept: see `snapshot.unchanged`)."""
    caches = caches or Caches(project.cache, Memo())
    site, author_pages, problems = model_of(project, caches.memo, caches.model)
    folder = project.root / TEMPLATES_FOLDER
    templates = Templates(folder, project.templates, caches.memo, caches.templates, project.config.portable)
    caches.templates = templates
    mark = caches.state.value("pages_model")
    unchanged = snapshot.unchanged(caches.model, site, mark, basis) if caches.model and basis else None
    data = SiteData(
        site=site,
        config=project.config,
        pages=project.pages,
        author_pages=author_pages,
        templates=templates,
        assets=project.assets,
        memo=caches.memo,
        sources=project.sources.following(site.former_keys),
        static=project.static,
        related_index=caches.related_index(),
        kept_network=caches.model.network if caches.model else KeptNetwork(),
        known=caches.page_plans().known,
        unchanged=unchanged,
        part_keys=PartKeys(caches.state.part_keys(), usable=unchanged is not None),
    )
    return data, sorted(project.diagnostics + problems)


@contextlib.contextmanager
def reported_with(diagnostics: Iterable[Diagnostic]) -> Iterator[None]:
    """Rendering or writing failed: report it with the problems found before."""
    try:
        yield
    except BuildError as exc:
        raise BuildError([*diagnostics, *exc.diagnostics]) from None


def sync_outputs(
    ready: Ready,
    items: Iterable[Produced],
    progress: Progress,
    scope: write.Scope | None,
    stage: str,
    inputs: str | None = None,
    only: set[str] | None = None,
    carried: frozenset[str] = frozenset(),
) -> write.SyncReport:
    """Sync outputs into the site, reporting progress as they are produced."""
    return write.sync(
        items,
        ready.site_dir,
        workers=ready.workers,
        scope=scope,
        progress=lambda done, total: progress(stage, done, total),
        inputs=inputs,
        only=only,
        carried=carried,
        surveyed=ready.surveyed,
        handover=write.Handover(ready.caches.memo.take_added, ready.caches.memo.add),
        leave=ready.left,
    )


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
    overrides: Overrides = NONE_GIVEN,
    workers: int | None = None,
    progress: Progress = quiet,
) -> CheckResult:
    """Everything a build would find, writing nothing: the build's problems in the same order,
    then the pages are rendered in memory (those `site_dir` holds from the same key excepted).
    An output folder the build would refuse is refused (`ownership.claim`)."""
    site_dir = site_dir or root / "site"
    ownership.claim(site_dir, root)
    progress("read", 0, 0)
    project = load_project(root, overrides=overrides)
    data, diagnostics = site_data(project, Caches(project.cache, Memo(root / MEMO_FILE)))
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

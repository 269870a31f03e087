"""The `link-sources` command: look papers up on arXiv, then ask OpenAlex about those it can
identify (`scholarsite.sources.openalex_step`), and record both in `sources.yaml`.

Looked up: papers without an entry, entries whose status is `unknown`, entries with a
hand-set `arxiv_id` and no metadata yet, and entries checked more than `max_age` days ago;
never `locked` ones. An entry with an `arxiv_id` (and not marked `not-found`) is fetched by
that id and keeps it; the others are searched by title. An `arxiv_id` left on a `not-found`
entry is a match rejected by hand, never proposed again.

arXiv is asked first, paper by paper; then OpenAlex, about the papers due (by chosen id one by
one, by DOI in batches). Each source succeeds or fails on its own: when one cannot be reached
(offline is known at its first request, in seconds), it is given up, what it answered so far is
kept, and the other is still asked; `Report.down` says which was given up and why.

The file is rewritten (atomically) after every lookup or batch, so an interrupted run loses at most
the lookup in flight; entries not looked up are written back as they were.
"""

from __future__ import annotations

import datetime
import difflib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from scholarsite.errors import BuildError
from scholarsite.inputs.sources import SOURCES_FILE, Candidate, SourceEntry, dump_sources
from scholarsite.inputs.sources_cache import SOURCES_CACHE, keep_written, read_sources_kept
from scholarsite.inputs.store import write_atomically
from scholarsite.model.model import Paper, Site
from scholarsite.progress import BuildProgress
from scholarsite.sources import MAX_AGE_DAYS, openalex_step
from scholarsite.sources.client import ArxivClient, LookupFailed, Record
from scholarsite.sources.matching import Outcome, Wanted, match
from scholarsite.sources.openalex import OpenAlexClient
from scholarsite.sources.polite import ApiUnreachable
from scholarsite.tex.render import tex_to_plain

ARXIV, OPENALEX = "arxiv", "openalex"
NAMES = {ARXIV: "arXiv", OPENALEX: "OpenAlex"}


@dataclass(frozen=True)
class Options:
    """What to look up: `only` these keys (all that are due when empty), at most `limit` on
    each of the `sources` asked."""

    max_age: int = MAX_AGE_DAYS
    limit: int | None = None
    only: tuple[str, ...] = ()
    sources: tuple[str, ...] = (ARXIV, OPENALEX)


@dataclass
class Report:
    """What a run did: the outcome of each arXiv lookup and of each OpenAlex one by paper key,
    and how many papers there are."""

    papers: int
    outcomes: dict[str, str] = field(default_factory=dict)
    impacts: dict[str, str] = field(default_factory=dict)
    sources: tuple[str, ...] = (ARXIV, OPENALEX)
    down: dict[str, str] = field(default_factory=dict)  # source: why it was given up

    def summary(self) -> str:
        """'looked up 3 of 30 papers: 2 found, 1 ambiguous, 0 not-found, 0 unknown; OpenAlex:
        asked about 2: 2 found, 0 not-found, 0 unknown', each part for a source asked."""
        parts = []
        if ARXIV in self.sources:
            found = tally(self.outcomes.values(), ("found", "ambiguous", "not-found", "unknown"))
            parts.append(f"looked up {len(self.outcomes)} of {self.papers} papers: {found}")
        if OPENALEX in self.sources:
            asked = tally(self.impacts.values(), ("found", "not-found", "unknown"))
            parts.append(f"OpenAlex: asked about {len(self.impacts)} of {self.papers} papers: {asked}")
        return "; ".join(parts)


def tally(outcomes: Iterable[str], statuses: tuple[str, ...]) -> str:
    """'2 found, 1 ambiguous, 0 not-found'."""
    counts = Counter(outcomes)
    return ", ".join(f"{counts[status]} {status}" for status in statuses)


class UnknownPaper(Exception):
    """`--only` named a key that is no paper of the collection."""


def link_sources(
    root: Path, options: Options, client: ArxivClient | None, alex: OpenAlexClient | None = None
) -> Report:
    """Look up on arXiv the papers that are due, then ask OpenAlex about those it is due for;
    rewrite `sources.yaml` after each lookup. A source that cannot be reached is given up
    (in `Report.down`), keeping what it answered; the other is still asked. The file is read
    through the build's cache, and the cache is left as the file written (`keep_written`)."""
    sources, problems = read_sources_kept(root, root / SOURCES_CACHE)
    if problems:
        raise BuildError(problems)
    site = site_of(root)
    papers = {paper.key: paper for paper in site.papers}
    entries = sources.following(site.former_keys).entries  # a corrected title keeps its entry
    check_only(papers, options.only)
    day = today()
    report = Report(len(papers), sources=options.sources)
    olds = dict(entries)
    arxiv = chosen(papers, entries, options, day) if client and ARXIV in options.sources else []
    with BuildProgress() as progress:
        if client is not None and arxiv:
            try:
                ask_arxiv(root, client, arxiv, papers, entries, report, day, progress)
            except ApiUnreachable as exc:
                report.down[ARXIV] = str(exc)
        if alex is not None and OPENALEX in options.sources:
            wanted = sorted(options.only or papers)
            keys = [k for k in wanted if ask_openalex(entries.get(k), olds.get(k), options, day)]
            limit = len(keys) if options.limit is None else max(options.limit, 0)
            try:
                ask_alex(root, alex, keys[:limit], entries, report, day, progress)
            except ApiUnreachable as exc:
                report.down[OPENALEX] = str(exc)
    keep_written(root)
    return report


def ask_arxiv(
    root: Path,
    client: ArxivClient,
    keys: list[str],
    papers: dict[str, Paper],
    entries: dict[str, SourceEntry],
    report: Report,
    day: datetime.date,
    progress: BuildProgress,
) -> None:
    """Look each paper up on arXiv, saving after each (ApiUnreachable passes through)."""
    for done, key in enumerate(keys):
        progress("asking arXiv", done, len(keys))
        old = entries.get(key)
        entry, report.outcomes[key] = look_up(client, papers[key], old, day)
        entries[key] = kept_by_hand(entry, old)
        save(root, entries)


def kept_by_hand(entry: SourceEntry, old: SourceEntry | None) -> SourceEntry:
    """A paper's new arXiv entry with what its old one had from OpenAlex and from a maintainer
    (type, links)."""
    if old is None:
        return entry
    return replace(entry, openalex=old.openalex, type=old.type, links=old.links)


def ask_alex(
    root: Path,
    alex: OpenAlexClient,
    keys: list[str],
    entries: dict[str, SourceEntry],
    report: Report,
    day: datetime.date,
    progress: BuildProgress,
) -> None:
    """Ask OpenAlex about each paper: by chosen id one at a time, else by DOI in batches;
    saving after each request (ApiUnreachable passes through)."""
    by_doi = {key: entries[key] for key in keys if openalex_step.batchable(entries[key])}
    steps: list[dict[str, SourceEntry]] = [{k: entries[k]} for k in keys if k not in by_doi]
    steps += openalex_step.batches(by_doi)
    done = 0
    for step in steps:
        progress("asking OpenAlex", done, len(keys))
        if len(step) == 1 and not openalex_step.batchable(*step.values()):
            answers = {key: openalex_step.look_up(alex, entry, day) for key, entry in step.items()}
        else:
            answers = openalex_step.look_up_batch(alex, step, day)
        for key, (entry, outcome) in answers.items():
            entries[key], report.impacts[key] = entry, outcome
        save(root, entries)
        done += len(step)


def ask_openalex(
    entry: SourceEntry | None, old: SourceEntry | None, options: Options, day: datetime.date
) -> bool:
    """OpenAlex should be asked about an entry now: named by `--only` (when it has an id to
    ask by and is not locked), or due (its ids changed if its arXiv lookup changed them)."""
    if entry is None:
        return False
    if options.only:
        return openalex_step.identified(entry) and not entry.locked
    changed = old is None or openalex_step.dois_of(entry) != openalex_step.dois_of(old)
    return openalex_step.due(entry, day, options.max_age, changed)


def today() -> datetime.date:
    """The date recorded as `checked` (a function, so tests can fix it)."""
    return datetime.date.today()


def site_of(root: Path) -> Site:
    """The collection's model (from the seeds that are accepted)."""
    from scholarsite.inputs.project import load_project
    from scholarsite.model.checks import model_of

    return model_of(load_project(root))[0]


def papers_of(root: Path) -> dict[str, Paper]:
    """The collection's papers by key."""
    return {paper.key: paper for paper in site_of(root).papers}


def chosen(
    papers: dict[str, Paper], entries: dict[str, SourceEntry], options: Options, day: datetime.date
) -> list[str]:
    """The keys to look up on arXiv, in key order: the `only` ones (unless locked), else those due."""
    if options.only:
        keys = [k for k in sorted(set(options.only)) if not _locked(entries.get(k))]
    else:
        keys = [k for k in sorted(papers) if due(entries.get(k), day, options.max_age)]
    return keys if options.limit is None else keys[: max(options.limit, 0)]


def check_only(papers: dict[str, Paper], only: tuple[str, ...]) -> None:
    """UnknownPaper when `only` names a key that is no paper's."""
    for key in only:
        if key not in papers:
            close = difflib.get_close_matches(key, papers, n=1, cutoff=0.6)
            raise UnknownPaper(
                f"no paper has the key {key!r}" + (f"; did you mean {close[0]!r}?" if close else "")
            )


def _locked(entry: SourceEntry | None) -> bool:
    """The entry is locked by hand."""
    return entry is not None and entry.locked


def due(entry: SourceEntry | None, day: datetime.date, max_age: int) -> bool:
    """The paper should be looked up now."""
    if entry is None:
        return True
    if entry.locked:
        return False
    if entry.status == "unknown" or (by_id(entry) and not entry.published):
        return True
    try:
        checked = datetime.date.fromisoformat(entry.checked)
    except ValueError:
        return True
    return (day - checked).days > max_age


def by_id(entry: SourceEntry | None) -> bool:
    """The entry names an arXiv id to fetch (set by hand or found before, not rejected)."""
    return entry is not None and bool(entry.arxiv_id) and entry.status != "not-found"


def look_up(
    client: ArxivClient, paper: Paper, old: SourceEntry | None, day: datetime.date
) -> tuple[SourceEntry, str]:
    """The paper's new entry and the lookup's outcome; when the API failed or answered
    nothing, the old entry (or a new `unknown` one) and `unknown`."""
    checked = day.isoformat()
    rejected = old.arxiv_id if old is not None and not by_id(old) else ""
    try:
        outcome = (
            fetched(client, old.arxiv_id)
            if old is not None and by_id(old)
            else searched(client, paper, rejected)
        )
    except LookupFailed:
        outcome = None
    if outcome is None:
        return old or SourceEntry("unknown", title=paper.title, checked=checked), "unknown"
    return entry_of(outcome, paper.title, checked, rejected), outcome.status


def fetched(client: ArxivClient, arxiv_id: str) -> Outcome | None:
    """`found` with the record of an id, or None when the API answered nothing."""
    records = [r for r in client.fetch(arxiv_id) if r.arxiv_id == arxiv_id]
    return Outcome("found", records[0]) if records else None


def searched(client: ArxivClient, paper: Paper, rejected: str) -> Outcome | None:
    """The outcome of a title search (skipping a rejected id), or None when it answered nothing."""
    wanted = Wanted(tex_to_plain(paper.title), paper.year, frozenset(s.code for s in paper.subjects))
    records = client.search_title(wanted.title)
    return match(wanted, [r for r in records if r.arxiv_id != rejected]) if records else None


def entry_of(outcome: Outcome, title: str, checked: str, rejected: str) -> SourceEntry:
    """The entry recording an outcome (a rejected id stays on a `not-found` entry)."""
    record = outcome.record
    if record is not None:
        return found_entry(record, title, checked)
    candidates = tuple(Candidate(r.arxiv_id, r.title, r.published) for r in outcome.candidates)
    arxiv_id = rejected if outcome.status == "not-found" else ""
    return SourceEntry(outcome.status, title=title, checked=checked, arxiv_id=arxiv_id, candidates=candidates)


def found_entry(record: Record, title: str, checked: str) -> SourceEntry:
    """A `found` entry with the record's metadata and the collection's title (for review)."""
    return SourceEntry(
        "found",
        title=title,
        checked=checked,
        arxiv_id=record.arxiv_id,
        version=record.version,
        doi=record.doi,
        journal_ref=record.journal_ref,
        primary_category=record.primary_category,
        published=record.published,
        updated=record.updated,
        authors=record.authors,
    )


def save(root: Path, entries: dict[str, SourceEntry]) -> None:
    """Write `sources.yaml` whole or not at all."""
    write_atomically(root / SOURCES_FILE, dump_sources(entries).encode("utf-8"))

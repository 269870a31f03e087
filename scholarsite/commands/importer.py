"""`scholarsite import`: write an author's seed from arXiv, ORCID (through OpenAlex) or BibTeX.

`plan` works out everything before anything is written: the works left out (`--exclude`, or
what a seed cannot hold) and those listed already, the seed text (a new file, or the author's
seed with the new records appended: one file per author, never a second), checked by parsing
it back, the change summary `add` prints, the `found` entries for `sources.yaml` and the ORCID
for the author's page. `apply` writes them, each file atomically.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from scholarsite.commands.add import (
    Changes,
    Refused,
    accepted,
    compare,
    free_name,
    require_seeds_folder,
    untouched_example,
)
from scholarsite.errors import BuildError, Diagnostic, Severity, error
from scholarsite.importing import author_page, found, from_arxiv, from_bibtex, from_orcid, seedtext
from scholarsite.importing.works import Fetched, Papers, Work, collapse
from scholarsite.inputs.freshness import latest_possible_year
from scholarsite.inputs.project import load_project
from scholarsite.inputs.seeds import SEED_SUFFIX, AuthorRecord, SeedParse, SeedRecord
from scholarsite.inputs.sources import (
    ARXIV_ID_RE,
    SOURCES_FILE,
    SourceEntry,
    Unwritable,
    dump_sources,
    load_sources,
    parse_sources,
)
from scholarsite.inputs.sources_cache import keep_written
from scholarsite.inputs.store import write_atomically
from scholarsite.inputs.unicode import normalise
from scholarsite.model.checks import identities_of
from scholarsite.model.identity import slug_for
from scholarsite.model.model import Identities, Site, build_model
from scholarsite.sources.client import ArxivClient
from scholarsite.sources.openalex import OpenAlexClient

EXCLUDE_PREFIX_RE = re.compile(
    r"^(?:arxiv:|https?://(?:dx\.)?doi\.org/|https?://arxiv\.org/abs/)", re.IGNORECASE
)
ARXIV_VERSIONED_RE = re.compile(rf"(?:{ARXIV_ID_RE.pattern})v\d+")
VERSION_RE = re.compile(r"v\d+$")


@dataclass(frozen=True)
class Request:
    """Where to import from (one of `arxiv_author`, `orcid`, `bibtex`), and how."""

    arxiv_author: str | None = None
    orcid: str | None = None
    bibtex: Path | None = None
    author: str | None = None  # the seed's name (BibTeX: required; ORCID: instead of OpenAlex's)
    api_url: str | None = None
    openalex_url: str | None = None
    mailto: str = ""
    openalex_key: str | None = None  # sent as api_key, never written
    environ: Mapping[str, str] = field(default_factory=dict)  # the variables the clients read


def fetch(request: Request) -> tuple[Fetched, list[Diagnostic]]:
    """What the source says of the author, and the problems of a BibTeX file; Refused for a
    request that cannot be made. The clients' errors (ApiUnreachable, LookupFailed, BadDelay)
    and LookupError (OpenAlex has no such ORCID) pass through."""
    if request.arxiv_author is not None:
        if request.author is not None:
            message = "--author goes with --orcid or --bibtex: an arXiv import's name is the one asked"
            raise Refused([error("import", 0, message)])
        return from_arxiv.fetch(
            ArxivClient(request.api_url, environ=request.environ), request.arxiv_author
        ), []
    if request.orcid is not None:
        alex = OpenAlexClient(
            request.openalex_url, mailto=request.mailto, api_key=request.openalex_key, environ=request.environ
        )
        fetched = from_orcid.fetch(alex, request.orcid, datetime.date.today().isoformat())
        fetched.name = request.author or fetched.name
        return fetched, []
    assert request.bibtex is not None
    if not request.author:
        hint = "name the author whose entries these are with --author"
        raise Refused([error(str(request.bibtex), 0, "no author named", hint)])
    try:
        return from_bibtex.fetch(request.bibtex, str(request.bibtex), request.author)
    except BuildError as exc:
        raise Refused(list(exc.diagnostics)) from None


@dataclass
class Plan:
    """What an import changes, and the bytes it writes."""

    changes: Changes
    notes: list[str]  # what the source said, and what was left out
    seed: str  # seeds/x.txt
    data: bytes | None  # the seed's new bytes; None when nothing is new
    updated: bool  # the seed existed
    added: int  # records added to it
    entries: dict[str, SourceEntry] = field(default_factory=dict)  # new sources.yaml entries
    sources: str | None = None  # sources.yaml's new text, when it has new entries
    page: tuple[str, str] | None = None  # (content/authors/x.md, its new text)
    unknown: dict[str, list[str]] = field(default_factory=dict)  # part -> new records without it

    def lines(self, verbose: bool = False) -> list[str]:
        """The summary as text (`verbose`: each new record without an abstract or subject)."""
        verb = "update" if self.updated else "add"
        written = [f"{verb} {self.seed}: {plural(self.added, 'new record')}"] if self.data else []
        entries = [f"{SOURCES_FILE}: {plural(len(self.entries), 'found entry')}"] if self.entries else []
        return (
            self.notes
            + written
            + entries
            + self.unknown_lines(verbose)
            + replace(self.changes, added_files=[]).lines()
        )

    def unknown_lines(self, verbose: bool) -> list[str]:
        """`36 new records without an abstract, 40 without a subject (...)`, once; then, when
        `verbose`, each of them."""
        counts = [f"{len(works)} without {part}" for part, works in self.unknown.items() if works]
        if not counts:
            return []
        hint = "" if verbose else "; --verbose lists them"
        lines = [f"new records {', '.join(counts)}: their sources give none (a note, not a warning{hint})"]
        if verbose:
            lines += [f"  without {part}: {where}" for part, works in self.unknown.items() for where in works]
        return lines

    def as_dict(self) -> dict[str, object]:
        """The summary as JSON data."""
        details = {
            "seed": self.seed,
            "updated": self.updated,
            "added_records": self.added,
            "notes": self.notes,
            "sources_entries": sorted(self.entries),
            "author_page": self.page[0] if self.page else None,
            "without": self.unknown,
        }
        return {**self.changes.as_dict(), "import": details}


def identifier_of(text: str) -> str:
    """An identifier as `Work.identifiers` has it: `arXiv:2502.19811v2` is `2502.19811`, a DOI's
    resolver is dropped, case is folded."""
    bare = EXCLUDE_PREFIX_RE.sub("", text.strip())
    return (VERSION_RE.sub("", bare) if ARXIV_VERSIONED_RE.fullmatch(bare) else bare).casefold()


def excluded(works: list[Work], exclude: tuple[str, ...]) -> tuple[list[Work], list[str]]:
    """The works `--exclude` does not name, and a note per exclusion."""
    wanted = {identifier_of(identifier) for identifier in exclude}
    kept: list[Work] = []
    notes: list[str] = []
    for work in works:
        if work.identifiers() & wanted:
            notes.append(f"excluded: {work.where or work.title}")
        else:
            kept.append(work)
    named = {i for work in works for i in work.identifiers() & wanted}
    return kept, notes + [f"--exclude {i}: no such work" for i in sorted(wanted - named)]


def seed_of(
    authors: list[AuthorRecord], identities: Identities, name: str, into: str | None
) -> AuthorRecord | None:
    """The accepted seed of the author `name` (by name, or as author pages say who is who),
    or the one `into` names; None when there is none."""
    if into is not None:
        chosen = [a for a in authors if a.path == into]
        if not chosen:
            raise Refused([error(into, 0, "no accepted seed file of this name", "name a file of seeds/")])
        return chosen[0]
    key, _ = identities.identity(AuthorRecord(name, "", 0, None, False, ()))
    same = [a for a in authors if normalise(a.name) == normalise(name) or identities.identity(a)[0] == key]
    if len(same) > 1:
        listed = ", ".join(a.path for a in same)
        hint = "name the one to update with --into"
        raise Refused([error(same[0].path, 0, f"several seeds list {name}: {listed}", hint)])
    return same[0] if same else None


def listed_already(
    existing: AuthorRecord | None, entries: dict[str, SourceEntry]
) -> tuple[Papers, list[SeedRecord]]:
    """The papers the author's seed lists, with the identifiers sources.yaml knows of them,
    and the record of each (by the papers' index)."""
    papers, records = Papers(), []
    for record in existing.records if existing else ():
        entry = entries.get(f"{record.year}/{normalise(record.title)}")
        ids = {"arxiv_id": entry.arxiv_id, "doi": entry.doi} if entry else {}
        work = Work(record.title, record.year, record.source, **ids)
        index = papers.find(work)
        records += [record] if index is None else []
        papers.put(index, work)
    return papers, records


@dataclass
class Sorting:
    """The works sorted: records to add, works the seed lists already (with its record), and
    a note per work left out."""

    new: list[tuple[SeedRecord, Work]] = field(default_factory=list)
    listed: list[tuple[SeedRecord, Work]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def sort_out(works: list[Work], existing: tuple[Papers, list[SeedRecord]]) -> Sorting:
    """The records to add, newest first: works listed already, and those a seed cannot hold,
    left out."""
    year = latest_possible_year()
    papers, records = existing
    sorting = Sorting()
    for work in works:
        if (index := papers.find(work)) is not None:
            sorting.listed.append((records[index], work))
            continue
        made = seedtext.record_of(work, year)
        if made.record is None:
            sorting.notes.append(f"left out: {work.where or work.title}: {made.reason}")
            continue
        sorting.notes += [f"{work.where or work.title}: {made.note}"] if made.note else []
        sorting.new.append((made.record, work))
    if sorting.listed:
        sorting.notes.append(f"listed already: {plural(len(sorting.listed), 'paper')}")
    sorting.new.sort(key=lambda pair: -pair[0].year)
    return sorting


def plural(count: int, noun: str) -> str:
    """`1 paper`, `2 papers`, `2 entries`."""
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {noun[:-1]}ies" if noun.endswith("y") else f"{count} {noun}s"


def plan(root: Path, fetched: Fetched, exclude: tuple[str, ...] = (), into: str | None = None) -> Plan:
    """Everything an import of `fetched` would change; Refused when it cannot be done."""
    name = seedtext.one_line(fetched.name)
    if not name:
        raise Refused([error("import", 0, "the author has no name", "give one with --author")])
    require_seeds_folder(root)
    entries, problems = load_sources(root)
    if problems:
        raise Refused(problems)
    project = load_project(root)
    authors = accepted(project)
    identities = identities_of(project.author_pages)[0]  # aliases merge, as in the build
    existing = seed_of(authors, identities, name, into)
    works, notes = excluded(fetched.works, exclude)
    works, twins = collapse(works)
    notes += [f"the same paper twice, kept once: {kept.where} and {other.where}" for kept, other in twins]
    sorting = sort_out(works, listed_already(existing, entries))
    notes = fetched.notes + notes + sorting.notes
    records = [record for record, _ in sorting.new]
    seed = existing.path if existing else new_seed_path(root, name)
    data, parse = seed_bytes(root, seed, name, existing, records) if records else (None, None)
    if data is None and existing is None:
        raise Refused([error("import", 0, f"nothing to import for {name}", "; ".join(notes[-3:]))])
    parsed, warnings = seed_author(parse, len(records)) if parse else (existing, [])
    assert parsed is not None
    site = build_model([*(a for a in authors if a is not existing), parsed], identities=identities)
    changes = compare(build_model(authors, identities=identities), site)
    changes.added_files = [seed] if existing is None else []
    changes.warnings = warnings
    changes.removed_files = untouched_example(root) if data is not None else []
    result = Plan(changes, notes, seed, data, existing is not None, len(records))
    result.unknown = unknown_parts(sorting.new)
    result.entries = learnt(site, parsed, sorting, entries)
    result.sources = sources_text(entries, result)
    if fetched.orcid:
        result.page = orcid_page(root, site, seed, fetched.orcid, result.notes)
    return result


def unknown_parts(new: list[tuple[SeedRecord, Work]]) -> dict[str, list[str]]:
    """Where each new record without an abstract or a subject came from (`refs.bib:12`)."""
    where = [(record, work.where or work.title) for record, work in new]
    return {
        "an abstract": [shown for record, shown in where if not record.abstract],
        "a subject": [shown for record, shown in where if not record.subjects],
    }


def new_seed_path(root: Path, name: str) -> str:
    """`seeds/<author-slug>.txt`, or `-2`, `-3`... when taken."""
    target = free_name(root / "seeds" / (slug_for(normalise(name), "author") + SEED_SUFFIX), set())
    return target.relative_to(root).as_posix()


def seed_bytes(
    root: Path, seed: str, name: str, existing: AuthorRecord | None, records: list[SeedRecord]
) -> tuple[bytes, SeedParse]:
    """The seed's new bytes and their parse, checked by parsing them back; Refused when they
    would not read so."""
    year = latest_possible_year()
    try:
        if existing is None:
            return seedtext.read_back(seedtext.new_seed(name, records), seed, name, records, year)
        text = (root / seed).read_bytes().decode("utf-8-sig")
        grown = seedtext.appended(text, existing, records)
        return seedtext.read_back(grown, seed, existing.name, [*existing.records, *records], year)
    except seedtext.NotWritable as exc:
        raise Refused([error(seed, 0, str(exc).removeprefix(f"{seed}: "))]) from None


def seed_author(parse: SeedParse, added: int) -> tuple[AuthorRecord, list[str]]:
    """The author of a seed's parse (verified: it has one), and the warnings about its last
    `added` records, as `add` lists them."""
    assert parse.author is not None
    first = parse.author.records[-added].line
    warnings = [d.format() for d in parse.diagnostics if d.severity is Severity.WARNING and d.line >= first]
    return parse.author, warnings


def learnt(
    site: Site, parsed: AuthorRecord, sorting: Sorting, entries: dict[str, SourceEntry]
) -> dict[str, SourceEntry]:
    """The `found` entries of what the works identify, new records and listed ones alike, by
    their papers' keys."""
    where = {(p.path, p.line): paper for paper in site.papers for p in paper.provenance}
    added = [r.line for r in parsed.records][len(parsed.records) - len(sorting.new) :]
    located = [((parsed.path, line), work) for line, (_, work) in zip(added, sorting.new, strict=True)]
    located += [((record.path, record.line), work) for record, work in sorting.listed]
    works = {where[at].key: (work, where[at].title) for at, work in located if at in where}
    return found.learnt(works, entries, datetime.date.today().isoformat())


def sources_text(entries: dict[str, SourceEntry], result: Plan) -> str | None:
    """sources.yaml with the new entries, once it reads back; None (and a note, the entries
    dropped) when there are none, or the file would not read back."""
    if not result.entries:
        return None
    try:
        text = dump_sources({**entries, **result.entries})
        problems = [problem.format() for problem in parse_sources(text, SOURCES_FILE)[1]]
    except Unwritable as exc:  # an entry that would not read back
        problems = [str(exc)]
    except BuildError as exc:  # YAML it refuses whole
        problems = [problem.format() for problem in exc.diagnostics]
    if problems:
        result.notes.append(f"{SOURCES_FILE}: the new entries are not written: {problems[0]}")
        result.entries = {}
        return None
    return text


def orcid_page(root: Path, site: Site, seed: str, orcid: str, notes: list[str]) -> tuple[str, str] | None:
    """(the author's page, its text with the ORCID) when it changes; what was done in `notes`."""
    author = next(a for a in site.authors if seed in a.seed_paths)
    shown = f"content/authors/{author.slug}.md"
    path = root / shown
    text = path.read_bytes().decode("utf-8-sig") if path.is_file() else None
    changed, note = author_page.with_orcid(text, orcid, shown)
    notes += [note] if note else []
    return (shown, changed) if changed is not None else None


def apply(root: Path, result: Plan) -> None:
    """Write the seed, the new sources.yaml entries and the author's page."""
    if result.data is not None:
        write_atomically(root / result.seed, result.data)
    if result.sources is not None:
        write_atomically(root / SOURCES_FILE, result.sources.encode("utf-8"))
        keep_written(root)
    if result.page is not None:
        write_atomically(root / result.page[0], result.page[1].encode("utf-8"))
    for name in result.changes.removed_files:
        (root / name).unlink(missing_ok=True)

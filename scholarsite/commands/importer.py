"""`scholarsite import`: write an author's seed from arXiv, ORCID (through OpenAlex) or BibTeX.

`plan` works out everything before anything is written: the works left out (`--exclude`, or
what a seed cannot hold) and those listed already, the seed text (a new file, or the author's
seed with the new records appended: one file per author, never a second), checked by parsing
it back, the change summary `add` prints, the `found` entries for `sources.yaml` and the ORCID
for the author's page. `apply` writes them, each file atomically.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from pathlib import Path

from scholarsite import pipeline
from scholarsite.commands.add import Changes, Refused, accepted, free_name, summarise
from scholarsite.errors import error
from scholarsite.importing import author_page, found, seedtext
from scholarsite.importing.works import Fetched, Papers, Work, collapse
from scholarsite.inputs.freshness import latest_possible_year
from scholarsite.inputs.seeds import SEED_SUFFIX, AuthorRecord, SeedRecord, parse_seed
from scholarsite.inputs.sources import SOURCES_FILE, SourceEntry, dump_sources, load_sources
from scholarsite.inputs.store import write_atomically
from scholarsite.inputs.unicode import normalise
from scholarsite.model.identity import slug_for
from scholarsite.model.model import Identities, build_model


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
    page: tuple[str, str] | None = None  # (content/authors/x.md, its new text)

    def lines(self) -> list[str]:
        """The summary as text."""
        verb, plural = "update" if self.updated else "add", "s" * (self.added != 1)
        written = [f"{verb} {self.seed}: {self.added} new record{plural}"] if self.data else []
        entries = [f"{SOURCES_FILE}: {len(self.entries)} found entries"] if self.entries else []
        return self.notes + written + entries + self.changes.lines()

    def as_dict(self) -> dict[str, object]:
        """The summary as JSON data."""
        details = {
            "seed": self.seed,
            "updated": self.updated,
            "added_records": self.added,
            "notes": self.notes,
            "sources_entries": sorted(self.entries),
            "author_page": self.page[0] if self.page else None,
        }
        return {**self.changes.as_dict(), "import": details}


def excluded(works: list[Work], exclude: tuple[str, ...]) -> tuple[list[Work], list[str]]:
    """The works `--exclude` does not name, and a note per exclusion."""
    wanted = {identifier.casefold() for identifier in exclude}
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


def listed_already(existing: AuthorRecord | None, entries: dict[str, SourceEntry]) -> Papers:
    """The papers the author's seed lists, with the identifiers sources.yaml knows of them."""
    papers = Papers()
    for record in existing.records if existing else ():
        entry = entries.get(f"{record.year}/{normalise(record.title)}")
        ids = {"arxiv_id": entry.arxiv_id, "doi": entry.doi} if entry else {}
        work = Work(record.title, record.year, record.source, **ids)
        papers.put(papers.find(work), work)
    return papers


def new_records(works: list[Work], existing: Papers) -> tuple[list[tuple[SeedRecord, Work]], list[str]]:
    """The records to add, newest first (works listed already, or that a seed cannot hold, left
    out), and a note per work left out."""
    year = latest_possible_year()
    made: list[tuple[SeedRecord, Work]] = []
    notes: list[str] = []
    listed = 0
    for work in works:
        if existing.find(work) is not None:
            listed += 1
            continue
        result = seedtext.record_of(work, year)
        if result.record is None:
            notes.append(f"left out: {work.where or work.title}: {result.reason}")
            continue
        notes += [f"{work.where or work.title}: {result.note}"] if result.note else []
        made.append((result.record, work))
    notes += [f"listed already: {listed} papers"] if listed else []
    return sorted(made, key=lambda pair: -pair[0].year), notes


def plan(root: Path, fetched: Fetched, exclude: tuple[str, ...] = (), into: str | None = None) -> Plan:
    """Everything an import of `fetched` would change; Refused when it cannot be done."""
    name = seedtext.one_line(fetched.name)
    if not name:
        raise Refused([error("import", 0, "the author has no name", "give one with --author")])
    entries, problems = load_sources(root)
    if problems:
        raise Refused(problems)
    project = pipeline.load_project(root)
    authors = accepted(project)
    existing = seed_of(authors, project.identities, name, into)
    works, notes = excluded(fetched.works, exclude)
    works, twins = collapse(works)
    notes += [f"the same paper twice, kept once: {kept.where} and {other.where}" for kept, other in twins]
    pairs, left_out = new_records(works, listed_already(existing, entries))
    notes = fetched.notes + notes + left_out
    records = [record for record, _ in pairs]
    seed = existing.path if existing else new_seed_path(root, name)
    data = seed_bytes(root, seed, name, existing, records) if records else None
    if data is None and existing is None:
        raise Refused([error("import", 0, f"nothing to import for {name}", "; ".join(notes[-3:]))])
    after = [a for a in authors if a is not existing]
    parsed = seed_author(seed, data) if data else existing
    changes = summarise(project, authors, [*after, parsed])
    changes.added_files = [seed] if existing is None else []
    result = Plan(changes, notes, seed, data, existing is not None, len(records))
    learn(result, project, [*after, parsed], pairs, entries)
    if fetched.orcid:
        result.page = orcid_page(root, project, [*after, parsed], seed, fetched.orcid, result.notes)
    return result


def new_seed_path(root: Path, name: str) -> str:
    """`seeds/<author-slug>.txt`, or `-2`, `-3`... when taken."""
    target = free_name(root / "seeds" / (slug_for(normalise(name), "author") + SEED_SUFFIX), set())
    return target.relative_to(root).as_posix()


def seed_bytes(
    root: Path, seed: str, name: str, existing: AuthorRecord | None, records: list[SeedRecord]
) -> bytes:
    """The seed's new bytes, checked by parsing them back; Refused when they would not read so."""
    year = latest_possible_year()
    try:
        if existing is None:
            return seedtext.verified(seedtext.new_seed(name, records), seed, name, records, year)
        text = (root / seed).read_bytes().decode("utf-8-sig")
        grown = seedtext.appended(text, existing, records)
        return seedtext.verified(grown, seed, existing.name, [*existing.records, *records], year)
    except seedtext.NotWritable as exc:
        raise Refused([error(seed, 0, str(exc).removeprefix(f"{seed}: "))]) from None


def seed_author(seed: str, data: bytes) -> AuthorRecord:
    """The author a seed's bytes give (they are verified: they parse)."""
    author = parse_seed(data, seed, latest_year=latest_possible_year()).author
    assert author is not None
    return author


def learn(
    result: Plan,
    project: pipeline.Project,
    authors: list[AuthorRecord],
    pairs: list[tuple[SeedRecord, Work]],
    entries: dict[str, SourceEntry],
) -> None:
    """The `found` entries of the new records' identifiers, by their papers' keys."""
    if not pairs:
        return
    site = build_model(authors, identities=project.identities)
    where = {(p.path, p.line): paper for paper in site.papers for p in paper.provenance}
    lines = [r.line for a in authors if a.path == result.seed for r in a.records][-len(pairs) :]
    works = {}
    for line, (_, work) in zip(lines, pairs, strict=True):
        paper = where[(result.seed, line)]
        works[paper.key] = (work, paper.title)
    result.entries = found.learnt(works, entries, datetime.date.today().isoformat())


def orcid_page(
    root: Path,
    project: pipeline.Project,
    authors: list[AuthorRecord],
    seed: str,
    orcid: str,
    notes: list[str],
) -> tuple[str, str] | None:
    """(the author's page, its text with the ORCID) when it changes; what was done in `notes`."""
    site = build_model(authors, identities=project.identities)
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
    if result.entries:
        entries, _ = load_sources(root)
        write_atomically(root / SOURCES_FILE, dump_sources({**entries, **result.entries}).encode("utf-8"))
    if result.page is not None:
        write_atomically(root / result.page[0], result.page[1].encode("utf-8"))

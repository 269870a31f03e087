"""Seed text from works, in the scrape's format, written so that it parses back to the same records.

`record_of` makes a work a seed record the grammar reads back unchanged: every block one line
(control characters dropped, spacing collapsed, as the reader does), a title that is not a
subject line, abstract paragraphs that cannot end the abstract early (when one reads as a
subject line or a source-and-year line, the paragraphs are joined into one, and an abstract that
still reads so is left out), known arXiv subject codes each once, and a year the reader accepts.
Each record begins with one of the seeds module's WRITTEN_SOURCES, which the reader takes for the
start of a record even after a record without a subject line.

`new_seed` writes a whole file; `appended` adds records to an existing one, changing nothing of
it but its count line. Both are checked by parsing the result (`verified`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice

from scholarsite.errors import Severity
from scholarsite.importing.works import Work
from scholarsite.inputs import taxonomy
from scholarsite.inputs.records import KINDS, NO_DETAILS, Details
from scholarsite.inputs.seeddetails import MAX_AUTHORS, details_lines, is_details, parse_details
from scholarsite.inputs.seeds import (
    ARROW,
    COUNT_RE,
    EARLIEST_YEAR,
    MAX_ABSTRACT,
    MAX_RECORDS,
    MAX_SEED_BYTES,
    MAX_TITLE,
    WRITTEN_SOURCES,
    AuthorRecord,
    SeedParse,
    SeedRecord,
    is_marked_subject_line,
    parse_seed,
    parse_source_year,
    parse_subjects,
    shorten,
    split_blocks,
)
from scholarsite.inputs.text import CONTROL_RE

HEADER = "arXiv subjects"
PARAGRAPH_BREAK_RE = re.compile(r"\n[^\S\n]*\n")
NUMBER_RE = re.compile(r"\d[\d,]*")
READS_AS = "reads as a subject line or a record's first line"
UNWRITABLE_RE = re.compile(f"{CONTROL_RE.pattern}|[\ud800-\udfff]")
WRITTEN_AUTHORS = 100  # names a record lists at most; a longer list is cut and ends in et al.
assert WRITTEN_AUTHORS <= MAX_AUTHORS


class NotWritable(Exception):
    """The seed text would not read back as the records meant (names the file)."""


@dataclass(frozen=True)
class Made:
    """A work made a record, or the reason it cannot be one; a note when part of it was left out."""

    work: Work
    record: SeedRecord | None
    reason: str = ""
    note: str = ""


def one_line(text: str) -> str:
    """`text` as the seed reader sees one block of it: no control characters, one space
    between words (and no lone surrogates, which UTF-8 cannot hold)."""
    return " ".join(UNWRITABLE_RE.sub("", text).split())


def reads_as_structure(paragraph: str) -> bool:
    """A paragraph the reader could take for a subject line, a record's first line or a
    details block."""
    return (
        parse_subjects(paragraph) is not None
        or parse_source_year(paragraph) is not None
        or is_details((paragraph,))
    )


def abstract_paragraphs(abstract: str) -> tuple[list[str], str]:
    """The paragraphs to write for an abstract, and a note when it was changed or left out."""
    paragraphs = [p for p in map(one_line, PARAGRAPH_BREAK_RE.split(UNWRITABLE_RE.sub("", abstract))) if p]
    note = ""
    if any(map(reads_as_structure, paragraphs)):
        paragraphs, note = (
            [" ".join(paragraphs)],
            "abstract paragraphs joined: one read as a subject line or a record's first line",
        )
        if reads_as_structure(paragraphs[0]):
            return [], f"abstract left out: it {READS_AS}"
    length = len("\n\n".join(paragraphs))
    if length > MAX_ABSTRACT:
        return [], f"abstract left out: {length:,} characters, seeds allow {MAX_ABSTRACT:,}"
    return paragraphs, note


def known_subjects(codes: tuple[str, ...]) -> tuple[str, ...]:
    """The codes arXiv's taxonomy knows, each once, in order (ACM and MSC classes left out)."""
    known = (code for code in codes if taxonomy.is_plausible_code(code) and taxonomy.lookup(code))
    return tuple(dict.fromkeys(known))


def record_of(work: Work, latest_year: int) -> Made:
    """The seed record of a work, or why it cannot be one."""
    if work.source.casefold() not in WRITTEN_SOURCES:
        raise ValueError(f"not a source import writes: {work.source!r}")
    title = one_line(work.title)
    if not title:
        return Made(work, None, "no title")
    if len(title) > MAX_TITLE:
        return Made(work, None, f"the title has {len(title):,} characters; seeds allow {MAX_TITLE:,}")
    if is_marked_subject_line(title):
        return Made(work, None, "the title reads as a subject line")
    if not EARLIEST_YEAR <= work.year <= latest_year:
        return Made(work, None, f"no year from {EARLIEST_YEAR} to {latest_year}")
    paragraphs, note = abstract_paragraphs(work.abstract)
    details, dropped = details_of(work)
    record = SeedRecord(
        work.source, work.year, title, "\n\n".join(paragraphs), known_subjects(work.subjects), "", 0, details
    )
    return Made(work, record, note="; ".join(filter(None, [note, *dropped])))


def author_name(name: str) -> str:
    """A name as an Authors line can hold it: one line, no `;` (it separates names)."""
    return one_line(name.replace(";", ","))


@lru_cache(maxsize=64)  # a file may give thousands of works one long list (issue 29)
def written_names(authors: tuple[str, ...]) -> tuple[list[str], bool]:
    """The first WRITTEN_AUTHORS names as an Authors line holds them, and whether there are
    more; a long list is never cleaned whole."""
    cleaned = (n for n in map(author_name, authors) if n and n != "et al.")
    names = list(islice(cleaned, WRITTEN_AUTHORS + 1))
    return names[:WRITTEN_AUTHORS], len(names) > WRITTEN_AUTHORS


def details_of(work: Work) -> tuple[Details, list[str]]:
    """A work's details as its seed record's block reads them back, and what was left out
    (a value the grammar refuses); at most WRITTEN_AUTHORS names."""
    names, cut = written_names(work.authors)
    more = work.more_authors or cut
    kind = work.kind if work.kind in KINDS else ""
    wanted = Details(
        tuple(names),
        more and bool(names),
        one_line(work.journal_ref),
        kind,
        one_line(work.doi),
        one_line(work.url),
        one_line(work.published),
    )
    lines = tuple(details_lines(wanted))
    if not lines:
        return NO_DETAILS, []
    details, problems = parse_details(lines, "", 1)
    return details, [problem.message for problem in problems]


def record_blocks(record: SeedRecord) -> list[str]:
    """The blocks of one record: source and year, title, details (a block of lines), abstract
    paragraphs, subject line."""
    blocks = [f"{record.source}{record.year}", record.title]
    blocks += ["\n".join(details_lines(record.details))] if record.details != NO_DETAILS else []
    blocks += record.abstract.split("\n\n") if record.abstract else []
    return blocks + ([" ".join(f"{code}{ARROW}" for code in record.subjects)] if record.subjects else [])


def count_line(count: int) -> str:
    """`18 records`."""
    return f"{count} record{'s' * (count != 1)}"


def new_seed(name: str, records: list[SeedRecord]) -> str:
    """A seed file for `name` listing `records`."""
    name = one_line(name)
    head = [HEADER, name, f"Publications and source records attributed to {name}.", count_line(len(records))]
    return "\n\n".join(head + [block for record in records for block in record_blocks(record)]) + "\n"


def appended(text: str, existing: AuthorRecord, records: list[SeedRecord]) -> str:
    """`text` (the seed of `existing`) with `records` added at its end and its count line
    updated: an exact count becomes the number listed, 'at least N' never decreases."""
    total = len(existing.records) + len(records)
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.split("\n")
    count = next((b for b in split_blocks(text)[:5] if COUNT_RE.fullmatch(b.text)), None)
    if count is not None and existing.claimed_count is not None:
        claimed = max(existing.claimed_count, total) if existing.at_least else total
        number = NUMBER_RE.search(lines[count.line - 1])
        if number:
            line = lines[count.line - 1]
            lines[count.line - 1] = line[: number.start()] + str(claimed) + line[number.end() :]
    blocks = [block.replace("\n", newline) for record in records for block in record_blocks(record)]
    return "\n".join(lines).rstrip() + newline * 2 + (newline * 2).join(blocks) + newline


def verified(text: str, path: str, name: str, records: list[SeedRecord], latest_year: int) -> bytes:
    """The bytes of `text`, once parsing them gives `name` and exactly `records` with no error;
    NotWritable otherwise."""
    return read_back(text, path, name, records, latest_year)[0]


def read_back(
    text: str, path: str, name: str, records: list[SeedRecord], latest_year: int
) -> tuple[bytes, SeedParse]:
    """The bytes of `text` and their parse, once it gives `name` and exactly `records` with no
    error (`verified`); NotWritable otherwise."""
    data = text.encode("utf-8")
    if len(data) > MAX_SEED_BYTES or len(records) > MAX_RECORDS:
        raise NotWritable(
            f"{path}: more than seeds allow ({MAX_RECORDS:,} records, {MAX_SEED_BYTES:,} bytes)"
        )
    parse = parse_seed(data, path, latest_year=latest_year)
    if parse.rejected or parse.author is None or parse.author.name != one_line(name):
        problems = "; ".join(d.format() for d in parse.diagnostics if d.severity is Severity.ERROR)
        raise NotWritable(f"{path}: the seed text would not read back ({problems or 'another name'})")
    read, meant = [essence(r) for r in parse.author.records], [essence(r) for r in records]
    if read != meant:
        index = next((i for i, (a, b) in enumerate(zip(read, meant, strict=False)) if a != b), len(meant))
        title = (meant if index < len(meant) else read)[index][2]
        raise NotWritable(f"{path}: record {index + 1} would read back differently ('{shorten(title)}')")
    return data, parse


def essence(record: SeedRecord) -> tuple[str, int, str, str, tuple[str, ...], Details]:
    """What a record says, wherever it is."""
    return (record.source, record.year, record.title, record.abstract, record.subjects, record.details)

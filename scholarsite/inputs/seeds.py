"""Seed records: the scraped plain-text publication profiles, parsed into `AuthorRecord`s.

A seed is a sequence of blocks separated by blank lines::

    arXiv subjects                                   (header, optional)
    Ziheng Jiang                                     (the author's name)
    Publications and source records attributed to Ziheng Jiang.
    At least 19 recordsLinked to original sources   (claimed count)
    arXiv2026                                        (record: source and year)
    Mesh-Attention: ...                              (title)
    Authors: Ziheng Jiang; ...                       (details, optional: see `seeddetails`)
    Distributed attention is ...                     (abstract, one or more paragraphs)
    cs.DC↗                                           (subjects)

`parse_seed` is pure: it never raises for any input, it returns diagnostics instead.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from scholarsite.errors import BuildError, Diagnostic, Severity, error, note, warning
from scholarsite.inputs import taxonomy
from scholarsite.inputs.example import EXAMPLE_NAME, EXAMPLE_NOTE, is_example
from scholarsite.inputs.files import read_input
from scholarsite.inputs.listing import Name, sorted_names
from scholarsite.inputs.memo import Memo
from scholarsite.inputs.records import NO_DETAILS, AuthorRecord, Details, SeedParse, SeedRecord
from scholarsite.inputs.seeddetails import is_details, parse_details
from scholarsite.inputs.seedlines import (
    ARROW,
    ATTRIBUTION_RE,
    COUNT_RE,
    EARLIEST_YEAR,
    HEADER_RE,
    LONG_TITLE,
    MAX_ABSTRACT,
    MAX_RECORDS,
    MAX_SEED_BYTES,
    MAX_TITLE,
    NO_SEEDS_HINT,
    SEED_SUFFIX,
    WRITTEN_SOURCES,
    Block,
    is_marked_subject_line,
    lookalike_hint,
    missing_part,
    parse_source_year,
    parse_subjects,
    reads_as_title,
    shorten,
    split_blocks,
)
from scholarsite.inputs.text import decode
from scholarsite.inputs.unicode import mixed_script_words, normalise
from scholarsite.tex import render as tex

__all__ = [
    "MAX_RECORDS",
    "MAX_SEED_BYTES",
    "NO_SEEDS_HINT",
    "SEED_SUFFIX",
    "AuthorRecord",
    "SeedParse",
    "SeedRecord",
    "is_seed_file",
    "parse_seed",
    "read_seeds",
    "shorten",
]


class SeedParser:
    """Walks the blocks of one seed file, collecting the author, records and diagnostics."""

    def __init__(
        self, blocks: list[Block], path: str, latest_year: int, math: tex.MathCheck = tex.math_check
    ):
        self.blocks = blocks
        self.path = path
        self.latest_year = latest_year
        self.math = math  # how a math body's problems are found
        self.position = 0
        self.diagnostics: list[Diagnostic] = []
        self.sources: set[str] = set()
        self.unknown = {"abstract": 0, "subject line": 0}  # imported records without them

    def peek(self) -> Block | None:
        """The next block, not consumed."""
        return self.blocks[self.position] if self.position < len(self.blocks) else None

    def take(self) -> Block:
        """Consume and return the next block."""
        block = self.blocks[self.position]
        self.position += 1
        return block

    def report(self, diagnostic: Diagnostic) -> None:
        """Remember a problem."""
        self.diagnostics.append(diagnostic)

    def parse(self) -> AuthorRecord | None:
        """The whole file: header, name, attribution, count, then records."""
        first = self.peek()
        if first is not None and HEADER_RE.fullmatch(first.text):
            self.take()
        name_block = self.parse_name()
        if name_block is None:
            return None
        self.parse_attribution(name_block)
        claimed, at_least, count_line = self.parse_count()
        records = self.parse_records()
        if any(d.severity is Severity.ERROR for d in self.diagnostics):
            return None
        self.check_count(claimed, at_least, count_line, len(records))
        self.report_unknown()
        return AuthorRecord(name_block.text, self.path, name_block.line, claimed, at_least, tuple(records))

    def parse_name(self) -> Block | None:
        """The author's name, the first block after the header."""
        block = self.peek()
        hint = "the file should start with 'arXiv subjects', then the author's name"
        if block is None:
            self.report(error(self.path, 1, "no author name: the file has no content", hint))
            return None
        following = self.blocks[self.position + 1] if self.position + 1 < len(self.blocks) else None
        attributed_next = following is not None and ATTRIBUTION_RE.fullmatch(following.text)
        looks_structural = (
            ATTRIBUTION_RE.fullmatch(block.text)
            or COUNT_RE.fullmatch(block.text)
            or (parse_source_year(block.text))
        )
        if looks_structural and not attributed_next:
            self.report(error(self.path, block.line, "no author name before this line", hint))
            return None
        self.check_lookalikes(block, "author")
        return self.take()

    def parse_attribution(self, name: Block) -> None:
        """`Publications and source records attributed to NAME.` must agree with the name."""
        block = self.peek()
        match = ATTRIBUTION_RE.fullmatch(block.text) if block else None
        if block is None or match is None:
            line = block.line if block else name.line
            expected = f"expected 'Publications and source records attributed to {name.text}.'"
            self.report(warning(self.path, line, expected))
            return
        self.take()
        if normalise(match["name"]) != normalise(name.text):
            self.report(
                error(
                    self.path,
                    block.line,
                    f"the records are attributed to {match['name']!r}, "
                    f"but the author's name (line {name.line}) is {name.text!r}",
                    "make the name line and the 'attributed to' line agree",
                )
            )

    def parse_count(self) -> tuple[int | None, bool, int]:
        """The claimed record count (`At least 19 records`, `18 records`) and its line."""
        block = self.peek()
        match = COUNT_RE.fullmatch(block.text) if block else None
        if block is None or match is None:
            line = block.line if block else 0
            self.report(warning(self.path, line, "expected a count line such as '18 records'"))
            return None, False, line
        self.take()
        return int(match["count"].replace(",", "")), bool(match["at_least"]), block.line

    def check_count(self, claimed: int | None, at_least: bool, line: int, listed: int) -> None:
        """Warn when an exact count disagrees with the records listed ("at least N" never does)."""
        if claimed is None or at_least or claimed == listed:
            return
        claim = f"at least {claimed}" if at_least else str(claimed)
        message = f"the count line claims {claim} records, but {listed} are listed"
        self.report(warning(self.path, line, message))

    def parse_records(self) -> list[SeedRecord]:
        """Every record up to the end of the file."""
        records: list[SeedRecord] = []
        seen: dict[SeedRecord, int] = {}
        while self.peek() is not None:
            record = self.parse_record()
            if record is None:
                continue
            twin = replace(record, line=0)
            if twin in seen:
                message = f"duplicate of the record at line {seen[twin]} ('{shorten(record.title)}'); merged"
                self.report(warning(self.path, record.line, message))
            else:
                seen[twin] = record.line
            records.append(record)
            if len(records) > MAX_RECORDS:
                message = f"more than {MAX_RECORDS:,} records in one file; the rest is not read"
                self.report(error(self.path, record.line, message, "split the profile into several files"))
                break
        return records

    def skip_to_next_record(self) -> None:
        """After an error, resynchronise on the next source-and-year line."""
        while (block := self.peek()) is not None and parse_source_year(block.text) is None:
            self.take()

    def parse_record(self) -> SeedRecord | None:
        """One record: source-and-year, title, abstract paragraphs, subject line."""
        head = self.take()
        source_year = parse_source_year(head.text)
        if source_year is None:
            self.report(
                error(
                    self.path,
                    head.line,
                    f"expected a source-and-year line such as 'arXiv2025', found '{shorten(head.text)}'",
                )
            )
            self.skip_to_next_record()
            return None
        source, digits = source_year
        self.sources.add(source.casefold())
        year = self.check_year(digits, head.line)
        title = self.parse_title(head)
        if title is None:
            return None
        details = self.parse_details()
        imported = details is not None
        abstract = self.parse_abstract(title, source, imported)
        subjects = self.parse_subject_line(title, source, imported)
        if year is None:
            return None
        return SeedRecord(
            source, year, title.text, abstract, subjects, self.path, head.line, details or NO_DETAILS
        )

    def parse_details(self) -> Details | None:
        """The details block after a title (see `seeddetails`), or None when there is none."""
        block = self.peek()
        if block is None or not is_details(block.lines):
            return None
        self.take()
        details, problems = parse_details(block.lines, self.path, block.line)
        self.diagnostics += problems
        return details

    def report_unknown(self) -> None:
        """One note for the imported records without an abstract or subject line: their
        source had none to give, which is no fault of the file."""
        missing = [
            f"{count} without {'an' if part == 'abstract' else 'a'} {part}"
            for part, count in self.unknown.items()
            if count
        ]
        if missing:
            message = f"imported records {' and '.join(missing)} (their sources give none)"
            self.report(note(self.path, 0, message))

    def check_year(self, digits: str, line: int) -> int | None:
        """The year, or an error when it is impossible."""
        year = int(digits)
        if len(digits) == 4 and EARLIEST_YEAR <= year <= self.latest_year:
            return year
        self.report(
            error(
                self.path,
                line,
                f"impossible year {digits}: expected a year from {EARLIEST_YEAR} to {self.latest_year}",
            )
        )
        return None

    def parse_title(self, head: Block) -> Block | None:
        """The block after a source-and-year line is the title, whatever it looks like.

        Only a subject line with the scrape's arrow is not: then the record has no title."""
        block = self.peek()
        if block is None or is_marked_subject_line(block.text):
            self.report(
                error(
                    self.path,
                    head.line,
                    f"record '{head.text}' has no title",
                    "a record is: source and year, title, abstract, subject line",
                )
            )
            if block is not None:
                self.take()
            return None
        self.take()
        if len(block.text) > MAX_TITLE:
            message = (
                f"the title is {len(block.text):,} characters long; titles may have at most {MAX_TITLE:,}"
            )
            self.report(error(self.path, block.line, message))
        elif len(block.text) > LONG_TITLE:
            message = (
                f"the title of record '{head.text}' is {len(block.text)} characters long: "
                "is the title missing, so that the abstract was read as the title?"
            )
            self.report(warning(self.path, block.line, message))
        self.check_tex(block)
        self.check_lookalikes(block, "paper")
        return block

    def parse_abstract(self, title: Block, source: str, imported: bool = False) -> str:
        """Abstract paragraphs up to the subject line or the start of the next record (an
        imported record without one is counted, for one note)."""
        paragraphs: list[str] = []
        while (block := self.peek()) is not None and not self.ends_abstract(self.position):
            self.check_tex(self.take())
            self.check_run_together(block)
            paragraphs.append(block.text)
        if not paragraphs and imported:
            self.unknown["abstract"] += 1
        elif not paragraphs:
            missing = f"record '{shorten(title.text)}' has no abstract"
            self.report(missing_part(self.path, title.line, source, missing))
        abstract = "\n\n".join(paragraphs)
        if len(abstract) > MAX_ABSTRACT:
            limit = f"abstracts may have at most {MAX_ABSTRACT:,}"
            message = f"the abstract is {len(abstract):,} characters long; {limit}"
            self.report(error(self.path, title.line, message))
        return abstract

    def ends_abstract(self, index: int) -> bool:
        """Block `index` is the subject line, or the next record begins there.

        A subject line without the arrow counts only where a record may end: before the end of
        the file or a source-and-year line. Without any subject line, a record begins at a
        source-and-year line naming a source this file already used, followed by a title."""
        text = self.blocks[index].text
        following = self.blocks[index + 1].text if index + 1 < len(self.blocks) else None
        if parse_subjects(text) is not None and (
            ARROW in text or following is None or parse_source_year(following) is not None
        ):
            return True
        return following is not None and self.starts_record(text)

    def starts_record(self, text: str) -> bool:
        """A source-and-year line with a 4-digit year and a source seen before in this file
        (or one of the WRITTEN_SOURCES)."""
        source_year = parse_source_year(text)
        if source_year is None:
            return False
        source, digits = source_year
        return source.casefold() in self.sources | WRITTEN_SOURCES and len(digits) == 4

    def parse_subject_line(self, title: Block, source: str, imported: bool = False) -> tuple[str, ...]:
        """Subject codes, with warnings for unknown codes, and for a missing line (a note
        for sources other than arXiv: `missing_part`; counted for an imported record)."""
        block = self.peek()
        codes = parse_subjects(block.text) if block and self.ends_abstract(self.position) else None
        if (block is None or codes is None) and imported:
            self.unknown["subject line"] += 1
            return ()
        if block is None or codes is None:
            line = block.line if block else title.line
            expected = (
                f"expected a subject line such as 'cs.DC↗' after the abstract of '{shorten(title.text)}'"
            )
            missing = f"record '{shorten(title.text)}' has no subject line"
            self.report(missing_part(self.path, line, source, expected, missing))
            return ()
        self.take()
        for code in codes:
            if taxonomy.lookup(code) is None:
                self.report(
                    warning(
                        self.path,
                        block.line,
                        f"unknown arXiv subject code '{code}'",
                        "it is shown as the bare code; see https://arxiv.org/category_taxonomy",
                    )
                )
        return tuple(dict.fromkeys(codes))

    def check_run_together(self, block: Block) -> None:
        """Warn where a record seems to begin inside an abstract block: a source-and-year line
        after the block's first line, followed (in the block or as the next block) by what
        reads as a title. The grammar is unchanged: the lines stay in the abstract."""
        following = self.peek()
        after = [*block.lines[2:], following.text if following else ""]
        for offset, (line, next_text) in enumerate(zip(block.lines[1:], after, strict=False), start=1):
            if self.is_record_head(line) and reads_as_title(next_text):
                message = f"'{shorten(line)}' reads as the start of a record inside an abstract"
                hint = "a blank line may be missing before this record"
                self.report(warning(self.path, block.line + offset, f"{message}; {hint}"))

    def is_record_head(self, line: str) -> bool:
        """A plausible source-and-year line: a possible year, and a source this file used or
        written as the scrape writes it (`bioRxiv2023`), not a phrase such as `results in 2023`."""
        source_year = parse_source_year(line)
        if source_year is None:
            return False
        source, digits = source_year
        plausible = len(digits) == 4 and EARLIEST_YEAR <= int(digits) <= self.latest_year
        written_together = not line[len(source)].isspace()
        return plausible and (source.casefold() in self.sources or written_together)

    def check_lookalikes(self, block: Block, kind: str) -> None:
        """Warn about words mixing scripts (a Cyrillic `а` among Latin letters) in a title or
        name: the look-alike makes a different identity, so a different paper or author."""
        mixed = mixed_script_words(block.text)
        if not mixed:
            return
        word, scripts = mixed[0]
        names = [script.title() for script in scripts]
        listed = ", ".join(names[:-1]) + " and " + names[-1]
        more = f" (and {len(mixed) - 1} more such words)" if len(mixed) > 1 else ""
        message = (
            f"the word '{shorten(word)}' mixes {listed} letters{more}; "
            f"a look-alike character may make this a different {kind}"
        )
        self.report(warning(self.path, block.line, message, lookalike_hint(word)))

    def check_tex(self, block: Block) -> None:
        """Warn about unbalanced TeX; note what is shown as TeX source (unknown macros)."""
        for problem in tex.tex_problems(block.text, self.math):
            report = warning if problem.startswith("unbalanced") else note
            self.report(report(self.path, block.line, f"TeX: {problem}"))


MATH_CHECK = "math check"  # the memo's name for what converting a math body found


def remembered_math(memo: Memo) -> tex.MathCheck:
    """`tex.math_check`, what it finds kept in the memo: a seed parsed again after an edit
    checks the math of its other records without loading the converter (20 ms)."""

    def check(body: str, display: bool) -> tuple[str, ...] | None:
        compute = lambda _: json.dumps(tex.math_check(body, display))  # noqa: E731
        unknown = json.loads(memo.text(MATH_CHECK, compute, f"{int(display)}\0{body}"))
        return None if unknown is None else tuple(unknown)

    return check


def parse_seed(
    data: bytes, path: str, *, latest_year: int, math: tex.MathCheck = tex.math_check
) -> SeedParse:
    """Parse one seed file's bytes; never raises, problems come back as diagnostics (those of
    math found by `math`: converting it, or a memo of what converting it found)."""
    if too_large := size_problem(len(data), path):
        return SeedParse(None, (too_large,))
    text, problems = decode(data, path)
    if text is None:
        return SeedParse(None, tuple(problems))
    parser = SeedParser(split_blocks(text), path, latest_year, math)
    author = parser.parse()
    return SeedParse(author, tuple(sorted(problems + parser.diagnostics)))


def size_problem(size: int, path: str) -> Diagnostic | None:
    """An error for a seed file over MAX_SEED_BYTES."""
    if size <= MAX_SEED_BYTES:
        return None
    message = f"the file is {size / 2**20:.1f} MiB; seed files may be at most {MAX_SEED_BYTES // 2**20} MiB"
    return error(path, 0, message, "split the profile into several files")


def is_seed_file(path: Path) -> bool:
    """Seeds are visible `.txt` files."""
    return is_seed_name(path.name)


def is_seed_name(name: str) -> bool:
    """Whether a file so named is a seed: visible, `.txt` (as `Path.suffix` finds it)."""
    return not name.startswith(".") and name.endswith(SEED_SUFFIX) and len(name) > len(SEED_SUFFIX)


def read_seeds(
    seed_dir: Path,
    display_dir: str,
    parse: Callable[[bytes, str], SeedParse],
    reused: Callable[[list[str]], Mapping[str, SeedParse]] = lambda shown: {},
) -> tuple[list[SeedParse], list[Diagnostic]]:
    """Parse every seed in `seed_dir` (sorted by name) with `parse(bytes, shown path)`, or
    take the parses `reused(shown paths)` knows without reading the files (the files a build
    finds unchanged); a note for each file skipped (the example `new` wrote too), an error for
    each refused (see `files.read_input`)."""
    if not seed_dir.is_dir():
        return [], [error(display_dir, 0, "the seeds folder does not exist", NO_SEEDS_HINT)]
    seeds, skipped = seed_names(sorted_names(seed_dir), display_dir)
    skipped = list(skipped)
    example = f"{display_dir}/{EXAMPLE_NAME}"
    known = reused([shown for shown in seeds if shown != example])
    parses: list[SeedParse] = []
    for shown in seeds:
        if (found := known.get(shown)) is not None:
            parses.append(found)
            continue
        path = seed_dir / shown[len(display_dir) + 1 :]
        try:
            data = read_input(path, seed_dir.parent, shown, size_problem)
        except BuildError as exc:
            skipped += exc.diagnostics
            continue
        if is_example(path, data):
            skipped.append(note(shown, 0, EXAMPLE_NOTE))
            continue
        parses.append(parse(data, shown))
    return parses, skipped


@functools.lru_cache(maxsize=2)
def seed_names(names: tuple[Name, ...], display_dir: str) -> tuple[tuple[str, ...], tuple[Diagnostic, ...]]:
    """The shown paths of the seeds among a folder's `names`, and a note for each other name
    (remembered: a preview lists the same names again and again)."""
    seeds, skipped = [], []
    for name, is_dir in names:
        shown = f"{display_dir}/{name}"
        if is_dir or not is_seed_name(name):
            skipped.append(note(shown, 0, "skipped: not a seed file (seeds are visible .txt files)"))
        else:
            seeds.append(shown)
    return tuple(seeds), tuple(skipped)

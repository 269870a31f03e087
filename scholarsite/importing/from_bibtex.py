r"""`import --bibtex FILE --author NAME`: the entries of a BibTeX file (with `bibtexparser` v2).

Titles and abstracts keep their TeX; only the braces BibTeX uses to protect capitals (`{BERT}`,
`{G}raph`) are dropped, since they show nothing and would split a word of the paper's identity.
An entry's arXiv id comes from `eprint` (with `archivePrefix = arXiv`), an arXiv DOI, or an
`arXiv:` or arxiv.org reference in `journal`, `note`, `howpublished` or `url`; its subject from
`primaryClass`. An entry that is an arXiv e-print with a known subject is an `arXiv` record;
any other is a `BibTeX` record (BibTeX has no subjects).

Values are read as BibTeX reads them (`bibvalues`: `@string` macros and `#` evaluated); an
entry whose key an earlier one has is kept under a new key (`key-2`), with a note. Each record
keeps the entry's authors (accents decoded), venue, type, DOI, URL and date, and the paragraph
breaks of its abstract (blank lines, `\par`, and the headings of a structured abstract).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import bibtexparser
from bibtexparser.model import Block, DuplicateBlockKeyBlock, Entry

from scholarsite.errors import BuildError, Diagnostic, error, warning
from scholarsite.importing.bibvalues import MONTH_NAMES, MONTHS, AuthorList, Macros, Names
from scholarsite.importing.works import Fetched, Work
from scholarsite.inputs import taxonomy
from scholarsite.inputs.seeddetails import DATE_RE, URL_RE
from scholarsite.inputs.seeds import MAX_SEED_BYTES
from scholarsite.inputs.sources import ARXIV_ID_RE, DOI_RE
from scholarsite.inputs.text import decode
from scholarsite.inputs.unicode import normalise
from scholarsite.tex.mathspans import find_math
from scholarsite.tex.render import tex_to_plain

logging.getLogger("bibtexparser").addHandler(logging.NullHandler())  # its problems are reported here

YEAR_RE = re.compile(r"(?<!\d)(\d{4})(?!\d)")
ARXIV_REFERENCE_RE = re.compile(
    rf"(?:arxiv\s*:?\s*|arxiv\.org/(?:abs|pdf)/|10\.48550/arxiv\.)({ARXIV_ID_RE.pattern})(?:v\d+)?",
    re.IGNORECASE,
)
VERSION_RE = re.compile(r"v\d+$")
DOI_PREFIX_RE = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
PROTECTING_GROUP_RE = re.compile(r"\{([^{}\\$]*)\}")
ARGUMENT_BEFORE_RE = re.compile(r"(?:\\[A-Za-z]+\*?\s*|\\|[}\]^_])$")
NEW_ID_RE = re.compile(r"(\d{2})\d{2}\.\d{4,5}")
REFERENCE_FIELDS = ("journal", "note", "howpublished", "url")
SOURCE_ARXIV, SOURCE_BIBTEX = "arXiv", "BibTeX"
KINDS = {  # BibTeX entry types and the type a seed names them by
    "article": "article",
    "inproceedings": "conference paper",
    "conference": "conference paper",
    "proceedings": "book",
    "phdthesis": "PhD thesis",
    "mastersthesis": "master's thesis",
    "book": "book",
    "inbook": "chapter",
    "incollection": "chapter",
    "techreport": "report",
    "report": "report",
    "dataset": "dataset",
}
VENUE_FIELDS = ("journal", "journaltitle", "booktitle", "school", "institution", "publisher", "howpublished")
URL_FIELDS = ("url", "html", "pdf")  # `html` and `pdf`: the fields al-folio sites use
HEADINGS = (
    "Background|Objectives?|Aims?|Purpose|Context|Motivation|Introduction|Methods?|Methodology|"
    "Design|Setting|Participants|Interventions?|Measurements|Approach|Results?|Findings|"
    "Conclusions?|Discussion|Interpretation|Significance|Implications|Limitations"
)
PARAGRAPH_RE = re.compile(
    rf"\s*\\par\b\s*|\n[^\S\n]*\n\s*|\s*\n\s*(?=(?:{HEADINGS})\s*:)|(?<=[.!?])\s+(?=(?:{HEADINGS}):\s)"
)


def unprotected(text: str) -> str:
    """`text` without BibTeX's capital-protecting braces: brace groups of plain text that are
    no macro's argument and not in math. Kept as it is when dropping them would change how
    the text reads."""
    current = text
    while True:
        spans = find_math(current)[0]
        pieces, last = [], 0
        for start, end in [*((s.start, s.end) for s in spans), (len(current), len(current))]:
            pieces += [unwrap_groups(current[last:start]), current[start:end]]
            last = end
        changed = "".join(pieces)
        if changed == current:
            break
        current = changed
    return current if tex_to_plain(current) == tex_to_plain(text) else text


def unwrap_groups(text: str) -> str:
    """The innermost plain brace groups of math-free `text` unwrapped, unless an argument."""

    def unwrap(match: re.Match[str]) -> str:
        argument = ARGUMENT_BEFORE_RE.search(text, 0, match.start())
        return match.group(0) if argument else match.group(1)

    return PROTECTING_GROUP_RE.sub(unwrap, text)


def arxiv_id_of(fields: dict[str, str]) -> str:
    """The entry's arXiv id, without version, or ''."""
    eprint = VERSION_RE.sub("", fields.get("eprint", "").strip())
    prefix = (fields.get("archiveprefix") or fields.get("eprinttype") or "").strip().casefold()
    if eprint and ARXIV_ID_RE.fullmatch(eprint) and prefix in ("arxiv", ""):
        return eprint
    for text in (fields.get("doi", ""), *(fields.get(name, "") for name in REFERENCE_FIELDS)):
        if match := ARXIV_REFERENCE_RE.search(text):
            return match.group(1)
    return ""


def doi_of(fields: dict[str, str]) -> str:
    """The entry's DOI without its resolver, or ''."""
    doi = DOI_PREFIX_RE.sub("", fields.get("doi", "").strip())
    return doi if DOI_RE.fullmatch(doi) else ""


def year_of(fields: dict[str, str], arxiv_id: str) -> int:
    """`year`, else `date`'s year, else the year of a new-style arXiv id; 0 when none is given."""
    for text in (fields.get("year", ""), fields.get("date", "")):
        if match := YEAR_RE.search(text):
            return int(match.group(1))
    new_style = NEW_ID_RE.fullmatch(arxiv_id)
    return 2000 + int(new_style.group(1)) if new_style else 0


def abstract_of(text: str) -> str:
    """An abstract with its paragraphs apart (blank line, `\\par`, a structured abstract's
    heading such as `Results:`), its capital-protecting braces dropped."""
    return "\n\n".join(p for p in (unprotected(part.strip()) for part in PARAGRAPH_RE.split(text)) if p)


def kind_of(entry_type: str, fields: dict[str, str], arxiv_id: str) -> str:
    """The type of an entry: its BibTeX type's, a thesis's by its `type`, an e-print a preprint."""
    kind = KINDS.get(entry_type, "")
    if entry_type == "thesis":
        kind = "master's thesis" if "master" in fields.get("type", "").casefold() else "PhD thesis"
    venue = fields.get("journal", "").casefold()
    if arxiv_id and (kind in ("", "article") and (not venue or "arxiv" in venue or venue == "corr")):
        return "preprint"
    return kind


def venue_of(fields: dict[str, str]) -> str:
    """Where it appeared, as plain text ('' for arXiv itself, which the arXiv id says)."""
    venue = next((fields[name] for name in VENUE_FIELDS if fields.get(name, "").strip()), "")
    plain = " ".join(tex_to_plain(venue).split())
    return "" if "arxiv" in plain.casefold() or URL_RE.match(plain) else plain


def url_of(fields: dict[str, str]) -> str:
    """The entry's own address (`url`, or al-folio's `html` or `pdf` when a full address)."""
    urls = (fields.get(name, "").strip() for name in URL_FIELDS)
    return next((url for url in urls if URL_RE.fullmatch(url)), "")


def date_of(fields: dict[str, str], year: int) -> str:
    """`date` when ISO, else the year and `month` (`2019-05`); '' when no month is known."""
    date = fields.get("date", "").strip()
    if DATE_RE.fullmatch(date) and len(date) > 4:
        return date
    month = fields.get("month", "").strip().casefold()
    names = [name.casefold() for name in MONTH_NAMES]
    number = int(month) if month.isdigit() else (names.index(month) + 1 if month in names else 0)
    number = number or (MONTHS.index(month[:3]) + 1 if month[:3] in MONTHS and len(month) == 3 else 0)
    return f"{year:04d}-{number:02d}" if year and 1 <= number <= 12 else ""


def lists_author(names: tuple[str, ...], wanted: str) -> bool:
    """Whether `wanted` is among the names, in full or with initials (`Z. Jiang`, `Z Jiang`)."""
    target = normalise(wanted).split()
    return any(same_or_initials(normalise(name).split(), target) for name in names)


def same_or_initials(words: list[str], target: list[str]) -> bool:
    """The same words, or the same last word with each other word shortened to its initial."""
    if len(words) != len(target) or not words:
        return False
    return words[-1] == target[-1] and all(w == t or w == t[0] for w, t in zip(words, target, strict=True))


def work_of(entry: Entry, fields: dict[str, str], authors: AuthorList, shown: str) -> Work:
    """A work of a BibTeX entry with its evaluated fields (year 0 when it gives none)."""
    arxiv_id = arxiv_id_of(fields)
    primary = fields.get("primaryclass", "").strip()
    subjects = (primary,) if arxiv_id and taxonomy.lookup(primary) else ()
    year = year_of(fields, arxiv_id)
    return Work(
        title=unprotected(" ".join(fields.get("title", "").split())),
        year=year,
        source=SOURCE_ARXIV if subjects else SOURCE_BIBTEX,
        abstract=abstract_of(fields.get("abstract", "")),
        subjects=subjects,
        arxiv_id=arxiv_id,
        doi=doi_of(fields),
        journal_ref=venue_of(fields),
        authors=authors.names,
        more_authors=authors.more,
        kind=kind_of(entry.entry_type.casefold(), fields, arxiv_id),
        url=url_of(fields),
        published=date_of(fields, year),
        key=entry.key,
        where=f"{shown}:{entry.start_line + 1}",
    )


def entries_of(library: bibtexparser.Library) -> tuple[list[Entry], list[str]]:
    """Every entry in file order, those whose key an earlier entry has renamed (`key-2`), and a
    note for each renamed."""
    entries = [*library.entries]
    duplicates = [block for block in library.failed_blocks if isinstance(block, DuplicateBlockKeyBlock)]
    entries += [
        block.ignore_error_block for block in duplicates if isinstance(block.ignore_error_block, Entry)
    ]
    entries.sort(key=lambda entry: entry.start_line)
    taken: set[str] = set()
    notes = []
    for entry in entries:
        if entry.key in taken:
            number = 2
            while f"{entry.key}-{number}" in taken:
                number += 1
            renamed = f"{entry.key}-{number}"
            notes.append(f"line {entry.start_line + 1}: a second entry '{entry.key}', kept as '{renamed}'")
            entry.key = renamed
        taken.add(entry.key)
    return entries, notes


def evaluated(entries: list[Entry], library: bibtexparser.Library) -> tuple[list[dict[str, str]], list[str]]:
    """Each entry's fields (names case-folded) as BibTeX reads them, and a note per undefined
    macro."""
    macros = Macros()
    for string in library.strings:
        macros.define(string.key, str(string.value))
    fields = [
        {key.casefold(): macros.evaluate(str(f.value)) for key, f in e.fields_dict.items()} for e in entries
    ]
    notes = [f"@string '{name}' is not defined: read as nothing" for name in sorted(macros.undefined)]
    return fields, notes


def read_library(path: Path, shown: str) -> bibtexparser.Library:
    """The parsed file; BuildError when it cannot be read as UTF-8 text."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BuildError([error(shown, 0, f"cannot read the BibTeX file ({exc.strerror})")]) from None
    if len(data) > MAX_SEED_BYTES:
        raise BuildError([error(shown, 0, f"the file is over {MAX_SEED_BYTES // 2**20} MiB")])
    text, problems = decode(data, shown)
    if text is None:
        raise BuildError(problems)
    return bibtexparser.parse_string(text, parse_stack=[])  # values raw: `bibvalues` reads them


def failures(library: bibtexparser.Library, shown: str) -> list[Diagnostic]:
    """A warning for each block bibtexparser could not read (it is left out)."""
    return [
        warning(shown, block.start_line + 1, f"left out: {reason(block)}")
        for block in library.failed_blocks
        if not isinstance(block, DuplicateBlockKeyBlock)
    ]


def reason(block: Block) -> str:
    """Why bibtexparser could not read a block, in one short line."""
    problem = getattr(block, "error", None)
    text = getattr(problem, "abort_reason", "") or str(problem or "") or "not a BibTeX entry"
    return " ".join(text.split())[:200]


def fetch(path: Path, shown: str, name: str) -> tuple[Fetched, list[Diagnostic]]:
    """The file's entries as works of `name`, and the problems of the file."""
    library = read_library(path, shown)
    entries, renamed = entries_of(library)
    fields, undefined = evaluated(entries, library)
    names, listing = Names(), {}
    works, strangers = [], []
    for entry, values in zip(entries, fields, strict=True):
        text = values.get("author", "")
        authors = names.of(text)
        if text not in listing:  # each distinct list looked through once
            listing[text] = lists_author(authors.names, name)
        works.append(work_of(entry, values, authors, shown))
        strangers += [] if listing[text] else [works[-1].where]
    notes = [f"BibTeX: {len(works)} entries in {shown}", *renamed, *undefined]
    if strangers:
        where = ", ".join(strangers[:5])
        notes.append(f"{len(strangers)} of them do not list {name} among their authors (kept): {where}")
    return Fetched(name, works, notes), failures(library, shown)

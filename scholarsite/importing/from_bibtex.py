"""`import --bibtex FILE --author NAME`: the entries of a BibTeX file (with `bibtexparser` v2).

Titles and abstracts keep their TeX; only the braces BibTeX uses to protect capitals (`{BERT}`,
`{G}raph`) are dropped, since they show nothing and would split a word of the paper's identity.
An entry's arXiv id comes from `eprint` (with `archivePrefix = arXiv`), an arXiv DOI, or an
`arXiv:` or arxiv.org reference in `journal`, `note`, `howpublished` or `url`; its subject from
`primaryClass`. An entry that is an arXiv e-print with a known subject is an `arXiv` record;
any other is a `BibTeX` record (BibTeX has no subjects).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import bibtexparser
from bibtexparser.middlewares import SeparateCoAuthors, SplitNameParts
from bibtexparser.model import Block, Entry

from scholarsite.errors import BuildError, Diagnostic, error, warning
from scholarsite.importing.works import Fetched, Work
from scholarsite.inputs import taxonomy
from scholarsite.inputs.seeds import MAX_SEED_BYTES
from scholarsite.inputs.sources import ARXIV_ID_RE, DOI_RE
from scholarsite.inputs.text import decode
from scholarsite.inputs.unicode import normalise
from scholarsite.tex.mathml import find_math
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


def names_of(entry: Entry) -> tuple[str, ...]:
    """The entry's authors as plain names, in order (first names first)."""
    field = entry.fields_dict.get("author")
    parts = field.value if field is not None and isinstance(field.value, list) else []
    names = (" ".join([*p.first, *p.von, *p.last, *p.jr]) for p in parts)
    return tuple(plain for name in names if (plain := " ".join(tex_to_plain(name).split())))


def lists_author(names: tuple[str, ...], wanted: str) -> bool:
    """Whether `wanted` is among the names, in full or with initials (`Z. Jiang`, `Z Jiang`)."""
    target = normalise(wanted).split()
    return any(same_or_initials(normalise(name).split(), target) for name in names)


def same_or_initials(words: list[str], target: list[str]) -> bool:
    """The same words, or the same last word with each other word shortened to its initial."""
    if len(words) != len(target) or not words:
        return False
    return words[-1] == target[-1] and all(w == t or w == t[0] for w, t in zip(words, target, strict=True))


def work_of(entry: Entry, shown: str) -> Work:
    """A work of a BibTeX entry (year 0 when it gives none)."""
    fields = {key.casefold(): str(f.value) for key, f in entry.fields_dict.items() if key != "author"}
    arxiv_id = arxiv_id_of(fields)
    primary = fields.get("primaryclass", "").strip()
    subjects = (primary,) if arxiv_id and taxonomy.lookup(primary) else ()
    venue = fields.get("journal") or fields.get("booktitle") or ""
    return Work(
        title=unprotected(fields.get("title", "")),
        year=year_of(fields, arxiv_id),
        source=SOURCE_ARXIV if subjects else SOURCE_BIBTEX,
        abstract=unprotected(fields.get("abstract", "")),
        subjects=subjects,
        arxiv_id=arxiv_id,
        doi=doi_of(fields),
        journal_ref="" if "arxiv" in venue.casefold() else " ".join(tex_to_plain(venue).split()),
        authors=names_of(entry),
        key=entry.key,
        where=f"{shown}:{entry.start_line + 1}",
    )


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
    return bibtexparser.parse_string(text, append_middleware=[SeparateCoAuthors(), SplitNameParts()])


def failures(library: bibtexparser.Library, shown: str) -> list[Diagnostic]:
    """A warning for each block bibtexparser could not read (it is left out)."""
    return [
        warning(shown, block.start_line + 1, f"left out: {reason(block)}") for block in library.failed_blocks
    ]


def reason(block: Block) -> str:
    """Why bibtexparser could not read a block, in one short line."""
    problem = getattr(block, "error", None)
    text = getattr(problem, "abort_reason", "") or str(problem or "") or "not a BibTeX entry"
    return " ".join(text.split())[:200]


def fetch(path: Path, shown: str, name: str) -> tuple[Fetched, list[Diagnostic]]:
    """The file's entries as works of `name`, and the problems of the file."""
    library = read_library(path, shown)
    works = [work_of(entry, shown) for entry in library.entries]
    notes = [f"BibTeX: {len(works)} entries in {shown}"]
    listed = [lists_author(names_of(entry), name) for entry in library.entries]
    strangers = [work.where for work, mine in zip(works, listed, strict=True) if not mine]
    if strangers:
        where = ", ".join(strangers[:5])
        notes.append(f"{len(strangers)} of them do not list {name} among their authors (kept): {where}")
    return Fetched(name, works, notes), failures(library, shown)

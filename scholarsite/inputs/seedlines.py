"""How the lines of a seed read: blocks, source-and-year lines, subject lines, titles, and the
limits and messages of the seed grammar."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from scholarsite.errors import Diagnostic, note, warning
from scholarsite.inputs import taxonomy
from scholarsite.inputs.unicode import letter_script

SEED_SUFFIX = ".txt"
ARROW = "↗"
HEADER_RE = re.compile(r"arxiv subjects", re.IGNORECASE)
ATTRIBUTION_RE = re.compile(
    r"publications and source records attributed to\s+(?P<name>.*?)\.?", re.IGNORECASE
)
COUNT_RE = re.compile(
    r"(?P<at_least>at least\s+)?(?P<count>\d[\d,]*)\s+records?\s*(?:linked to original sources)?",
    re.IGNORECASE,
)
SOURCE_YEAR_RE = re.compile(r"(?P<source>[A-Za-z][A-Za-z .&/-]{0,40}?)\s*(?P<year>\d{1,6})")
SUBJECT_SPLIT_RE = re.compile(r"[\s,;↗]+")
# The sources `scholarsite import` writes: a source-and-year line naming one starts a record
# even where the file has not used that source yet (after a record without a subject line).
WRITTEN_SOURCES = frozenset({"arxiv", "openalex", "bibtex"})
EARLIEST_YEAR = 1800
LONG_TITLE = 400  # longer titles are read as titles, with a warning
MAX_TITLE = 2_000  # characters; longer is an error
MAX_ABSTRACT = 20_000  # characters (real arXiv abstracts stay under 2,000); longer is an error
MAX_RECORDS = 5_000  # per seed file
MAX_SEED_BYTES = 16 * 2**20
NO_SEEDS_HINT = "run it in a project folder, name one with --project DIR, or start one: `scholarsite new DIR`"


@dataclass(frozen=True)
class Block:
    """A run of non-blank lines, joined by single spaces, with the line it starts on (and the
    lines themselves, each cleaned as in `text`)."""

    line: int
    text: str
    lines: tuple[str, ...] = ()


def split_blocks(text: str) -> list[Block]:
    """Blank-line-separated blocks; tolerant of CRLF, NBSP, trailing spaces and blank runs."""
    blocks: list[Block] = []
    current: list[str] = []
    start = 0
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for number, raw in enumerate(lines, start=1):
        line = " ".join(raw.replace("\u00a0", " ").split())
        if line:
            start = start if current else number
            current.append(line)
        elif current:
            blocks.append(Block(start, " ".join(current), tuple(current)))
            current = []
    if current:
        blocks.append(Block(start, " ".join(current), tuple(current)))
    return blocks


def shorten(text: str, limit: int = 60) -> str:
    """A title cut to `limit` characters for messages."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def parse_subjects(text: str) -> tuple[str, ...] | None:
    """Subject codes of a subject line (`cs.DC↗`, `cs.DC↗ cs.LG↗`), or None if it is not one."""
    codes = tuple(code for code in SUBJECT_SPLIT_RE.split(text) if code)
    if not codes or not all(taxonomy.is_plausible_code(code) for code in codes):
        return None
    if ARROW in text or all(taxonomy.lookup(code) for code in codes):
        return codes
    return None


def is_marked_subject_line(text: str) -> bool:
    """A subject line carrying the scrape's arrow (`cs.DC↗`): never a title or abstract."""
    return ARROW in text and parse_subjects(text) is not None


def parse_source_year(text: str) -> tuple[str, str] | None:
    """(source, digits) of a source-and-year line such as `arXiv2025`, or None."""
    match = SOURCE_YEAR_RE.fullmatch(text)
    return (match["source"].strip(), match["year"]) if match else None


def missing_part(path: str, line: int, source: str, message: str, other: str = "") -> Diagnostic:
    """A record without an abstract or a subject line: a warning for an arXiv record (arXiv
    always has both, so the scrape lost it), a note (saying `other`, if given) for other
    sources, which may have neither."""
    if source.casefold() == "arxiv":
        return warning(path, line, message)
    return note(path, line, other or message)


def reads_as_title(text: str) -> bool:
    """Text that could be a title: some letters, not too long, neither a subject line nor a
    source-and-year line."""
    return (
        any(char.isalpha() for char in text)
        and len(text) <= LONG_TITLE
        and parse_subjects(text) is None
        and parse_source_year(text) is None
    )


def lookalike_hint(word: str) -> str:
    """Names the letters of `word` outside its most frequent script, so the user can find them."""
    scripts = Counter(s for s in map(letter_script, word) if s is not None)
    main_script = scripts.most_common(1)[0][0]
    foreign = dict.fromkeys(c for c in word if letter_script(c) not in (main_script, None))
    shown = ", ".join(f"'{c}' is U+{ord(c):04X} {unicodedata.name(c, '?')}" for c in list(foreign)[:3])
    return f"{shown}; retype the word in one script if that was not meant"

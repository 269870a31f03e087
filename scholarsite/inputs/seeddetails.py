"""A record's details block: the optional lines `import` writes after a title.

    Authors: Justin Carpentier; Philippe Souères; et al.
    Venue: Robotics: Science and Systems
    Type: conference paper
    DOI: 10.15607/RSS.2018.XIV.038
    URL: https://example.org/paper.pdf
    Date: 2018-06

A block is a details block only when every one of its lines is such a `Key: value` line with a
known key, so no seed written before the block existed reads differently. Any line may be left
out; a value the grammar does not accept is a warning and left out, never an error.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import replace

from scholarsite.errors import Diagnostic, warning
from scholarsite.inputs.records import KINDS, NO_DETAILS, Details
from scholarsite.inputs.sources import DOI_RE

KEYS = ("Authors", "Venue", "Type", "DOI", "URL", "Date")
LINE_RE = re.compile(rf"({'|'.join(KEYS)}): (\S.*)")
AUTHOR_SEPARATOR = "; "
MORE_AUTHORS = "et al."
MAX_AUTHORS = 1_000  # names in one Authors line; the rest are left out, the list marked "et al."
MAX_VALUE = 2_000  # characters of any other value
DATE_RE = re.compile(r"\d{4}(?:-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12]\d|3[01]))?)?")
URL_RE = re.compile(r"https?://[^\s<>\"]+", re.IGNORECASE)
FIELDS = {"Venue": "venue", "Type": "kind", "DOI": "doi", "URL": "url", "Date": "date"}
CHECKS: dict[str, tuple[re.Pattern[str] | tuple[str, ...], str]] = {
    "Type": (KINDS, f"expected one of {', '.join(KINDS)}"),
    "DOI": (DOI_RE, "expected a DOI such as 10.1145/3620666.3651379"),
    "URL": (URL_RE, "expected an http:// or https:// address"),
    "Date": (DATE_RE, "expected a date such as 2018, 2018-06 or 2018-06-26"),
}


def is_details(lines: tuple[str, ...]) -> bool:
    """Every line is a `Key: value` line of a known key."""
    return bool(lines) and all(LINE_RE.fullmatch(line) for line in lines)


def parse_details(lines: tuple[str, ...], path: str, first_line: int) -> tuple[Details, list[Diagnostic]]:
    """The details of a block (`is_details`), and a warning for each value left out."""
    details, problems, seen = NO_DETAILS, [], set()
    for offset, line in enumerate(lines):
        match = LINE_RE.fullmatch(line)
        assert match is not None
        key, value = match.group(1), match.group(2).strip()
        where = first_line + offset
        if key in seen:
            problems.append(warning(path, where, f"a second '{key}:' line; the first is kept"))
            continue
        seen.add(key)
        if key == "Authors":
            details, problem = with_authors(details, value)
        else:
            details, problem = with_value(details, key, value)
        problems += [warning(path, where, problem)] if problem else []
    return details, problems


def with_authors(details: Details, value: str) -> tuple[Details, str]:
    """The details with the names of an Authors line (`et al.` last: the list is incomplete)."""
    names = [name.strip() for name in value.split(";")]
    more = bool(names) and names[-1] == MORE_AUTHORS
    names = [name for name in names[:-1] if name] if more else [name for name in names if name]
    problem = ""
    if len(names) > MAX_AUTHORS:
        problem = f"{len(names):,} authors; the first {MAX_AUTHORS:,} are kept, the list ends in et al."
        names, more = names[:MAX_AUTHORS], True
    if MORE_AUTHORS in names:
        return details, f"'{MORE_AUTHORS}' may only end the list; the Authors line is left out"
    return replace(details, authors=tuple(names), more_authors=more), problem


def with_value(details: Details, key: str, value: str) -> tuple[Details, str]:
    """The details with one checked value (the reason it is left out otherwise)."""
    if len(value) > MAX_VALUE:
        return details, f"the {key} is {len(value):,} characters long; at most {MAX_VALUE:,} are read"
    accepted, expected = CHECKS.get(key, ((), ""))
    if isinstance(accepted, tuple) and accepted and value not in accepted:
        return details, f"unknown {key} '{value}': {expected}; left out"
    if isinstance(accepted, re.Pattern) and not (accepted.fullmatch(value) and real_date(key, value)):
        return details, f"'{value}' is not a {key}: {expected}; left out"
    return replace(details, **{FIELDS[key]: value}), ""


def real_date(key: str, value: str) -> bool:
    """A Date's day exists (no 2020-06-31); any other value passes."""
    if key != "Date" or len(value) < len("2020-06-30"):
        return True
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def details_lines(details: Details) -> list[str]:
    """The lines of a details block, in KEYS order (none when nothing is known)."""
    authors = [*details.authors, *([MORE_AUTHORS] if details.more_authors else [])]
    values = [
        ("Authors", AUTHOR_SEPARATOR.join(authors)),
        ("Venue", details.venue),
        ("Type", details.kind),
        ("DOI", details.doi),
        ("URL", details.url),
        ("Date", details.date),
    ]
    return [f"{key}: {value}" for key, value in values if value]

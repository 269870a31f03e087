"""The entries of `sources.yaml` kept between builds, so that a build whose sources.yaml did not
change reads them from a cache instead of YAML: signed, loaded unchecked, when the user has a
key (`inputs.sources_signed`, `inputs.userkey`); else from JSON (`.scholarsite-cache/sources.json`),
checked again, as this module keeps them.

The cache holds the sha256 of the file's bytes, the code's version, the paper keys and the line
of each, and the entries by column: one list a field (`status`, `title`... and the OpenAlex
part's, `null` status for an entry without one; no OpenAlex columns when no entry has a
part), each as long as the keys. An entry that the
columns do not hold as it is (one with candidates or links, or a value the columns' checks
would not take) is kept whole, as `SourceEntry.as_data`, with its place, and checked by
`entry_of` as it loads. It is plain JSON, never pickle, and nothing in it is trusted: every
column is checked as a whole (its values' types, lengths, dates, identifiers, text stripped as
`entry_of` strips it) before any entry is made from it, so that the columns make only entries
that `entry_of` makes of their data, the same objects (tests compare the two). A cache of other
bytes or other code, or one that does not check, is not used: the file is read, and the cache
written again. Only a file read without any problem is kept.

Checking by columns is what makes the cache quicker: 100,000 full entries (an OpenAlex part
with counts and twenty references) took 2.5 to 2.6 s of CPU from the cache checked entry by
entry, and take 1.6 to 1.7 s checked by columns (about 0.5 s of it the checks, 0.4 s making the
objects, 0.25 s `json.loads`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Collection, Iterable
from functools import cache
from itertools import chain
from pathlib import Path
from typing import Any

from scholarsite.errors import Diagnostic
from scholarsite.inputs.digests import code_version
from scholarsite.inputs.jsondata import loads
from scholarsite.inputs.openalex_part import (
    DATE_FIELDS,
    IMPACT_DEFAULTS,
    IMPACT_STATUSES,
    MAX_COUNT,
    MAX_REFERENCES,
    MAX_TEXT,
    OPENALEX_ID_RE,
    WEB_URL_RE,
    YEARS,
    Impact,
    is_date,
)
from scholarsite.inputs.records import KINDS
from scholarsite.inputs.sources import (
    ARXIV_ID_RE,
    DOI_RE,
    ENTRY_DEFAULTS,
    MAX_AUTHORS,
    STATUSES,
    TEXT_FIELDS,
    SourceEntry,
    Sources,
    entry_of,
    sources_bytes,
    sources_of,
)
from scholarsite.inputs.sources_signed import (
    keep_changed,
    keep_signed,
    signed_cache,
    signed_sources,
    sources_in,
)
from scholarsite.inputs.store import CACHE_FOLDER, write_atomically
from scholarsite.inputs.userkey import user_key
from scholarsite.lifetime import collector_paused

SOURCES_CACHE = CACHE_FOLDER / "sources.json"
FORMAT = 2
# The columns of an entry (in the class's order; candidates and links are kept whole) and of
# its OpenAlex part (counts as two columns of lists: years and citations).
ENTRY_COLUMNS = ("status", *TEXT_FIELDS[:3], "version", *TEXT_FIELDS[3:], "authors", "locked")
IMPACT_TEXT = ("checked", "id", "doi", "venue", "oa_url", "published")
IMPACT_COLUMNS = (
    "status",
    *IMPACT_TEXT[:3],
    "cited_by",
    *IMPACT_TEXT[3:],
    "years",
    "citations",
    "references",
)
Check = Callable[[str], object] | re.Pattern[str] | None
# What each text column's values must be, besides stripped text of at most MAX_TEXT characters:
# dates, or a whole line each of an expression (all the column's lines matched at once).
ENTRY_TEXT_CHECKS: dict[str, Check] = {
    **{name: is_date for name in DATE_FIELDS},
    "arxiv_id": re.compile(rf"^(?:{ARXIV_ID_RE.pattern})$", re.MULTILINE),
    "doi": re.compile(rf"^(?:{DOI_RE.pattern})$", re.MULTILINE),
    "type": frozenset(KINDS).__contains__,
}
IMPACT_TEXT_CHECKS: dict[str, Check] = {
    **{name: is_date for name in DATE_FIELDS},
    "id": re.compile(rf"^(?:{OPENALEX_ID_RE.pattern})$", re.MULTILINE),
    "oa_url": re.compile(rf"^(?:{WEB_URL_RE.pattern})$", re.MULTILINE),
}
DIGITS_AS_ZERO = bytes.maketrans(b"0123456789", b"0" * 10)
assert tuple(ENTRY_DEFAULTS) == (*ENTRY_COLUMNS[:-2], "authors", "candidates", "openalex", "links", "locked")
assert tuple(IMPACT_DEFAULTS) == (*IMPACT_COLUMNS[:-3], "counts", "references")


class Refused(ValueError):
    """A cache whose columns do not check."""


def read_sources_kept(root: Path, file: Path, known: bytes | None = None) -> tuple[Sources, list[Diagnostic]]:
    """`sources.read_sources` through the cache in `file`: its entries when they are those of
    the file's bytes, else the file read (and kept when it has no problem). When this user has
    a key (`inputs.userkey`), the cache is the signed one beside `file` (`inputs.sources_signed`),
    and with `known`, the sha256 of the file as the build's look found it, a cache of those
    bytes is loaded without reading the file."""
    signed = file.with_suffix(".signed")
    if known is not None and (kept := signed_kept(signed, known.hex())) is not None:
        return kept, []
    data, problems = sources_bytes(root)
    if data is None:
        return Sources(), problems
    digest = hashlib.sha256(data).hexdigest()
    key = user_key()  # made only for a project with a sources.yaml
    if key is not None:
        return signed_read(signed, data, digest, key)
    with collector_paused():  # the entries live on: the collector's passes are wasted
        kept = kept_sources(file, digest)
    if kept is not None:
        return kept, []
    sources, problems = sources_of(data)
    if not problems and sources.entries:
        keep_sources(file, digest, sources)
    return sources, problems


def signed_read(file: Path, data: bytes, digest: str, key: bytes) -> tuple[Sources, list[Diagnostic]]:
    """The entries of sources.yaml's bytes (of sha256 `digest`) through the signed cache `file`
    and its delta: its entries when they are those bytes', else those bytes read, the entries
    of unchanged text taken from it (`inputs.sources_reuse`), or all read again; kept when
    read without any problem (a changed file as a delta on the cache's base)."""
    with collector_paused():  # the entries live on: the collector's passes are wasted
        kept = signed_cache(file, key)
        hit = sources_in(kept, digest)
        if hit is not None:
            return hit, []
        from scholarsite.inputs.sources_reuse import reused_sources  # with blockyaml: 20 ms of imports

        reused = reused_sources(data, kept)
    if reused is not None:
        if reused.sources.entries:
            keep_changed(file, kept, digest, reused.sources, key, reused.slots, reused.spans)
        return reused.sources, []
    sources, problems = sources_of(data)
    if not problems and sources.entries:
        keep_signed(file, digest, sources, key)
    return sources, problems


def keep_written(root: Path) -> None:
    """Read the `sources.yaml` a command just wrote through the cache, so that the next build
    finds its entries kept for those bytes (the changed entries read, the others reused)."""
    read_sources_kept(root, root / SOURCES_CACHE)


def signed_kept(file: Path, digest: str) -> Sources | None:
    """The entries in the signed cache `file` for the sources.yaml of sha256 `digest`, if this
    user has a key and they are there."""
    key = user_key()
    if key is None:
        return None
    with collector_paused():
        return signed_sources(file, digest, key)


def kept_sources(file: Path, digest: str) -> Sources | None:
    """The entries kept in `file` for the sources.yaml of sha256 `digest`; None when there are
    none for those bytes and this code, or when any does not check."""
    try:
        saved = loads(file.read_bytes())
        if [saved["format"], saved["code"], saved["digest"]] != [FORMAT, code_version(), digest]:
            return None
        return sources_from(saved)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def sources_from(saved: dict[str, Any]) -> Sources:
    """The entries of a cache's JSON; Refused (or another ValueError, TypeError, KeyError)
    when anything in it does not check."""
    keys = column(saved, "keys", len(saved["keys"]))
    count = len(keys)
    lines = column(saved, "lines", count)
    if not types_of(keys) <= {str} or len(set(keys)) != count or not types_of(lines) <= {int}:
        raise Refused("keys")
    columns = [column(saved["entry"], name, count) for name in ENTRY_COLUMNS]
    check_entry_columns(dict(zip(ENTRY_COLUMNS, columns, strict=True)))
    if saved["impact"] is None:  # no entry has an OpenAlex part (a lean file)
        impacts = [[None] * count] * len(IMPACT_COLUMNS)
    else:
        impacts = [column(saved["impact"], name, count) for name in IMPACT_COLUMNS]
        check_impact_columns(dict(zip(IMPACT_COLUMNS, impacts, strict=True)))
    whole = whole_entries(saved["whole"], count)
    entries = dict(zip(keys, entries_of(columns, impacts), strict=True))
    for place, entry in whole.items():
        entries[keys[place]] = entry
    return Sources(entries, dict(zip(keys, lines, strict=True)))


def types_of(values: Iterable[Any]) -> set[type]:
    """The types of the values."""
    return set(map(type, values))


def column(columns: dict[str, Any], name: str, count: int) -> list[Any]:
    """The column `name`, a list of `count` values."""
    values = columns[name]
    if type(values) is not list or len(values) != count:
        raise Refused(name)
    return values


def texts(values: list[Any] | Iterable[Any], check: Check = None) -> Collection[str]:
    """The values that may differ (a set of the distinct ones, or the list of those that are
    not empty); Refused unless they are text of at most MAX_TEXT characters, stripped, and
    each that is not empty passes `check`: a function, or an expression that must match each
    whole line of their text, one a line (the expressions of ENTRY_TEXT_CHECKS and
    IMPACT_TEXT_CHECKS match only stripped text without spaces in a row: a column of
    identifiers is checked without a set of its values or a look at its spaces)."""
    if isinstance(check, re.Pattern):
        values = values if isinstance(values, list) else list(values)
        filled = list(filter(None, values))
        if not types_of(values) <= {str} or max(map(len, filled), default=0) > MAX_TEXT:
            raise Refused("text")
        if not lines_match(check, filled):
            raise Refused("text")
        return filled
    distinct = set(values)
    if not types_of(distinct) <= {str} or max(map(len, distinct), default=0) > MAX_TEXT:
        raise Refused("text")
    if not all(map(str.__eq__, distinct, map(str.strip, distinct))):
        raise Refused("text")
    if check is not None and not all(map(check, distinct - {""})):
        raise Refused("text")
    return distinct


def lines_match(expression: re.Pattern[str], values: list[str]) -> bool:
    """Whether every value is one line that `expression` (anchored at each line) matches whole."""
    if not values:
        return True
    text = "\n".join(values)
    return text.count("\n") == len(values) - 1 and expression.subn("", text)[1] == len(values)


@cache
def non_printable() -> re.Pattern[str]:
    """What a YAML file cannot hold (surrogates too), as PyYAML's reader says: PyYAML loaded by
    the first entries looked at, not by every build."""
    import yaml

    return yaml.reader.Reader.NON_PRINTABLE


def printable(texts: Iterable[Collection[str]]) -> None:
    """Refused unless the texts hold only characters a YAML file can hold (no control
    characters but line breaks and tabs, no surrogates)."""
    text = "".join(chain.from_iterable(texts))
    if not text.isprintable() and non_printable().search(text):  # the first, quick, is stricter
        raise Refused("text")


def reference_lists(references: list[Any]) -> None:
    """Refused unless each of the texts is empty or OpenAlex ids separated by single spaces,
    as `references_of` takes them (REFERENCES_RE), and none holds over MAX_REFERENCES ids.
    Looked at all at once: 100,000 lists of twenty ids in about a third of the time of
    matching each with the expression."""
    if not types_of(references) <= {str}:
        raise Refused("references")
    text = " ".join(filter(None, references))
    if not text or not text.isascii():
        if text:
            raise Refused("references")
        return
    data = text.encode("ascii")
    spaces = data.count(b" ")
    # Only W, digits and spaces; every space followed by a W, and a W first: every id starts
    # with the only W in it, and is followed by a single space or the end. Each id then has
    # digits after its W (no "W " or W last) and at most 15 (no 16 digits in a row).
    if data.translate(None, b"W0123456789 ") or not data.startswith(b"W") or data.endswith(b"W"):
        raise Refused("references")
    if data.count(b" W") != spaces or data.count(b"W") != spaces + 1 or b"W " in data:
        raise Refused("references")
    if b"0" * 16 in data.translate(DIGITS_AS_ZERO):
        raise Refused("references")
    # More than MAX_REFERENCES ids take more than 3 * MAX_REFERENCES characters ("W1 W2...").
    if max(map(len, references)) > 3 * MAX_REFERENCES and any(
        len(text.split()) > MAX_REFERENCES for text in references
    ):
        raise Refused("references")


def whole_numbers(values: Iterable[Any], low: int, high: int, none: bool = False) -> None:
    """Refused unless the values are whole numbers from `low` to `high` (or None)."""
    numbers = [value for value in values if value is not None] if none else list(values)
    if not types_of(numbers) <= {int} or min(numbers, default=low) < low or max(numbers, default=high) > high:
        raise Refused("number")


def check_entry_columns(columns: dict[str, list[Any]]) -> None:
    """Refused unless the entries' columns hold what `entry_of` makes of an entry."""
    if not set(columns["status"]) <= set(STATUSES):
        raise Refused("status")
    distinct = [texts(columns[name], ENTRY_TEXT_CHECKS.get(name)) for name in TEXT_FIELDS]
    whole_numbers(columns["version"], 1, 2**63, none=True)
    authors = columns["authors"]
    if not types_of(authors) <= {list} or max(map(len, authors), default=0) > MAX_AUTHORS:
        raise Refused("authors")
    names = texts(chain.from_iterable(authors), None)
    if "" in names:
        raise Refused("authors")
    printable([*distinct, names])
    if not types_of(columns["locked"]) <= {bool}:
        raise Refused("locked")


def check_impact_columns(columns: dict[str, list[Any]]) -> None:
    """Refused unless the OpenAlex parts' columns hold what `impact_of` makes of a part."""
    if not set(columns["status"]) <= {None, *IMPACT_STATUSES}:
        raise Refused("status")
    for name in IMPACT_TEXT:  # one line each, printable, no runs of spaces (`one_line` keeps it)
        text = " ".join(filter(None, texts(columns[name], IMPACT_TEXT_CHECKS.get(name))))  # each stripped
        if not text.isprintable() or "  " in text:
            raise Refused(name)
    whole_numbers(columns["cited_by"], 0, MAX_COUNT, none=True)
    years, citations = columns["years"], columns["citations"]
    if not types_of(years) <= {list} or not types_of(citations) <= {list}:
        raise Refused("counts")
    if list(map(len, years)) != list(map(len, citations)):
        raise Refused("counts")
    whole_numbers(chain.from_iterable(years), YEARS.start, YEARS.stop - 1)
    whole_numbers(chain.from_iterable(citations), 0, MAX_COUNT)
    if not all(list(each) == sorted(set(each)) for each in set(map(tuple, years))):
        raise Refused("counts")  # each part's years once, in order
    reference_lists(columns["references"])


def entries_of(columns: list[list[Any]], impacts: list[list[Any]]) -> Iterable[SourceEntry]:
    """The entries made from checked columns, in order."""
    new, entry_class, impact_class = object.__new__, SourceEntry, Impact
    for (
        status,
        title,
        checked,
        arxiv_id,
        version,
        doi,
        journal,
        kind,
        category,
        published,
        updated,
        authors,
        locked,
    ), (
        part,
        part_checked,
        part_id,
        part_doi,
        cited_by,
        venue,
        oa_url,
        part_published,
        years,
        citations,
        references,
    ) in zip(zip(*columns, strict=True), zip(*impacts, strict=True), strict=True):
        impact = None
        if part is not None:
            impact = new(impact_class)
            impact.__dict__.update(
                status=part,
                checked=part_checked,
                id=part_id,
                doi=part_doi,
                cited_by=cited_by,
                venue=venue,
                oa_url=oa_url,
                published=part_published,
                counts=tuple(zip(years, citations, strict=True)),
                references=tuple(references.split()),
            )
        entry = new(entry_class)
        entry.__dict__.update(
            status=status,
            title=title,
            checked=checked,
            arxiv_id=arxiv_id,
            version=version,
            doi=doi,
            journal_ref=journal,
            type=kind,
            primary_category=category,
            published=published,
            updated=updated,
            authors=tuple(authors),
            candidates=(),
            openalex=impact,
            links=(),
            locked=locked,
        )
        yield entry


def whole_entries(whole: Any, count: int) -> dict[int, SourceEntry]:
    """The entries kept whole, by place, each checked by `entry_of`."""
    entries: dict[int, SourceEntry] = {}
    for place, data in whole:
        if (
            type(place) is not int
            or not 0 <= place < count
            or non_printable().search(json.dumps(data, ensure_ascii=False))
        ):
            raise Refused("whole")
        entry, _ = entry_of(with_years(data))
        if entry is None:
            raise Refused("whole")
        entries[place] = entry
    return entries


def with_years(data: Any) -> Any:
    """An entry's data as JSON gives it back, with the years of its OpenAlex counts numbers
    again (JSON keys are text)."""
    impact = data.get("openalex") if isinstance(data, dict) else None
    if isinstance(impact, dict) and isinstance(impact.get("counts"), dict):
        counts = {int(year): count for year, count in impact["counts"].items()}
        return {**data, "openalex": {**impact, "counts": counts}}
    return data


PLACEHOLDER = SourceEntry("unknown")  # in the columns, at the place of an entry kept whole


def saved_form(digest: str, sources: Sources) -> dict[str, Any] | None:
    """The cache's JSON for the entries read from the sources.yaml of sha256 `digest` (None:
    the columns would not check, a bug)."""
    keys = list(sources.entries)
    entries = list(sources.entries.values())
    whole = {place for place, entry in enumerate(entries) if entry.candidates or entry.links}
    for _ in range(2):  # the second time with the entries that the columns' checks refuse kept whole
        saved = {
            "format": FORMAT,
            "code": code_version(),
            "digest": digest,
            "keys": keys,
            "lines": [sources.line(key) for key in keys],
            **columns_of([PLACEHOLDER if place in whole else entry for place, entry in enumerate(entries)]),
            "whole": [[place, entries[place].as_data()] for place in sorted(whole)],
        }
        if fit(saved):
            if not any(entry.openalex for entry in entries):  # a lean file: no OpenAlex columns
                saved["impact"] = None
            return saved
        whole |= {place for place, entry in enumerate(entries) if not fit(columns_of([entry]))}
    return None


def fit(saved: dict[str, Any]) -> bool:
    """Whether the columns of `saved` check."""
    try:
        check_entry_columns(saved["entry"])
        check_impact_columns(saved["impact"])
        return True
    except Refused:
        return False


def columns_of(entries: list[SourceEntry]) -> dict[str, dict[str, list[Any]]]:
    """The entries by column (`entry` and `impact`)."""
    entry_columns: dict[str, list[Any]] = {name: [] for name in ENTRY_COLUMNS}
    impact_columns: dict[str, list[Any]] = {name: [] for name in IMPACT_COLUMNS}
    for entry in entries:
        fields = vars(entry)
        for name in ENTRY_COLUMNS:
            entry_columns[name].append(fields[name])
        impact = entry.openalex
        part = vars(impact) if impact is not None else {**IMPACT_DEFAULTS, "status": None}
        for name in IMPACT_COLUMNS[:-3]:
            impact_columns[name].append(part[name])
        impact_columns["years"].append([year for year, _ in part["counts"]])
        impact_columns["citations"].append([count for _, count in part["counts"]])
        impact_columns["references"].append(" ".join(part["references"]))
    entry_columns["authors"] = [list(authors) for authors in entry_columns["authors"]]
    return {"entry": entry_columns, "impact": impact_columns}


def keep_sources(file: Path, digest: str, sources: Sources) -> None:
    """Keep the entries read from the sources.yaml of sha256 `digest` in `file`."""
    saved = saved_form(digest, sources)
    if saved is not None:
        body = json.dumps(saved, ensure_ascii=False, separators=(",", ":"))
        write_atomically(file, body.encode("utf-8", "surrogatepass"))

"""`sources.yaml`: what `scholarsite link-sources` found about each paper's original source.

The file is written by `link-sources`, reviewed and committed with the project; the build only
reads it (it never touches the network). One entry per paper key (`2025/normalised title`),
sorted by key::

    papers:
      2025/comet fine grained overlapping for mixture of experts:
        title: 'Comet: Fine-grained Overlapping for Mixture-of-Experts'   # for review
        status: found            # found | ambiguous | not-found | unknown
        checked: 2026-12-01      # when link-sources last looked it up
        arxiv_id: 2502.19811     # without version
        version: 2
        doi: 10.1145/3620666.3651379
        journal_ref: Proc. MLSys 2025
        primary_category: cs.DC
        published: 2025-02-27
        updated: 2025-03-04
        authors: [Shulai Zhang, Ningxin Zheng, ...]   # complete, in order
        candidates:              # only when ambiguous
          - {arxiv_id: 2502.19811, title: ..., published: 2025-02-27}
        openalex:                # what OpenAlex said: see `scholarsite.inputs.openalex_part`
          {status: found, checked: 2026-12-01, id: W4392345678, cited_by: 17, ...}
        type: conference paper   # set by hand, with `links:` (see `inputs.paperlinks`)
        links: [{kind: code, url: https://github.com/bytedance/flux}]
        locked: true             # set by hand: link-sources never changes this entry

Every key but `status` is optional. Fields are bounded as a seed's are: text at most
`MAX_TEXT` characters, at most `MAX_AUTHORS` authors and `MAX_CANDIDATES` candidates; a paper
key given twice is an error at its second line. `dump_sources` writes only entries that read
back as they are (`entry_of(entry.as_data()) == entry`). A person may edit any entry: set an
`arxiv_id` by hand (link-sources then fetches that id's metadata), mark a wrong match `not-found`, set an
`openalex: {status: unknown, id: W...}` to choose the OpenAlex work, or `lock` the entry.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from scholarsite.errors import BuildError, Diagnostic, error
from scholarsite.inputs.files import present, read_input
from scholarsite.inputs.openalex_part import DATE_FIELDS, MAX_TEXT, Impact, impact_of, made, text_problem
from scholarsite.inputs.paperlinks import Link, links_of, type_problem
from scholarsite.inputs.setting import excerpt
from scholarsite.inputs.text import decode
from scholarsite.lifetime import collector_paused

SOURCES_FILE = "sources.yaml"
MAX_AUTHORS = 5_000
MAX_CANDIDATES = 50
STATUSES = ("found", "ambiguous", "not-found", "unknown")
ARXIV_ID_RE = re.compile(r"(\d{4}\.\d{4,5}|[a-z-]+(\.[A-Z]{2})?/\d{7})")
DOI_RE = re.compile(r"10\.\d{4,9}/\S+")
HEADER = (
    "# Original sources of the papers, by paper key: written by `scholarsite link-sources`,\n"
    "# reviewed and committed. Edit freely: set arxiv_id by hand, mark a wrong match\n"
    "# not-found, or add `locked: true` to keep an entry as it is.\n"
)


@dataclass(frozen=True)
class Candidate:
    """One possible arXiv match of an ambiguous paper."""

    arxiv_id: str
    title: str
    published: str = ""


@dataclass(frozen=True)
class SourceEntry:
    """What is known of one paper's original source."""

    status: str
    title: str = ""
    checked: str = ""
    arxiv_id: str = ""
    version: int | None = None
    doi: str = ""
    journal_ref: str = ""
    type: str = ""  # set by hand: one of the seed format's types (`records.KINDS`)
    primary_category: str = ""
    published: str = ""
    updated: str = ""
    authors: tuple[str, ...] = ()
    candidates: tuple[Candidate, ...] = ()
    openalex: Impact | None = None
    links: tuple[Link, ...] = ()  # set by hand: code, slides, video... (`inputs.paperlinks`)
    locked: bool = False

    @property
    def abs_url(self) -> str:
        """The arXiv abstract page, or ''."""
        return f"https://arxiv.org/abs/{self.arxiv_id}" if self.arxiv_id else ""

    @property
    def pdf_url(self) -> str:
        """The arXiv PDF, or ''."""
        return f"https://arxiv.org/pdf/{self.arxiv_id}" if self.arxiv_id else ""

    @property
    def doi_url(self) -> str:
        """The DOI resolver link, or ''."""
        return f"https://doi.org/{self.doi}" if self.doi else ""

    def as_data(self) -> dict[str, Any]:
        """The entry as YAML data: empty fields left out, in a fixed order."""
        data = dict(vars(self))  # by field; shallow (`asdict` took 95 µs an entry copying deep)
        data["authors"] = list(self.authors)
        data["candidates"] = [dict(vars(c)) for c in self.candidates]
        data["openalex"] = self.openalex.as_data() if self.openalex else None
        data["links"] = [link.as_data() for link in self.links]
        return {key: value for key, value in data.items() if value not in ("", None, [], (), False)}


TEXT_FIELDS = (
    "title",
    "checked",
    "arxiv_id",
    "doi",
    "journal_ref",
    "type",
    "primary_category",
    "published",
    "updated",
)


ENTRY_FIELDS = frozenset(SourceEntry.__dataclass_fields__)
# Every field with its default, in the order of the class (`status` is always set).
ENTRY_DEFAULTS = {name: spec.default for name, spec in SourceEntry.__dataclass_fields__.items()}


def entry_of(value: Any) -> tuple[SourceEntry | None, str | None]:
    """An entry from YAML data, or the reason it is not one."""
    if not isinstance(value, dict):
        return None, "expected key: value fields"
    if not ENTRY_FIELDS.issuperset(value):
        unknown = set(value) - ENTRY_FIELDS
        return None, f"unknown field {excerpt(sorted(map(str, unknown))[0])}"
    status = value.get("status")
    if status not in STATUSES:
        return None, f"status must be one of {', '.join(STATUSES)}, found {excerpt(status)}"
    fields: dict[str, Any] = {"status": status}
    problem = text_fields(value, fields) or identifiers_problem(fields)
    if problem is None and len(fields) < len(value):  # more than text: lists, parts, flags
        problem = other_fields(value, fields)
    if problem:
        return None, problem
    return made(SourceEntry, ENTRY_DEFAULTS, fields), None


def text_fields(value: dict[str, Any], fields: dict[str, Any]) -> str | None:
    """Put the text fields of an entry's data into `fields`, stripped; the reason one is
    refused, or None."""
    for name in TEXT_FIELDS:
        if name in value:
            item = value[name]
            text = item.strip() if type(item) is str else as_text(item)
            if text is None:
                return f"'{name}' must be text, found {excerpt(item)}"
            if (len(text) > MAX_TEXT or name in DATE_FIELDS) and (problem := text_problem(name, text)):
                return problem
            fields[name] = text
    return None


def identifiers_problem(fields: dict[str, Any]) -> str | None:
    """Why an entry's arXiv id, DOI or type is refused, or None."""
    if fields.get("arxiv_id") and not ARXIV_ID_RE.fullmatch(fields["arxiv_id"]):
        return f"'arxiv_id' must look like 2502.19811 or hep-th/9901001, found {excerpt(fields['arxiv_id'])}"
    if fields.get("doi") and not DOI_RE.fullmatch(fields["doi"]):
        return f"'doi' must look like 10.1145/3620666, found {excerpt(fields['doi'])}"
    return type_problem(fields.get("type", ""))


def other_fields(value: dict[str, Any], fields: dict[str, Any]) -> str | None:
    """Put an entry's links, version, authors, candidates, lock and OpenAlex part into
    `fields`; the reason one is refused, or None."""
    links, problem = links_of(value.get("links"))
    if problem:
        return problem
    version = value.get("version")
    if version is not None and (not isinstance(version, int) or isinstance(version, bool) or version < 1):
        return f"'version' must be a whole number from 1, found {excerpt(version)}"
    authors = value.get("authors", [])
    if not isinstance(authors, list) or not all(isinstance(a, str) and a.strip() for a in authors):
        return "'authors' must be a list of names"
    if len(authors) > MAX_AUTHORS or any(len(a) > MAX_TEXT for a in authors):
        return f"'authors' must be at most {MAX_AUTHORS} names of at most {MAX_TEXT} characters"
    candidates, problem = candidates_of(value.get("candidates"))
    if problem:
        return problem
    locked = value.get("locked", False)
    if not isinstance(locked, bool):
        return f"'locked' must be true or false, found {excerpt(locked)}"
    impact, problem = impact_of(value["openalex"]) if value.get("openalex") is not None else (None, None)
    if problem:
        return problem
    fields.update(
        version=version,
        authors=tuple(a.strip() for a in authors),
        candidates=tuple(candidates),
        openalex=impact,
        links=links,
        locked=locked,
    )
    return None


def as_text(item: Any) -> str | None:
    """A field that YAML typed as a date or a number as text, stripped (None: not text)."""
    if isinstance(item, datetime.date):
        item = item.isoformat()
    return str(item).strip() if isinstance(item, str | int | float) else None


def candidates_of(value: Any) -> tuple[list[Candidate], str | None]:
    """The `candidates` of an ambiguous entry, or the reason they are none."""
    if value is not None and not isinstance(value, list):
        return [], "'candidates' must be a list"
    if value and len(value) > MAX_CANDIDATES:
        return [], f"'candidates' holds over {MAX_CANDIDATES} entries"
    candidates = []
    for item in value or []:
        if not isinstance(item, dict) or not isinstance(item.get("arxiv_id"), str):
            return [], "each candidate needs an arxiv_id"
        parts = [item["arxiv_id"], item.get("title", ""), item.get("published", "")]
        if isinstance(parts[2], datetime.date):
            parts[2] = parts[2].isoformat()
        if not all(isinstance(part, str) and len(part) <= MAX_TEXT for part in parts):
            return [], f"each candidate's fields must be text of at most {MAX_TEXT} characters"
        candidates.append(Candidate(*(part.strip() for part in parts)))
    return candidates, None


def parse_sources(text: str, path: str) -> tuple[dict[str, SourceEntry], list[Diagnostic]]:
    """The entries of a sources file by paper key, and a diagnostic (with line) per bad entry."""
    sources, problems = parsed(text, path)
    return sources.entries, problems


def parsed(text: str, path: str) -> tuple[Sources, list[Diagnostic]]:
    """The entries of a sources file with the line of each, and a diagnostic per bad entry;
    BuildError when the file is no YAML it accepts. A file that the quick reader takes whole
    and whose entries are all good is read by it; any other is read as YAML, which names the
    line of each problem."""
    return quickly_parsed(text, path) or carefully_parsed(text, path)


def quickly_parsed(text: str, path: str) -> tuple[Sources, list[Diagnostic]] | None:
    """The entries as `blockyaml.entries_under` reads them, when it can and all are good."""
    from scholarsite.inputs.blockyaml import entries_under  # 20 ms of imports, for sources.yaml only

    found = entries_under(text, "papers", path)
    if not found:
        return None
    entries: dict[str, SourceEntry] = {}
    for key, (data, _) in found.items():
        entry, problem = entry_of(data)
        if entry is None or problem:
            return None
        entries[key] = entry
    return Sources(entries, {key: line for key, (_, line) in found.items()}), []


def carefully_parsed(text: str, path: str) -> tuple[Sources, list[Diagnostic]]:
    """The entries read as YAML (`yamlmap.read_settings`), with a diagnostic per bad entry."""
    from scholarsite.inputs.yamlmap import read_settings  # with PyYAML: 17 ms of imports

    problems: list[Diagnostic] = []
    entries: dict[str, SourceEntry] = {}
    lines: dict[str, int] = {}
    key_lines: dict[str, dict[str, int]] = {}
    for key, value, line in read_settings(text, path, key_lines=key_lines):
        if key != "papers":
            problems.append(error(path, line, f"unknown key {excerpt(key)}: expected 'papers'"))
            continue
        if value is None:
            continue
        if not isinstance(value, dict):
            problems.append(error(path, line, "'papers' must map paper keys to entries"))
            continue
        lines = key_lines[key]
        for paper_key, data in value.items():
            entry, problem = entry_of(data)
            where = lines.get(str(paper_key), line)
            if problem:
                problems.append(error(path, where, f"{excerpt(str(paper_key))}: {problem}"))
            else:
                entries[str(paper_key)] = entry  # type: ignore[assignment]
    return Sources(entries, lines if entries else {}), problems


def read_sources(root: Path) -> tuple[Sources, list[Diagnostic]]:
    """The project's `sources.yaml` (none: no entries) with each entry's line; problems as
    diagnostics. The file is read once."""
    data, problems = sources_bytes(root)
    return (Sources(), problems) if data is None else sources_of(data)


def sources_bytes(root: Path) -> tuple[bytes | None, list[Diagnostic]]:
    """The bytes of the project's `sources.yaml` (None: no file, or one that cannot be read)."""
    path = root / SOURCES_FILE
    if not present(path):
        return None, []
    try:
        return read_input(path, root, SOURCES_FILE), []
    except BuildError as exc:
        return None, list(exc.diagnostics)


def sources_of(data: bytes) -> tuple[Sources, list[Diagnostic]]:
    """The entries of a sources.yaml's bytes with each entry's line, and problems."""
    text, problems = decode(data, SOURCES_FILE)
    if text is None:
        return Sources(), problems
    try:
        with collector_paused():  # the entries live on: the collector's passes are wasted
            sources, found = parsed(text, SOURCES_FILE)
    except BuildError as exc:
        return Sources(), problems + list(exc.diagnostics)
    return sources, problems + found


def load_sources(root: Path) -> tuple[dict[str, SourceEntry], list[Diagnostic]]:
    """The entries of the project's `sources.yaml` by paper key, and problems."""
    sources, problems = read_sources(root)
    return sources.entries, problems


class Unwritable(ValueError):
    """An entry that would not read back as it is (a bug of whatever made it)."""


@cache
def dumper() -> type:
    """PyYAML's dumper, loaded by the first file written: libyaml's when it is installed (it
    writes the same text, faster)."""
    import yaml

    return getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def dump_sources(entries: dict[str, SourceEntry]) -> str:
    """The file's text: the header, then every entry sorted by key (deterministic);
    Unwritable, naming the key, for an entry that would not read back as it is."""
    body = {"papers": {key: checked_data(key, entries[key]) for key in sorted(entries)}}
    import yaml

    return HEADER + yaml.dump(body, Dumper=dumper(), allow_unicode=True, sort_keys=False, width=100)


def checked_data(key: str, entry: SourceEntry) -> dict[str, Any]:
    """An entry as YAML data, after checking that it reads back as the same entry."""
    data = entry.as_data()
    again, problem = entry_of(data)
    if not key.strip() or "\n" in key or len(key) > MAX_TEXT:
        problem = "a paper key must be one line of text"
    elif again != entry:
        problem = problem or "it does not read back as it is"
    if problem:
        raise Unwritable(f"{excerpt(key)}: {problem}")
    return data


@dataclass
class Sources:
    """The entries by paper key, as the build sees them."""

    entries: dict[str, SourceEntry] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)  # the line of each entry's key

    def line(self, paper_key: str) -> int:
        """The line of an entry in sources.yaml (0 when unknown)."""
        return self.lines.get(paper_key, 0)

    def following(self, former: Mapping[str, str]) -> Sources:
        """These entries, each one under an old key (`former`: old key -> the key of the paper
        that had it) moved to the paper's key, unless an entry is under that key already."""
        entries, lines = dict(self.entries), dict(self.lines)
        for old, new in former.items():
            if old in entries and new not in entries:
                entries[new] = entries.pop(old)
                lines[new] = lines.pop(old, 0)
        return Sources(entries, lines)

    def own(self, paper_key: str) -> SourceEntry | None:
        """A paper's entry whatever its status (the links and type a maintainer added)."""
        return self.entries.get(paper_key)

    def of(self, paper_key: str) -> SourceEntry | None:
        """The entry of a paper, when link-sources found its source."""
        entry = self.entries.get(paper_key)
        return entry if entry is not None and entry.status == "found" and entry.arxiv_id else None

    def impact(self, paper_key: str) -> Impact | None:
        """What OpenAlex said of a paper, when it found the paper."""
        entry = self.entries.get(paper_key)
        found = entry.openalex if entry is not None else None
        return found if found is not None and found.status == "found" else None

    def published(self, paper_key: str) -> str:
        """A paper's publication date as sources.yaml has it: its arXiv original's first
        version, else OpenAlex's date; '' when neither is known."""
        original, impact = self.of(paper_key), self.impact(paper_key)
        return (original.published if original else "") or (impact.published if impact else "")

"""Citation exports (BibTeX, RIS, CSL-JSON).

The records come from scraped author profiles, so a paper only names the authors of this
collection unless `sources.yaml` knows its original (then its complete author list, arXiv id,
DOI and date). Every format says when the list is incomplete: BibTeX ends it with
"and others", RIS and CSL-JSON carry a note. A paper whose type and venue are known (an
imported record's details) is cited as what it is: `@article{..., journal = ...}`,
`@inproceedings{..., booktitle = ...}`, `@phdthesis{..., school = ...}` and their RIS and CSL
types.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from urllib.parse import quote

from scholarsite.inputs.digests import Digested
from scholarsite.inputs.unicode import strip_ignorable
from scholarsite.model.identity import slugify
from scholarsite.tex.bibtex import escape_specials, tex_to_bibtex

INCOMPLETE_NOTE = "Author list incomplete: it names only the authors in this collection."

_PARTICLES = frozenset(
    {"al", "bin", "da", "dal", "de", "del", "della", "dem", "den", "der", "des", "di", "do"}
    | {"dos", "du", "el", "la", "le", "lo", "ten", "ter", "van", "von", "zu"}
)
_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})
_KEY_STOPWORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "by", "for", "from", "how", "in", "is", "it", "of"}
    | {"on", "or", "the", "to", "towards", "toward", "via", "what", "when", "where", "which"}
    | {"why", "with"}
)
_AND = re.compile(r"(?<!\S)and(?!\S)", re.IGNORECASE)
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
RIS_END = "ER  - \n"
IMPORT_SOURCES = frozenset({"bibtex", "openalex"})
_URL_SAFE = ":/?#[]@!$&'()*+,;=%~-._"


@dataclass(frozen=True)
class CitationRecord(Digested):
    """What the exports need to know about one paper."""

    key: str
    title_tex: str
    title_plain: str
    authors: tuple[str, ...]
    year: int
    source: str
    subjects: tuple[str, ...]
    abstract_plain: str
    url: str | None
    complete: bool = False  # the authors are the paper's whole list, in order
    arxiv_id: str = ""
    primary_category: str = ""
    doi: str = ""
    published: str = ""  # ISO date, a year and month (`2018-06`) or a year, or ''
    kind: str = ""  # one of seeds' KINDS, or '' when unknown
    venue: str = ""  # journal, proceedings, school, publisher: where it appeared

    @property
    def date_parts(self) -> list[int]:
        """[year, month, day] as far as known (the record's year alone at least)."""
        parts = [int(part) for part in self.published.split("-") if part.isdigit()]
        return parts if parts and parts[0] == self.year else [self.year]


@dataclass(frozen=True)
class Kind:
    """How each format names one type of publication, and the field its venue goes in."""

    bibtex: str
    venue_field: str  # BibTeX's
    ris: str
    csl: str


KINDS = {
    "article": Kind("article", "journal", "JOUR", "article-journal"),
    "conference paper": Kind("inproceedings", "booktitle", "CPAPER", "paper-conference"),
    "preprint": Kind("misc", "howpublished", "GEN", "article"),
    "PhD thesis": Kind("phdthesis", "school", "THES", "thesis"),
    "master's thesis": Kind("mastersthesis", "school", "THES", "thesis"),
    "book": Kind("book", "publisher", "BOOK", "book"),
    "chapter": Kind("incollection", "booktitle", "CHAP", "chapter"),
    "report": Kind("techreport", "institution", "RPRT", "report"),
    "dataset": Kind("misc", "howpublished", "DATA", "dataset"),
}
UNKNOWN_KIND = Kind("misc", "howpublished", "GEN", "article")


def kind_of(rec: CitationRecord) -> Kind:
    """The record's type in each format (an unknown one: a generic entry)."""
    return KINDS.get(rec.kind, UNKNOWN_KIND)


@dataclass(frozen=True)
class PersonName:
    """A personal name split into its parts; particle is e.g. "van der"."""

    given: str
    particle: str
    family: str
    suffix: str


def split_name(name: str) -> PersonName:
    """Split "Given [particle] Family [suffix]" or "Family, Given" into parts.

    Particles are lowercase words such as "van der", as BibTeX's "von" part.
    """
    name = _one_line(name)
    if "," in name:
        family, given = (part.strip() for part in name.split(",", 1))
        particle, family = _split_particle(family.split())
        return PersonName(given, particle, family, "")
    words = name.split()
    suffix = words.pop() if len(words) > 2 and words[-1].lower() in _SUFFIXES else ""
    if len(words) <= 1:
        return PersonName("", "", " ".join(words), suffix)
    start = next((i for i, w in enumerate(words[1:-1], 1) if w in _PARTICLES), len(words) - 1)
    particle, family = _split_particle(words[start:])
    return PersonName(" ".join(words[:start]), particle, family, suffix)


def _split_particle(words: list[str]) -> tuple[str, str]:
    """Split leading lowercase particles ("van der") from the rest of a family name."""
    n = 0
    while n < len(words) - 1 and words[n] in _PARTICLES:
        n += 1
    return " ".join(words[:n]), " ".join(words[n:])


def make_citation_keys(
    items: Sequence[tuple[str, int, str]], base: Callable[[str, int, str], str] | None = None
) -> list[str]:
    """Keys like "jiang2025comet" for (first author, year, plain title) items.

    A key depends only on its own item unless several items share it; those get suffixes
    a, b, c, ... in input order, skipping any key another item already has. `base` gives an
    item's key before suffixes (by default `base_key`; the build passes one that remembers).
    """
    return unique_keys([(base or base_key)(author, year, title) for author, year, title in items])


def unique_keys(bases: Sequence[str]) -> list[str]:
    """The keys of items whose keys before suffixes are `bases` (`make_citation_keys`)."""
    counts = Counter(bases)
    used = {base for base in bases if counts[base] == 1}
    keys = []
    next_suffix: Counter[str] = Counter()
    for base in bases:
        if counts[base] == 1:
            keys.append(base)
            continue
        key = base + _letters(next_suffix[base])
        while key in used:
            next_suffix[base] += 1
            key = base + _letters(next_suffix[base])
        next_suffix[base] += 1
        used.add(key)
        keys.append(key)
    return keys


@lru_cache(maxsize=2**18)  # a collection's worth: a process that builds again keys each paper once
def base_key(author: str, year: int, title: str) -> str:
    """Family name, year and first significant title word, lowercased ASCII."""
    family = _ascii_word(split_name(author).family) or "anon"
    return f"{family}{year}{_first_significant_word(strip_ignorable(title))}"


def _first_significant_word(title: str) -> str:
    """The first slug word of `title` that is neither a stopword nor a number, slugifying one
    space-separated chunk at a time (slugify works character by character, so this gives the
    words of the whole title's slug, and most titles stop at their first chunk)."""
    for chunk in title.split():
        for word in slugify(chunk, separator=" ").split():
            if word not in _KEY_STOPWORDS and not word.isdigit():
                return word
    return ""


@cache
def _ascii_word(text: str) -> str:
    """Lowercase ASCII letters and digits of text, transliterated."""
    return slugify(text, separator="")


def _letters(n: int) -> str:
    """0 -> "a", 25 -> "z", 26 -> "aa" (bijective base 26)."""
    out = ""
    n += 1
    while n:
        n, rem = divmod(n - 1, 26)
        out = chr(ord("a") + rem) + out
    return out


def _one_line(text: str) -> str:
    """NFC-normalise text and collapse all whitespace, including newlines, to single spaces."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def bibtex_escape(text: str) -> str:
    """Escape plain text for a braced BibTeX field."""
    return escape_specials(_one_line(text))


def bibtex_title(title_tex: str) -> str:
    """A TeX title as BibTeX, from the parse tree the page is rendered from."""
    return tex_to_bibtex(_one_line(title_tex))


def _bibtex_name(name: str) -> str:
    """One author as "particle Family, Suffix, Given", escaped."""
    parts = split_name(name)
    family = " ".join(filter(None, (parts.particle, parts.family)))
    if not parts.given:
        return "{" + bibtex_escape(family) + "}"
    fields = [family, parts.suffix, parts.given] if parts.suffix else [family, parts.given]
    return _AND.sub("{\\g<0>}", ", ".join(bibtex_escape(f) for f in fields))


def _is_arxiv(rec: CitationRecord) -> bool:
    """True if the paper's source is arXiv."""
    return rec.source.strip().lower() == "arxiv"


def _host(rec: CitationRecord) -> str:
    """Where the paper is hosted, as its seed's source names it (`arXiv`, `OpenReview`), or ''
    for the sources `import` writes (a BibTeX file or OpenAlex host nothing)."""
    return "" if rec.source.strip().casefold() in IMPORT_SOURCES else rec.source


def to_bibtex(rec: CitationRecord) -> str:
    """One entry of the record's type (@misc when unknown); the title keeps its TeX math and is
    double-braced to keep its case. An arXiv paper of no other venue is `howpublished = {arXiv
    preprint}`; no entry names the seed's source otherwise.

    rec.key must be a safe citation key, as make_citation_keys makes.
    """
    kind = kind_of(rec)
    authors = [_bibtex_name(a) for a in rec.authors if a.strip()] + ([] if rec.complete else ["others"])
    fields = [
        ("title", "{" + bibtex_title(rec.title_tex or rec.title_plain) + "}"),
        ("author", " and ".join(authors)),
        ("year", str(rec.year)),
    ]
    if len(rec.date_parts) > 1:
        fields.append(("month", MONTHS[rec.date_parts[1] - 1]))  # BibTeX's macro, unbraced
    if rec.venue:
        fields.append((kind.venue_field, bibtex_escape(rec.venue)))
    elif _host(rec) and kind.bibtex == "misc":
        fields.append(
            ("howpublished", bibtex_escape(f"{rec.source} preprint" if _is_arxiv(rec) else rec.source))
        )
    if rec.arxiv_id:
        fields.append(("eprint", _safe_url(rec.arxiv_id)))
    if rec.arxiv_id or _is_arxiv(rec):
        fields.append(("archivePrefix", "arXiv"))
        primary = rec.primary_category or (rec.subjects[0] if rec.subjects else "")
        if primary:
            fields.append(("primaryClass", bibtex_escape(primary)))
    if rec.doi:
        fields.append(("doi", _safe_url(rec.doi)))
    if rec.subjects:
        fields.append(("keywords", bibtex_escape(", ".join(rec.subjects))))
    if rec.url:
        fields.append(("url", _safe_url(rec.url)))
    if rec.abstract_plain.strip():
        fields.append(("abstract", bibtex_escape(rec.abstract_plain)))
    body = ",\n".join(
        f"  {name} = {value if name == 'month' else '{' + value + '}'}" for name, value in fields
    )
    return f"@{kind.bibtex}{{{rec.key},\n{body}\n}}\n"


def _safe_url(url: str) -> str:
    """URL with braces, backslashes, spaces and non-ASCII percent-encoded."""
    return quote(url.strip(), safe=_URL_SAFE)


def _ris_name(name: str) -> str:
    """One author as "particle Family, Given[, Suffix]"."""
    parts = split_name(name)
    family = " ".join(filter(None, (parts.particle, parts.family)))
    return ", ".join(filter(None, (family, parts.given, parts.suffix)))


def ris_lines(rec: CitationRecord) -> list[tuple[str, str]]:
    """One RIS record's (tag, value) lines of the paper's type (TY GEN when unknown), with an
    N1 note when the author list is incomplete; without the closing ER."""
    lines = [("TY", kind_of(rec).ris), ("ID", rec.key), ("TI", rec.title_plain)]
    lines += [("AU", _ris_name(a)) for a in rec.authors if a.strip()]
    lines.append(("PY", str(rec.year)))
    lines += [("DB", _host(rec))] if _host(rec) else []
    if rec.venue:
        lines.append(("PB" if kind_of(rec).ris == "THES" else "T2", rec.venue))
    if len(rec.date_parts) > 1:
        lines.append(
            ("DA", "/".join(f"{part:02d}" for part in rec.date_parts) + "/" * (4 - len(rec.date_parts)))
        )
    lines += [("KW", subject) for subject in rec.subjects]
    if rec.abstract_plain.strip():
        lines.append(("AB", rec.abstract_plain))
    if rec.doi:
        lines.append(("DO", rec.doi))
    if rec.url:
        lines.append(("UR", _safe_url(rec.url)))
    if not rec.complete:
        lines.append(("N1", INCOMPLETE_NOTE))
    return lines


def ris_text(lines: Iterable[tuple[str, str]]) -> str:
    """RIS lines as text, each value on one line."""
    return "".join(f"{tag}  - {_one_line(value)}\n" for tag, value in lines)


def to_ris(rec: CitationRecord) -> str:
    """One RIS record, closed by its ER line."""
    return ris_text(ris_lines(rec)) + RIS_END


def abstract_line(rec: CitationRecord) -> str:
    """The abstract as RIS and CSL-JSON hold it: on one line ('' when there is none)."""
    return _one_line(rec.abstract_plain) if rec.abstract_plain.strip() else ""


def _csl_name(name: str) -> dict[str, str]:
    """One author as a CSL name object."""
    parts = split_name(name)
    fields = {
        "family": parts.family,
        "given": parts.given,
        "non-dropping-particle": parts.particle,
        "suffix": parts.suffix,
    }
    return {key: value for key, value in fields.items() if value}


def to_csl_json(rec: CitationRecord) -> dict:
    """One CSL-JSON item of the paper's type ("article", CSL's type for preprints and working
    papers, when unknown)."""
    kind = kind_of(rec)
    item: dict = {
        "id": rec.key,
        "type": kind.csl,
        "title": _one_line(rec.title_plain),
        "author": [_csl_name(a) for a in rec.authors if a.strip()],
        "issued": {"date-parts": [rec.date_parts]},
    }
    if _host(rec):
        item["publisher"] = _host(rec)
    if rec.venue:
        item["publisher" if kind.csl == "thesis" else "container-title"] = _one_line(rec.venue)
    if not rec.complete:
        item["note"] = INCOMPLETE_NOTE
    if rec.doi:
        item["DOI"] = rec.doi
    if _is_arxiv(rec) and rec.kind in ("", "preprint"):
        item["genre"] = "Preprint"
    if rec.subjects:
        item["keyword"] = ", ".join(rec.subjects)
    if abstract := abstract_line(rec):
        item["abstract"] = abstract
    if rec.url:
        item["URL"] = _safe_url(rec.url)
    return item


def csl_json_file(recs: Iterable[CitationRecord]) -> str:
    """A CSL-JSON array of several items, as UTF-8 JSON text."""
    return csl_json_text([to_csl_json(rec) for rec in recs])


def csl_json_text(items: list[dict]) -> str:
    """CSL-JSON items as the file's text (one line, ending in a newline)."""
    return json.dumps(items, ensure_ascii=False) + "\n"

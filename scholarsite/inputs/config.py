"""Site settings from `site.yaml`: every key checked, every problem reported at once.

Text settings are bounded in length (`MAX_LENGTHS`, `MAX_TEXT`), as seed fields are, since
they are copied into every page; `base_url` is a plain address (http or https, a host, no
user name or password, query or fragment), since it is published in every canonical link.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from scholarsite.errors import BuildError, Diagnostic, error
from scholarsite.inputs.files import present, read_input
from scholarsite.inputs.setting import excerpt
from scholarsite.inputs.text import CONTROL_RE, decode
from scholarsite.inputs.yamlsettings import remembered_settings

if TYPE_CHECKING:
    from scholarsite.inputs.memo import Memo

LANGUAGE_RE = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*")
URL_RE = re.compile(r"https?://[^\s/$.?#][^\s<>\"']*")
HOST_RE = re.compile(r"(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}", re.I)
CREDENTIALS_RE = re.compile(r"(?<=//)[^/?#]*@")
EMAIL_RE = re.compile(r"[^@\s<>\"'&?#/]+@[^@\s<>\"'&?#/]+\.[a-z]{2,63}", re.I)
MAX_LENGTHS = {"title": 300, "description": 2_000, "language": 35}  # characters
MAX_TEXT = 2_000  # characters, for any other text setting


@dataclass(frozen=True)
class Config:
    """Validated site settings with their defaults."""

    title: str = "Publication records"
    description: str = "Who published what: authors, papers, subjects and years."
    language: str = "en"
    base_url: str | None = None
    cname: str | None = None
    papers_per_page: int = 100
    latest_papers: int = 10
    feed_entries: int = 20
    author_feeds: bool = False  # an Atom feed beside every author's page (a file an author)
    related_papers: int = 4
    portable: bool = False
    unsafe_html: bool = False  # keep raw HTML in content pages (their authors are trusted)
    search_shard_size: int = 2000
    static_file_mb: int = 512  # the largest file static/ may hold, in MiB (it is read whole to copy)
    author_papers_by: str = "year"  # how an author's page groups their papers: year or type
    max_site_mb: int = 1024  # the site's budget in MiB (GitHub Pages publishes at most 1 GB)
    max_files: int | None = None  # the site's budget in files (Cloudflare Pages: 20,000 a deploy)
    mailto: str | None = None  # link-sources' contact for OpenAlex's polite pool (never published)


BASE_URL_VARIABLE = "SCHOLARSITE_BASE_URL"
PORTABLE_VARIABLE = "SCHOLARSITE_PORTABLE"
Check = Callable[[Any], str | None]


def text(value: Any) -> str | None:
    """A non-empty string without control characters (YAML's "\\x1b" escapes can make them)."""
    if not (isinstance(value, str) and value.strip()):
        return "expected a non-empty text"
    return "expected text without control characters" if CONTROL_RE.search(value) else None


def boolean(value: Any) -> str | None:
    """true or false."""
    return None if isinstance(value, bool) else "expected true or false"


def positive_int(value: Any) -> str | None:
    """A whole number from 1 to 100000."""
    ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 100_000
    return None if ok else "expected a whole number from 1 to 100000"


def file_count(value: Any) -> str | None:
    """A whole number from 1 to 10000000."""
    ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 10_000_000
    return None if ok else "expected a whole number from 1 to 10000000"


def address(value: Any) -> str | None:
    """An absolute http(s) URL with a host, and no credentials, query or fragment."""
    if not (isinstance(value, str) and URL_RE.fullmatch(value)):
        return "expected an absolute http(s) URL such as 'https://example.org/'"
    if invisible := [char for char in value if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp")]:
        code = f"U+{ord(invisible[0]):04X}"
        return f"expected no invisible or bidirectional control character in the URL ({code})"
    parts = urlsplit(value)
    if "@" in parts.netloc:
        return "expected no user name or password in the URL (it would be published in every link)"
    if "?" in value or "#" in value:
        return "expected no query ('?') or fragment ('#'): the address of the site's folder"
    try:
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        port_ok = False
    if not parts.hostname or not port_ok:
        return "expected a host name (and a port from 1 to 65535, if any) such as 'https://example.org/'"
    return None


def matching(pattern: re.Pattern[str], expected: str) -> Check:
    """A string matching `pattern` entirely."""
    return lambda value: None if isinstance(value, str) and pattern.fullmatch(value) else expected


CHECKS: dict[str, Check] = {
    "title": text,
    "description": text,
    "language": matching(LANGUAGE_RE, "expected a language tag such as 'en' or 'en-GB'"),
    "base_url": address,
    "cname": matching(HOST_RE, "expected a domain name such as 'papers.example.org'"),
    "papers_per_page": positive_int,
    "latest_papers": positive_int,
    "feed_entries": positive_int,
    "author_feeds": boolean,
    "related_papers": positive_int,
    "portable": boolean,
    "unsafe_html": boolean,
    "search_shard_size": positive_int,
    "static_file_mb": positive_int,
    "author_papers_by": matching(re.compile("year|type"), "expected 'year' or 'type'"),
    "max_site_mb": positive_int,
    "max_files": file_count,
    "mailto": matching(EMAIL_RE, "expected an e-mail address such as 'you@example.org'"),
}
assert set(CHECKS) == {f.name for f in fields(Config)}

# What each setting does, as the settings reference (docs) and the starter site.yaml say it.
MEANINGS: dict[str, str] = {
    "title": "the site's title, in every page's header and `<title>`",
    "description": "the default meta description of pages",
    "language": "`lang` of every page, and the language of the search index",
    "base_url": "the absolute address of the deployed site, such as `https://you.github.io/repo/`: "
    "enables canonical links, `sitemap.xml` and Atom feeds (also `--base-url`, `SCHOLARSITE_BASE_URL`)",
    "cname": "a custom domain for GitHub Pages, written to `site/CNAME`",
    "papers_per_page": "papers a page of the long listings (papers, subjects, years, authors): pages are "
    "cut from the oldest end, so every page but the first holds this many and the first (the newest) up "
    "to twice as many less one; a new paper then changes the first page only",
    "latest_papers": "papers on the home page",
    "feed_entries": "newest papers in each Atom feed",
    "author_feeds": "write an Atom feed beside every author's page (with `base_url`): a file an author, "
    "so off by default (the site's, each subject's and each What's new feed are always written)",
    "related_papers": "related papers on a paper's page",
    "portable": "link pages as `folder/index.html`, so the site works opened from disk "
    "(also `build --portable`, `SCHOLARSITE_PORTABLE=1`)",
    "unsafe_html": "keep raw HTML in `content/` pages and author bios (only for authors you trust)",
    "search_shard_size": "search records (papers, subjects) a shard of the search index holds "
    "at most, on average: smaller shards re-index faster, more shards cost the browser more requests "
    "(a site of 200 to 32,000 records is split in 2 to 16 shards whatever the size)",
    "static_file_mb": "the largest file `static/` may hold, in MiB (a larger one is an error naming it)",
    "author_papers_by": "how an author's page groups their papers: `year` (newest first) or `type` "
    "(articles, conference papers, preprints, theses...: the type a record's details or sources.yaml's "
    "`type:` give), each row then saying its year",
    "max_site_mb": "the site's budget in MiB (GitHub Pages publishes at most 1 GB): a build that writes a "
    "larger site warns, naming the parts that take the most",
    "max_files": "the site's budget in files (Cloudflare Pages takes 20,000 a deploy, Netlify 54,000 a "
    "folder): a build that writes more warns, naming the parts that have the most; unset: no budget",
    "mailto": "your e-mail address, sent to OpenAlex by `link-sources` and `import` (its polite pool); "
    "never shown on the site",
}
assert set(MEANINGS) == set(CHECKS)


def expectation(key: str) -> str:
    """What the setting `key` accepts, as its check says it ('a whole number from 1 to 100000'),
    with its length limit for text."""
    check = CHECKS[key]
    said = (check.__doc__ or "").split(" (")[0].rstrip(".")
    expected = said[:1].lower() + said[1:] if said else (check(None) or "").removeprefix("expected ")
    if key in MAX_LENGTHS or CHECKS[key] is text:
        expected += f", at most {MAX_LENGTHS.get(key, MAX_TEXT):,} characters"
    return expected


def setting_problem(key: str, value: Any) -> str | None:
    """Why `value` is not acceptable for the known setting `key`, with an excerpt of it."""
    limit = MAX_LENGTHS.get(key, MAX_TEXT)
    if isinstance(value, str) and len(value) > limit:
        return f"expected at most {limit:,} characters, found {len(value):,}"
    problem = CHECKS[key](value)
    return f"{problem}, found {shown(value)}" if problem else None


def shown(value: Any) -> str:
    """A short excerpt of a value for a message, a password in a URL masked."""
    return excerpt(CREDENTIALS_RE.sub("…@", value) if isinstance(value, str) else value)


def normalise_value(key: str, value: Any) -> Any:
    """Canonical forms: base_url always ends with '/'."""
    if key == "base_url":
        return value.rstrip("/") + "/"
    return value.strip() if isinstance(value, str) else value


def parse_config(source: str, path: str, memo: Memo | None = None) -> Config:
    """A Config from YAML text (its settings from `memo` when it holds them); raises BuildError
    listing every problem with its line."""
    problems: list[Diagnostic] = []
    values: dict[str, Any] = {}
    for key, value, line in remembered_settings(source, path, memo):
        if key not in CHECKS:
            known = ", ".join(sorted(CHECKS))
            problems.append(
                error(path, line, f"unknown setting '{excerpt(key)[1:-1]}'", f"known settings: {known}")
            )
            continue
        if value is None:
            continue
        if problem := setting_problem(key, value):
            problems.append(error(path, line, f"'{key}': {problem}"))
        else:
            values[key] = normalise_value(key, value)
    if problems:
        raise BuildError(problems)
    return Config(**values)


@dataclass(frozen=True)
class Overrides:
    """Settings given over site.yaml's: by the command line (`--base-url`, `--portable`) or
    the environment (`SCHOLARSITE_BASE_URL`, `SCHOLARSITE_PORTABLE=1`), as a CI workflow that
    knows the site's URL needs."""

    base_url: str = ""
    portable: bool = False

    @classmethod
    def given(cls, environment: Mapping[str, str], base_url: str | None, portable: bool) -> Overrides:
        """The command line's settings over the environment's."""
        return cls(
            (base_url or environment.get(BASE_URL_VARIABLE, "")).strip(),
            portable or environment.get(PORTABLE_VARIABLE) == "1",
        )

    def over(self, config: Config) -> Config:
        """`config` with these settings (BuildError for a base URL that is not one)."""
        if self.portable:
            config = replace(config, portable=True)
        if not self.base_url:
            return config
        if problem := setting_problem("base_url", self.base_url):
            raise BuildError([error(BASE_URL_VARIABLE, 0, problem)])
        return replace(config, base_url=normalise_value("base_url", self.base_url))


NONE_GIVEN = Overrides()  # site.yaml's settings as they are


def load_config(
    path: Path, display: str, overrides: Overrides = NONE_GIVEN, memo: Memo | None = None
) -> tuple[Config, list[Diagnostic]]:
    """Read `site.yaml` (a missing file means the defaults) with the settings given over it,
    and warnings about its text; its settings come from `memo` when it read the same text."""
    if not present(path):
        return overrides.over(Config()), []
    text, problems = decode(read_input(path, path.parent, display), display)
    if text is None:
        raise BuildError(problems)
    try:
        return overrides.over(parse_config(text, display, memo)), problems
    except BuildError as exc:
        raise BuildError([*problems, *exc.diagnostics]) from None

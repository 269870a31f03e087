"""OpenAlex API access over plain HTTP (`requests`): one polite client per run.

Since February 2026 OpenAlex wants an API key (free; the `mailto` polite pool is ignored):
`--openalex-key`, else `OPENALEX_API_KEY` (or `SCHOLARSITE_OPENALEX_KEY`), is sent as `api_key`
and never written anywhere. Single works by id or DOI are free; list filters are billed per
call, so papers known only by DOI are asked `BATCH` DOIs a call (`filter=doi:a|b|…`).
Every request also carries the `mailto` when one is set (`site.yaml`'s `mailto` or `--mailto`); requests are
DELAY_SECONDS apart (`SCHOLARSITE_OPENALEX_DELAY` may lower it, but only against a host other
than OpenAlex's, as the tests do). A 429 or 5xx answer, an answer that is no JSON object, or no
connection is retried with an exponential backoff (`scholarsite.sources.polite`); a 404 with
OpenAlex's JSON error body is `NotFound` (OpenAlex has no such entity), any other failure is
`LookupFailed` (nothing is known), or `ApiUnreachable` when the API cannot be reached.

pyalex is not used: its settings (`pyalex.config`: email, api_key, retries) are one
module-global object, which a run would have to switch; this client keeps them on itself, and
its own pace, retries and offline detection (`scholarsite.sources.polite`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import requests

from scholarsite.inputs.openalex_part import MAX_REFERENCES, MAX_TEXT, YEARS, short_work_id
from scholarsite.inputs.text import CONTROL_RE
from scholarsite.sources import OPENALEX_URL
from scholarsite.sources.polite import (
    NO_ENVIRONMENT,
    ApiUnreachable,
    LookupFailed,
    Pace,
    PoliteSession,
    configured_delay,
    with_retries,
)

API_VARIABLE = "SCHOLARSITE_OPENALEX_API"
DELAY_VARIABLE = "SCHOLARSITE_OPENALEX_DELAY"
KEY_VARIABLE = "SCHOLARSITE_OPENALEX_KEY"
KEY_VARIABLES = ("OPENALEX_API_KEY", KEY_VARIABLE)
BATCH = 50  # DOIs in one `filter=doi:…` request (OpenAlex takes up to about 50)
DELAY_SECONDS = 0.1  # OpenAlex allows more; ten a second is plenty for a collection
BACKOFF_SECONDS = 1.0  # retries wait 2, 4, then 8 seconds against OpenAlex
OPENALEX_HOSTS = ("openalex.org",)
PER_PAGE = 200  # OpenAlex's largest page
API_NAME = "OpenAlex"


class NotFound(Exception):
    """OpenAlex answered 404 with its JSON error body: it has no such entity."""


class BadAnswer(LookupFailed):
    """A 200 answer that is no JSON object (asked again, then nothing is known)."""

    def __init__(self) -> None:
        super().__init__(200, API_NAME)
        self.args = ("the OpenAlex API answered with no JSON object",)
        self.transient = True


@dataclass(frozen=True)
class Work:
    """One OpenAlex work, as scholarsite keeps it ('' or None for what OpenAlex leaves out)."""

    openalex_id: str  # W2741809807
    doi: str  # 10.7717/peerj.4375, without the resolver
    title: str
    cited_by: int | None
    venue: str  # the primary location's source, e.g. a journal or "arXiv (Cornell University)"
    oa_url: str  # the best open-access copy
    published: str  # ISO date
    counts: tuple[tuple[int, int], ...] = ()  # (year, citations that year)
    references: tuple[str, ...] = ()  # OpenAlex ids of the works it cites


def arxiv_doi(arxiv_id: str) -> str:
    """The DataCite DOI arXiv gives every paper: `10.48550/arXiv.2502.19811`."""
    return f"10.48550/arXiv.{arxiv_id}"


def short_id(url: Any) -> str:
    """`W2741809807` of `https://openalex.org/W2741809807` (or of itself); '' for no text."""
    return url.rstrip("/").rsplit("/", 1)[-1] if isinstance(url, str) else ""


def _text(value: Any) -> str:
    """A string field, spaces collapsed, control characters dropped and cut to MAX_TEXT
    characters; '' for anything else (OpenAlex sends null for unknowns)."""
    return " ".join(CONTROL_RE.sub("", value).split())[:MAX_TEXT] if isinstance(value, str) else ""


def _whole(value: Any) -> bool:
    """A whole number from 0 (OpenAlex's counts)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def counts_of(data: Any) -> tuple[tuple[int, int], ...]:
    """(year, cited_by_count) of OpenAlex's `counts_by_year`, by year; malformed items left out."""
    found = {}
    for item in data if isinstance(data, list) else []:
        year, count = _field(item, "year"), _field(item, "cited_by_count")
        if _whole(year) and year in YEARS and _whole(count) and count > 0:
            found[year] = count
    return tuple(sorted(found.items()))


def references_of(data: Any) -> tuple[str, ...]:
    """The ids of `referenced_works` (valid ones, each once, at most MAX_REFERENCES)."""
    ids = (short_work_id(url) for url in data if isinstance(url, str)) if isinstance(data, list) else ()
    return tuple(dict.fromkeys(i for i in ids if i))[:MAX_REFERENCES]


def _field(data: Any, *path: str) -> Any:
    """data[path[0]][path[1]]..., or None where a level is missing or not an object."""
    for name in path:
        if not isinstance(data, dict):
            return None
        data = data.get(name)
    return data


def work_of(data: Mapping[str, Any]) -> Work:
    """A `Work` of an OpenAlex work object (fields of the wrong type count as missing)."""
    cited = data.get("cited_by_count")
    work_id = data.get("id")
    oa_url = _field(data, "open_access", "oa_url") or _field(data, "best_oa_location", "landing_page_url")
    return Work(
        openalex_id=short_work_id(work_id) if isinstance(work_id, str) else "",
        doi=_text(data.get("doi")).removeprefix("https://doi.org/"),
        title=_text(data.get("display_name") or data.get("title")),
        cited_by=cited if _whole(cited) else None,
        venue=_text(_field(data, "primary_location", "source", "display_name")),
        oa_url=_text(oa_url) if _text(oa_url).startswith(("https://", "http://")) else "",
        published=_text(data.get("publication_date")),
        counts=counts_of(data.get("counts_by_year")),
        references=references_of(data.get("referenced_works")),
    )


def abstract_of(inverted: Any) -> str:
    """The text of an `abstract_inverted_index` ({word: [positions]}); '' for none."""
    if not isinstance(inverted, dict):
        return ""
    placed = {
        position: word
        for word, positions in inverted.items()
        if isinstance(positions, list)
        for position in positions
        if isinstance(position, int)
    }
    return " ".join(placed[p] for p in sorted(placed))


class OpenAlexClient:
    """Gets OpenAlex entities and lists, one request at a time, `delay` seconds apart."""

    def __init__(
        self,
        api_url: str | None = None,
        mailto: str = "",
        delay: float | None = None,
        api_key: str | None = None,
        environ: Mapping[str, str] = NO_ENVIRONMENT,
    ):
        """`environ`: the variables the command line passes (`API_VARIABLE`, `DELAY_VARIABLE`,
        `KEY_VARIABLES`), each used where its argument is not given."""
        self.api_url = (api_url or environ.get(API_VARIABLE, "").strip() or OPENALEX_URL).rstrip("/")
        self.delay = configured_delay(
            self.api_url, delay, DELAY_VARIABLE, DELAY_SECONDS, OPENALEX_HOSTS, environ
        )
        self.backoff = BACKOFF_SECONDS if self.delay >= DELAY_SECONDS else self.delay
        self.identity = {"mailto": mailto.strip()} if mailto.strip() else {}
        set_keys = (environ.get(variable, "").strip() for variable in KEY_VARIABLES)
        key = (api_key or next(filter(None, set_keys), "")).strip()
        if key:
            self.identity["api_key"] = key
        self.session = PoliteSession()
        self.pace = Pace(self.delay)

    def work(self, openalex_id: str = "", dois: tuple[str, ...] = ()) -> Work | None:
        """The work of an OpenAlex id, else of the first of `dois` OpenAlex knows; None when
        it knows none of them. LookupFailed or ApiUnreachable when it could not be asked."""
        paths = ([f"works/{quote(openalex_id, safe='')}"] if openalex_id else []) + [
            f"works/doi:{quote(doi, safe='/')}" for doi in dois
        ]
        for path in paths:
            try:
                data = self.get(path)
            except NotFound:
                continue
            found = work_of(data)
            if found.openalex_id:
                return found
        return None

    def works_by_doi(self, dois: list[str]) -> dict[str, Work]:
        """The works OpenAlex knows of some DOIs, by lower-cased DOI, `BATCH` DOIs a request
        (`works?filter=doi:a|b|…`). LookupFailed or ApiUnreachable when it could not be asked."""
        found: dict[str, Work] = {}
        wanted = list(dict.fromkeys(doi.lower() for doi in dois))
        for start in range(0, len(wanted), BATCH):
            batch = wanted[start : start + BATCH]
            try:
                page = self.get("works", {"filter": "doi:" + "|".join(batch), "per-page": BATCH})
            except NotFound:
                raise LookupFailed(404, API_NAME) from None
            results = page.get("results")
            for data in results if isinstance(results, list) else []:
                work = work_of(data) if isinstance(data, dict) else None
                if work is not None and work.openalex_id and work.doi.lower() in batch:
                    found.setdefault(work.doi.lower(), work)
        return found

    def get(self, path: str, params: Mapping[str, str | int] | None = None) -> dict[str, Any]:
        """The JSON object at `path` (e.g. `authors/orcid:0000-0002-1825-0097`, or `works` with
        `{"filter": "author.id:A5023888391"}`), retried as the module says; NotFound on a 404."""
        return with_retries(lambda: self.once(path, params or {}), self.backoff)

    def pages(self, path: str, params: Mapping[str, str | int] | None = None) -> Iterator[dict[str, Any]]:
        """Every result of a list (`works` with a filter), page after page by cursor."""
        cursor: Any = "*"
        while isinstance(cursor, str) and cursor:
            page = self.get(path, {**(params or {}), "per-page": PER_PAGE, "cursor": cursor})
            results = page.get("results")
            if not isinstance(results, list) or not results:
                return
            yield from (result for result in results if isinstance(result, dict))
            cursor = _field(page, "meta", "next_cursor")

    def once(self, path: str, params: Mapping[str, str | int]) -> dict[str, Any]:
        """One request of `path`, its answer checked."""
        self.pace.wait()
        try:
            url = f"{self.api_url}/{path.lstrip('/')}"
            response = self.session.get(url, params={**params, **self.identity})
        except (requests.ConnectionError, requests.Timeout) as exc:
            raise ApiUnreachable(
                f"cannot reach the OpenAlex API at {self.api_url} ({type(exc).__name__})",
                transient=self.session.reached,
            ) from exc
        data = _json(response)
        if response.status_code == 404 and data is not None:
            raise NotFound(path)
        if response.status_code != 200:
            raise LookupFailed(response.status_code, API_NAME)
        if data is None:
            raise BadAnswer()
        return data


def _json(response: requests.Response) -> dict[str, Any] | None:
    """The answer's JSON object, or None when it is none."""
    try:
        data = response.json()
    except ValueError:
        return None
    return data if isinstance(data, dict) else None

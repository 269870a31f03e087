"""arXiv API access through the `arxiv` package: one polite client per run.

arXiv's terms ask for at most one request every 3 seconds, so the client waits 3 seconds
between requests (`SCHOLARSITE_ARXIV_DELAY` may lower it, but only against a host other than
arXiv's, as the tests do). Requests answered 429, 500, 502, 503 or 504, or that cannot connect,
are retried with an exponential backoff. Every request names the tool in its User-Agent.

arxiv 4.x has no public setting for the User-Agent or the base URL: its `Client` sends its own
`user-agent` header on every `requests.Session.get` of its `_session`, and builds each URL from
the `query_url_format` class attribute. So `ArxivClient` sets `query_url_format` on its
instance and gives the client a session that replaces that header (and sets a timeout).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import arxiv
import requests

from scholarsite.inputs.openalex_part import MAX_TEXT
from scholarsite.inputs.sources import ARXIV_ID_RE, DOI_RE, MAX_AUTHORS
from scholarsite.sources import API_URL
from scholarsite.sources.polite import (
    NO_ENVIRONMENT,
    RETRIES,
    ApiUnreachable,
    BadDelay,
    LookupFailed,
    PoliteSession,
    configured_delay,
    with_retries,
)

__all__ = ["RETRIES", "ApiUnreachable", "ArxivClient", "BadDelay", "LookupFailed", "Record"]

API_VARIABLE = "SCHOLARSITE_ARXIV_API"
DELAY_VARIABLE = "SCHOLARSITE_ARXIV_DELAY"
DELAY_SECONDS = 3.0
ARXIV_HOSTS = ("arxiv.org",)
MAX_RESULTS = 10
AUTHOR_PAGE = 100  # entries per request of an author query (the API allows 2,000)
SHORT_ID_RE = re.compile(r"abs/(?P<id>.+?)(?:v(?P<version>\d+))?$")
TEX_QUOTES_RE = re.compile(r'["\\]')


@dataclass(frozen=True)
class Record:
    """One arXiv entry, as link-sources keeps it."""

    arxiv_id: str
    version: int | None
    title: str
    authors: tuple[str, ...]
    doi: str
    journal_ref: str
    primary_category: str
    categories: tuple[str, ...]
    published: str
    updated: str
    summary: str = ""  # the abstract, its spacing collapsed


def record_of(result: arxiv.Result) -> Record:
    """A `Record` of an `arxiv.Result` (id split from its version, dates as ISO dates; text cut
    to MAX_TEXT characters and authors to MAX_AUTHORS, as sources.yaml bounds them)."""
    match = SHORT_ID_RE.search(result.entry_id)
    arxiv_id = match.group("id") if match else result.get_short_id()
    number = match.group("version") if match else None
    named = [author for author in result.authors if author.name.strip()]
    return Record(
        arxiv_id=arxiv_id,
        version=int(number) if number else None,
        title=" ".join(result.title.split())[:MAX_TEXT],
        authors=tuple(" ".join(a.name.split())[:MAX_TEXT] for a in named[:MAX_AUTHORS]),
        doi=next((d for d in (result.doi or "").split() if DOI_RE.fullmatch(d) and len(d) <= MAX_TEXT), ""),
        journal_ref=" ".join((result.journal_ref or "").split())[:MAX_TEXT],
        primary_category=result.primary_category[:MAX_TEXT],
        categories=tuple(result.categories),
        published=_iso_date(result.published),
        updated=_iso_date(result.updated),
        summary=" ".join((result.summary or "").split()),
    )


def _iso_date(moment: datetime.datetime) -> str:
    """`2025-02-27`, or '' for the arxiv package's placeholder date."""
    return "" if moment.year <= 1 else moment.date().isoformat()


class ArxivClient:
    """Searches by title and fetches by id, one request at a time, `delay` seconds apart."""

    def __init__(
        self,
        api_url: str | None = None,
        delay: float | None = None,
        environ: Mapping[str, str] = NO_ENVIRONMENT,
    ):
        """`environ`: the variables the command line passes (`API_VARIABLE`, `DELAY_VARIABLE`),
        each used where its argument is not given."""
        self.api_url = (api_url or environ.get(API_VARIABLE, "").strip() or API_URL).rstrip("?")
        self.delay = configured_delay(
            self.api_url, delay, DELAY_VARIABLE, DELAY_SECONDS, ARXIV_HOSTS, environ
        )
        self.client = arxiv.Client(page_size=MAX_RESULTS, delay_seconds=self.delay, num_retries=0)
        self.client.query_url_format = f"{self.api_url}?{{}}"
        self.client._session = PoliteSession()

    def search_title(self, title: str) -> list[Record]:
        """The entries whose title holds the phrase `title` (plain text), best first."""
        phrase = " ".join(TEX_QUOTES_RE.sub(" ", title).split())
        return self.results(arxiv.Search(query=f'ti:"{phrase}"', max_results=MAX_RESULTS))

    def fetch(self, arxiv_id: str) -> list[Record]:
        """The entry of an arXiv id (a list of at most one)."""
        return self.results(arxiv.Search(id_list=[arxiv_id], max_results=1))

    def search_author(self, name: str, limit: int) -> Iterator[list[Record]]:
        """The entries listing an author of that name (a phrase, as arXiv matches it), newest
        first, a page of AUTHOR_PAGE at a time (one request each), at most `limit` in all."""
        phrase = " ".join(TEX_QUOTES_RE.sub(" ", name).split())
        newest = {"sort_by": arxiv.SortCriterion.SubmittedDate, "sort_order": arxiv.SortOrder.Descending}
        for start in range(0, limit, AUTHOR_PAGE):
            search = arxiv.Search(query=f'au:"{phrase}"', max_results=start + AUTHOR_PAGE, **newest)
            page = self.results(search, start, AUTHOR_PAGE)
            yield page[: limit - start]
            if len(page) < AUTHOR_PAGE:
                return

    def results(self, search: arxiv.Search, start: int = 0, page_size: int = MAX_RESULTS) -> list[Record]:
        """The records of a search from its `start`th, `page_size` per request; an empty
        answer is asked once more (arXiv's API sometimes answers an empty page), and is then
        returned empty. Entries whose id is not one `sources.yaml` accepts are left out."""
        self.client.page_size = page_size
        for _ in range(2):
            records = [record_of(r) for r in self.with_retries(search, start)]
            found = [r for r in records if ARXIV_ID_RE.fullmatch(r.arxiv_id)]
            if found:
                return found
        return []

    def with_retries(self, search: arxiv.Search, start: int = 0) -> list[arxiv.Result]:
        """The results of a search, asked again after a 429 or 5xx answer or no connection,
        waiting 2, 4, then 8 times the delay; LookupFailed or ApiUnreachable when retries run out."""
        return with_retries(lambda: self.once(search, start), self.delay)

    def once(self, search: arxiv.Search, start: int = 0) -> list[arxiv.Result]:
        """The results of one request of a search, from its `start`th (none when the arxiv
        package, asking for more after a short page, met an empty one)."""
        try:
            return list(self.client.results(search, offset=start))
        except arxiv.UnexpectedEmptyPageError:
            return []
        except arxiv.HTTPError as exc:
            raise LookupFailed(exc.status) from exc
        except (requests.ConnectionError, requests.Timeout) as exc:
            raise ApiUnreachable(
                f"cannot reach the arXiv API at {self.api_url} ({type(exc).__name__})",
                transient=self.client._session.reached,
            ) from exc

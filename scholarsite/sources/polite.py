"""What every API client of link-sources shares: the User-Agent, the timeout, the pace between
requests, and the retries with backoff after a 429 or 5xx answer or no connection.

A failed lookup is never an answer: callers record it as `unknown`, never `not-found`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping
from importlib.metadata import PackageNotFoundError, version
from types import MappingProxyType
from typing import Any, TypeVar
from urllib.parse import urlsplit

import requests

TIMEOUT_SECONDS = 30.0
CONNECT_SECONDS = 5.0  # no connection within this: the API is unreachable (offline, say)
OFFLINE_HINT = "are you offline? check the network, or the address given with --api-url/--openalex-url"
RETRIES = 3
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
Answer = TypeVar("Answer")
NO_ENVIRONMENT: Mapping[str, str] = MappingProxyType({})  # a client given no variables reads none


def user_agent() -> str:
    """`scholarsite/0.1.0 (+link-sources)`."""
    try:
        mine = version("scholarsite")
    except PackageNotFoundError:
        mine = "0+unknown"
    return f"scholarsite/{mine} (+link-sources)"


class LookupFailed(Exception):
    """The API answered with an error, even after retries: nothing is known of this paper."""

    def __init__(self, status: int, api: str = "arXiv"):
        super().__init__(f"the {api} API answered HTTP {status}")
        self.status = status
        self.transient = status in RETRY_STATUSES


class BadDelay(Exception):
    """A delay variable (SCHOLARSITE_ARXIV_DELAY, SCHOLARSITE_OPENALEX_DELAY) is not a number."""


class ApiUnreachable(Exception):
    """The API cannot be reached (no network, wrong address): that source is given up.

    `transient` when it was reached before in this run (a dropped connection is asked again);
    never reached, it fails at once, so being offline is known in seconds, not after retries."""

    def __init__(self, message: str, transient: bool = False):
        super().__init__(message)
        self.transient = transient


class PoliteSession(requests.Session):
    """A session that sends scholarsite's User-Agent (instead of any library's) and never
    waits on an answer longer than TIMEOUT_SECONDS (nor on a connection longer than
    CONNECT_SECONDS). `reached` records whether the API has answered once."""

    reached = False

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        """The request with the User-Agent replaced and a timeout set."""
        headers = {k: v for k, v in (kwargs.pop("headers", None) or {}).items() if k.lower() != "user-agent"}
        kwargs.setdefault("timeout", (CONNECT_SECONDS, TIMEOUT_SECONDS))
        headers["User-Agent"] = user_agent()
        response = super().request(method, url, *args, headers=headers, **kwargs)
        self.reached = True
        return response


def configured_delay(
    api_url: str,
    delay: float | None,
    variable: str,
    floor: float,
    hosts: Collection[str],
    environ: Mapping[str, str],
) -> float:
    """The seconds between requests: `delay`, else the `variable` of `environ` (the command
    line passes the process environment), else `floor`; never under `floor` against the API's
    own `hosts` (or their subdomains)."""
    if delay is None:
        text = environ.get(variable, "").strip()
        try:
            delay = float(text) if text else floor
        except ValueError:
            raise BadDelay(f"{variable} must be a number of seconds, found {text[:20]!r}") from None
    delay = max(delay, 0.0)
    host = urlsplit(api_url).hostname or ""
    official = any(host == name or host.endswith("." + name) for name in hosts)
    return max(delay, floor) if official else delay


def with_retries(ask: Callable[[], Answer], backoff: float) -> Answer:
    """`ask()`, asked again after a transient LookupFailed or ApiUnreachable, waiting 2, 4,
    then 8 times `backoff`; the last failure is raised when retries run out."""
    for attempt in range(RETRIES):
        try:
            return ask()
        except (LookupFailed, ApiUnreachable) as exc:
            if not exc.transient:
                raise
        time.sleep(backoff * 2 ** (attempt + 1))
    return ask()


class Pace:
    """Keeps requests at least `delay` seconds apart (the first one goes at once)."""

    def __init__(self, delay: float):
        self.delay = delay
        self.last: float | None = None

    def wait(self) -> None:
        """Sleep until `delay` seconds have passed since the previous request."""
        now = time.monotonic()
        if self.last is not None and now - self.last < self.delay:
            time.sleep(self.delay - (now - self.last))
        self.last = time.monotonic()

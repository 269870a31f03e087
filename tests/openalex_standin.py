"""A local stand-in for the OpenAlex API, answering from JSON in tests/data/openalex/.

`works.json` holds work objects shaped as OpenAlex's (https://docs.openalex.org, "Work object"),
`authors.json` author objects. The server answers `/works/W…`, `/works/doi:…` (DOIs compared
without case, as OpenAlex does), `/works?filter=doi:a|b|…` (at most 50 DOIs, as OpenAlex's
filters; more is its 400), `/authors/orcid:…` and `/works?filter=author.id:…` with cursor
paging; anything else is OpenAlex's JSON 404. `failures` scripts error answers per path, used
in turn before the real answer. Every request's path, query and User-Agent is recorded.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

DATA = Path(__file__).resolve().parent / "data" / "openalex"


def load(name: str) -> list[dict[str, Any]]:
    """The objects of a JSON file in tests/data/openalex/."""
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def not_found(path: str) -> tuple[int, dict[str, Any]]:
    """OpenAlex's 404 body."""
    return 404, {"error": "404 Not Found", "message": f"{path} does not exist"}


@dataclass
class Request:
    """One request the stand-in received."""

    path: str
    query: dict[str, str]
    agent: str


@dataclass
class StandIn:
    """What the stand-in knows and what it was asked."""

    works: list[dict[str, Any]] = field(default_factory=lambda: load("works.json"))
    authors: list[dict[str, Any]] = field(default_factory=lambda: load("authors.json"))
    failures: dict[str, list[tuple[int, bytes]]] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    url: str = ""

    def answer(self, target: str, agent: str) -> tuple[int, bytes]:
        """The status and body for a request."""
        parts = urlsplit(target)
        path = unquote(parts.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        self.requests.append(Request(path, query, agent))
        queue = self.failures.get(path)
        if queue:
            return queue.pop(0)
        status, body = self.found(path, query)
        return status, json.dumps(body).encode()

    def found(self, path: str, query: dict[str, str]) -> tuple[int, dict[str, Any]]:
        """The JSON answer to a path."""
        if path.startswith("/works/doi:"):
            doi = path.removeprefix("/works/doi:").lower()
            return self.one(
                [w for w in self.works if (w.get("doi") or "").lower().endswith("doi.org/" + doi)], path
            )
        if path.startswith("/works/"):
            wanted = "https://openalex.org/" + path.removeprefix("/works/")
            return self.one([w for w in self.works if w["id"] == wanted], path)
        if path.startswith("/authors/orcid:"):
            orcid = "https://orcid.org/" + path.removeprefix("/authors/orcid:")
            return self.one([a for a in self.authors if a.get("orcid") == orcid], path)
        if path == "/works" and query.get("filter", "").startswith("doi:"):
            dois = query["filter"].removeprefix("doi:").lower().split("|")
            if len(dois) > 50:
                return 400, {"error": "Invalid query parameters", "message": "at most 50 values in a filter"}
            known = {(w.get("doi") or "").lower().removeprefix("https://doi.org/"): w for w in self.works}
            return 200, self.page([known[d] for d in dict.fromkeys(dois) if d in known], query)
        if path == "/works" and query.get("filter", "").startswith("author.id:"):
            author = "https://openalex.org/" + query["filter"].removeprefix("author.id:")
            mine = [
                w for w in self.works if any(a["author"]["id"] == author for a in w.get("authorships", []))
            ]
            return 200, self.page(mine, query)
        return not_found(path)

    @staticmethod
    def one(matches: list[dict[str, Any]], path: str) -> tuple[int, dict[str, Any]]:
        """The first match, or a 404."""
        return (200, matches[0]) if matches else not_found(path)

    @staticmethod
    def page(results: list[dict[str, Any]], query: dict[str, str]) -> dict[str, Any]:
        """One cursor page of a list: the cursor is the index of the page's first result."""
        size = int(query.get("per-page", "25"))
        start = 0 if query.get("cursor", "*") == "*" else int(query["cursor"])
        following = start + size if start + size < len(results) else None
        return {
            "meta": {"count": len(results), "per_page": size, "next_cursor": following and str(following)},
            "results": results[start : start + size],
        }


class Handler(BaseHTTPRequestHandler):
    """GET answered by the server's stand-in."""

    def do_GET(self) -> None:
        status, body = self.server.standin.answer(self.path, self.headers.get("User-Agent", ""))  # type: ignore[attr-defined]
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base's name
        """Quiet."""


@contextmanager
def running() -> Iterator[StandIn]:
    """A stand-in served on a free local port (its address in `.url`)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.standin = StandIn(url=f"http://127.0.0.1:{server.server_address[1]}")  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server.standin  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()

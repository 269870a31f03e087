"""Long, newest-first lists of papers cut into pages."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from scholarsite.model import urls
from scholarsite.model.model import Paper


def paginate(
    first: str, papers: list[Paper], per_page: int
) -> Iterator[tuple[str, dict[str, Any], list[Paper]]]:
    """(path, pager, papers) for each page of a long, newest-first list of papers; always at
    least one page.

    Pages are cut from the oldest end: every page but the first holds `per_page` papers, the
    first from `per_page` to twice as many less one. A paper added at the front (new papers are
    the newest) then changes the first page only, where cutting from the front would move a
    paper from every page to the next; the others change when the number of pages does.
    """
    count = max(1, len(papers) // per_page)
    head = len(papers) - (count - 1) * per_page
    chunks = [papers[:head]] + [
        papers[start : start + per_page] for start in range(head, len(papers), per_page)
    ]
    links = [{"number": n, "path": urls.paged(first, n)} for n in range(1, len(chunks) + 1)]
    for number, chunk in enumerate(chunks, start=1):
        yield (
            links[number - 1]["path"],
            {
                "number": number,
                "count": len(chunks),
                "links": links if len(chunks) > 1 else [],
            },
            chunk,
        )

"""How search records are split into shards: one Pagefind bundle per shard, merged in the browser.

Pagefind cannot update an index in place, so a bundle is re-indexed whole whenever one of its
records changes. Splitting the records bounds that work to the shards whose records changed.

The scheme: a record's shard is a stable hash of its URL (the record's identity: URLs derive
from identities alone) modulo the shard count, and the shard count is the smallest power of
two that keeps the average shard at or under `search_shard_size` records (2,000 by default).
A small site is still split, into up to `SMALL_SITE_SHARDS` shards of at least
`MIN_SHARD_RECORDS` records on average: at 1,800 papers an edit re-indexes about 115 records,
not 1,800 (Pagefind takes about 1 ms a record of a paper, in a process of its own beside the
pages: with eight shards of 230 it was what an edit waited for, 0.2 s against the pages'
0.15 s), for fifteen more bundles for the browser to merge (as many as a site of 30,000
records has under the rule above).

- A record's shard depends on its own URL and the count only, never on the other records,
  so editing a paper changes exactly one shard, and adding a seed changes only the shards of
  the records it adds or changes (its papers and new subjects).
- Hashing spreads records evenly whatever the collection looks like. Shards by year and kind
  were the alternative: readable names, but a year can hold most of a collection (recent
  years dominate), subjects have no year, and a shard could not be split when it
  grows, so work per change would not be bounded.
- A shard no record hashes to is neither built nor listed (with a few records, most of a
  power of two can be empty); the folders keep their numbers, so `pagefind/3/` may follow
  `pagefind/0/`. Only a site without records has one (empty) shard, so that search loads.
- The count grows by doubling, so it changes rarely (at 2,000, 4,000, 8,000... records), and
  when it does, each shard splits in two (hash mod 2n is hash mod n or that plus n): that
  build re-indexes everything once, as a cold build does.

The bundles sit side by side as `pagefind/0/`, `pagefind/1/`...: sibling folders, each owned
whole by the writer, inside `pagefind/`, which no other output writes into. The search page
learns their URLs from a data attribute (no inline script, so CSP stays simple), imports
Pagefind from the first and merges the others (`pagefind.mergeIndex`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar

from scholarsite.model import urls
from scholarsite.model.model import Site

ROOT = "pagefind"  # every shard's folder is inside it
SMALL_SITE_SHARDS = 16  # a small site's records are still split in up to this many shards...
MIN_SHARD_RECORDS = 100  # ...of at least this many records each, on average
Record = TypeVar("Record")


def record_count(site: Site) -> int:
    """How many search records the site has: one per paper and subject."""
    return len(site.papers) + len(site.subjects)


def shard_count(records: int, size: int) -> int:
    """The smallest power of two giving shards of at most `size` records on average, or for a
    small site up to SMALL_SITE_SHARDS shards of at least MIN_SHARD_RECORDS records."""
    count = 1
    while count * size < records or (count < SMALL_SITE_SHARDS and 2 * count * MIN_SHARD_RECORDS <= records):
        count *= 2
    return count


def shard_of(url: str, count: int) -> int:
    """The shard of the record at `url`, among `count` (a stable hash: sha256, not `hash()`)."""
    return int.from_bytes(hashlib.sha256(url.encode("utf-8")).digest()[:8], "big") % count


def folder(index: int) -> str:
    """The site folder of shard `index`: `pagefind/0`, `pagefind/1`..."""
    return f"{ROOT}/{index}"


def url_of(path: str, portable: bool) -> str:
    """The URL Pagefind reports for a page, from the site root (`/papers/2024/x/`): a record's
    identity, which its shard is a hash of: `urls.relative` from the home page, which is the
    path itself, an index page's without its file name unless `portable`."""
    is_index = path == urls.INDEX or path.endswith("/" + urls.INDEX)
    return "/" + (path[: -len(urls.INDEX)] if is_index and not portable else path)


def record_urls(site: Site, portable: bool) -> Iterator[str]:
    """The URL of every search record, as it is asked for: papers, then subjects."""
    for paper in site.papers:
        yield url_of(urls.paper(paper.year, paper.slug), portable)
    for subject in site.subjects:
        yield url_of(urls.subject(subject.slug), portable)


def occupied(record_urls: Iterable[str], records: int, size: int) -> list[int]:
    """The shards some of the `records` records (at `record_urls`) hashes to, in order ([0]
    when there are none): hashed until every shard is found to hold one, which a few hundred
    of 50,000 records show."""
    count = shard_count(records, size)
    found: set[int] = set()
    for url in record_urls:
        found.add(shard_of(url, count))
        if len(found) == count:
            break
    return sorted(found) or [0]


def folders(site: Site, size: int, portable: bool) -> list[str]:
    """The folder of every shard holding search records, the first one first."""
    records = len(site.papers) + len(site.subjects)
    return [folder(index) for index in occupied(record_urls(site, portable), records, size)]


def split(records: Sequence[Record], urls: Sequence[str], count: int) -> list[list[Record]]:
    """The records in `count` shards, each in the order given; `urls[i]` is record i's URL."""
    shards: list[list[Record]] = [[] for _ in range(count)]
    for record, url in zip(records, urls, strict=True):
        shards[shard_of(url, count)].append(record)
    return shards

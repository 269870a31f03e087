"""The site's size against its budget: what the build wrote, in bytes and files, and a warning
naming what takes the room when `max_site_mb` or `max_files` (site.yaml) is passed.

Hosts cap a site: GitHub Pages publishes at most 1 GB, Cloudflare Pages 20,000 files a deploy,
Netlify 54,000 files a folder. The size is of the files the manifest owns (the published site,
not the build's own files), from the stat of each that the sync recorded.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from scholarsite.errors import Diagnostic, warning
from scholarsite.write import statsrecord
from scholarsite.write.manifest import read_manifest
from scholarsite.write.report import MIB, SiteSize

SETTINGS = "site.yaml"
REPEATED_NAMES = frozenset({"index.html", "feed.xml", "papers.bib"})


def part_of(path: str) -> str:
    """What kind of file a site path is, as a warning names it: its first folder and its name
    when many folders have one (`authors/…/feed.xml`), else its extension (`pagefind/…/*.pf_index`);
    a file at the top is itself."""
    first, _, rest = path.partition("/")
    if not rest:
        return path
    name = rest.rpartition("/")[2]
    return f"{first}/…/{name if name in REPEATED_NAMES else '*' + os.path.splitext(name)[1]}"


def measure(site_dir: Path) -> SiteSize:
    """The size of the files the manifest of `site_dir` owns, as the stats record the sync
    just left has them (`repair`: a stat of each file it found intact or wrote); a file the
    record lacks is stat-ed (one gone meanwhile counts 0)."""
    entries, _ = read_manifest(str(site_dir))
    sizes = statsrecord.sizes(str(site_dir))
    part_bytes: Counter[str] = Counter()
    part_files: Counter[str] = Counter()
    for path in entries:
        size = sizes[path] if path in sizes else size_of(os.path.join(site_dir, path))
        part = part_of(path)
        part_bytes[part] += size
        part_files[part] += 1
    return SiteSize(sum(part_bytes.values()), len(entries), part_bytes, part_files)


def size_of(path: str) -> int:
    """The size of a file, 0 when it is gone."""
    try:
        return os.stat(path, follow_symlinks=False).st_size
    except OSError:
        return 0


def over_budget(size: SiteSize, max_site_mb: int, max_files: int | None) -> list[Diagnostic]:
    """A warning for each budget the site passes, naming the parts that take the most."""
    found = []
    if size.bytes > max_site_mb * MIB:
        found.append(
            warning(
                SETTINGS,
                0,
                f"the site is {size.bytes / MIB:,.1f} MiB, over max_site_mb ({max_site_mb:,} MiB); "
                f"the most: {size.largest(size.part_bytes)}",
                "make the largest parts smaller (papers_per_page, feed_entries), host where a site may be "
                "larger (`scholarsite deploy --to s3://BUCKET`), or raise max_site_mb",
            )
        )
    if max_files is not None and size.files > max_files:
        found.append(
            warning(
                SETTINGS,
                0,
                f"the site has {size.files:,} files, over max_files ({max_files:,}); "
                f"the most: {size.largest(size.part_files)}",
                "host where a site may have more files (`scholarsite deploy --to s3://BUCKET`), "
                "or raise max_files",
            )
        )
    return found

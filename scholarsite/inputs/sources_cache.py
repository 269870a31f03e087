"""The entries of `sources.yaml` kept between builds, so that a build whose sources.yaml did not
change reads them from JSON (`.scholarsite-cache/sources.json`) instead of YAML.

The cache holds the sha256 of the file's bytes, the code's version and each entry as
`SourceEntry.as_data` with the line of its key. It is plain JSON, never pickle, and every
entry is checked again by `entry_of` as it is loaded: a cache planted by someone else is data,
checked as the file is. A cache of other bytes or other code, or one that does not check, is
not used: the file is read, and the cache written again. Only a file read without any problem
is kept.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from scholarsite.errors import Diagnostic
from scholarsite.inputs.digests import code_version
from scholarsite.inputs.jsondata import loads
from scholarsite.inputs.sources import Sources, entry_of, sources_bytes, sources_of
from scholarsite.inputs.store import CACHE_FOLDER, write_atomically
from scholarsite.lifetime import collector_paused

SOURCES_CACHE = CACHE_FOLDER / "sources.json"
FORMAT = 1


def read_sources_kept(root: Path, file: Path) -> tuple[Sources, list[Diagnostic]]:
    """`sources.read_sources` through the cache in `file`: its entries when they are those of
    the file's bytes, else the file read (and kept when it has no problem)."""
    data, problems = sources_bytes(root)
    if data is None:
        return Sources(), problems
    digest = hashlib.sha256(data).hexdigest()
    with collector_paused():  # the entries live on: the collector's passes are wasted
        kept = kept_sources(file, digest)
    if kept is not None:
        return kept, []
    sources, problems = sources_of(data)
    if not problems and sources.entries:
        keep_sources(file, digest, sources)
    return sources, problems


def kept_sources(file: Path, digest: str) -> Sources | None:
    """The entries kept in `file` for the sources.yaml of sha256 `digest`; None when there are
    none for those bytes and this code, or when any does not check."""
    try:
        saved = loads(file.read_bytes())
        if [saved["format"], saved["code"], saved["digest"]] != [FORMAT, code_version(), digest]:
            return None
        sources = Sources()
        for key, line, data in saved["entries"]:
            entry, problem = entry_of(with_years(data))
            if entry is None or not isinstance(key, str) or type(line) is not int or key in sources.entries:
                return None
            sources.entries[key], sources.lines[key] = entry, line
        return sources
    except (OSError, ValueError, TypeError, KeyError):
        return None


def with_years(data: Any) -> Any:
    """An entry's data as JSON gives it back, with the years of its OpenAlex counts numbers
    again (JSON keys are text)."""
    impact = data.get("openalex") if isinstance(data, dict) else None
    if isinstance(impact, dict) and isinstance(impact.get("counts"), dict):
        counts = {int(year): count for year, count in impact["counts"].items()}
        return {**data, "openalex": {**impact, "counts": counts}}
    return data


def keep_sources(file: Path, digest: str, sources: Sources) -> None:
    """Keep the entries read from the sources.yaml of sha256 `digest` in `file`."""
    entries = [[key, sources.line(key), entry.as_data()] for key, entry in sources.entries.items()]
    body = {"format": FORMAT, "code": code_version(), "digest": digest, "entries": entries}
    write_atomically(file, json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode())

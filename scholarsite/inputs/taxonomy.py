"""arXiv subject codes: full names, archives and groups.

Backed by ``data/arxiv_taxonomy.json``, generated from arXiv's own taxonomy by
``scripts/regenerate_taxonomy.py``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

# Bare codes always carry a hyphen ("quant-ph", "cmp-lg"); subject classes are two
# capitals ("cs.DC") or lowercase words joined by at most one hyphen ("cond-mat.mes-hall").
_CODE_RE = re.compile(r"[a-z]+-[a-z]+|[a-z]+(?:-[a-z]+)?\.(?:[A-Z]{2}|[a-z]+(?:-[a-z]+)?)", re.ASCII)


@dataclass(frozen=True)
class SubjectInfo:
    """One arXiv category with its archive and group."""

    code: str
    name: str
    archive: str
    archive_name: str
    group: str
    group_name: str


@cache
def _table() -> dict[str, Any]:
    """The parsed taxonomy JSON, loaded once."""
    path = resources.files("scholarsite.inputs") / "data" / "arxiv_taxonomy.json"
    return json.loads(path.read_text(encoding="utf-8"))


@lru_cache(maxsize=4096)  # every record names its subjects: a collection has a few hundred
def lookup(code: str) -> SubjectInfo | None:
    """Info for ``code`` (aliases resolve to their canonical code), or None if unknown."""
    table = _table()
    canonical = table["aliases"].get(code, code)
    entry = table["categories"].get(canonical)
    if entry is None:
        return None
    return SubjectInfo(
        code=canonical,
        name=entry["name"],
        archive=entry["archive"],
        archive_name=entry["archive_name"],
        group=entry["group"],
        group_name=entry["group_name"],
    )


def is_plausible_code(text: str) -> bool:
    """True if ``text`` is shaped like an arXiv category code, known or not."""
    return _CODE_RE.fullmatch(text) is not None

"""Parsed seeds kept between builds, keyed by file content, so unchanged seeds are not re-parsed.

The cache lives in `.scholarsite-cache/seeds.pickle` beside the project (git-ignored). A key
is (seed path, sha256 of its bytes, latest allowed year, version of the parser's code), so an
edited seed or an upgraded scholarsite never reuses a stale result. Only entries used by the
last build are kept. A missing or unreadable cache is simply rebuilt.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path

from scholarsite.inputs.seeds import SeedParse, parse_seed
from scholarsite.outputs.registry import code_version

Key = tuple[str, str, int, str]
CACHE_FILE = Path(".scholarsite-cache") / "seeds.pickle"


class ParseCache:
    """SeedParse results by content; `save` writes them back atomically when they changed."""

    def __init__(self, file: Path | None):
        self.file = file
        self.entries: dict[Key, SeedParse] = self.load()
        self.used: set[Key] = set()
        self.changed = False

    def load(self) -> dict[Key, SeedParse]:
        """The entries on disk, or none if the file is missing or unreadable."""
        if self.file is None or not self.file.is_file():
            return {}
        try:
            entries = pickle.loads(self.file.read_bytes())
        except Exception:  # noqa: BLE001 - any damage means: start afresh
            return {}
        return entries if isinstance(entries, dict) else {}

    def parse(self, data: bytes, path: str, latest_year: int) -> SeedParse:
        """The parse of a seed's bytes, from the cache when the same bytes were parsed before."""
        key = (path, hashlib.sha256(data).hexdigest(), latest_year, code_version())
        self.used.add(key)
        if key not in self.entries:
            self.entries[key] = parse_seed(data, path, latest_year=latest_year)
            self.changed = True
        return self.entries[key]

    def save(self) -> None:
        """Keep the entries this build used; write them if anything changed."""
        stale = self.entries.keys() - self.used
        if self.file is None or not (self.changed or stale):
            return
        self.entries = {key: self.entries[key] for key in self.used}
        self.file.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=self.file.parent, delete=False, prefix=".tmp-") as tmp:
            pickle.dump(self.entries, tmp, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp.name, self.file)
        self.used, self.changed = set(), False

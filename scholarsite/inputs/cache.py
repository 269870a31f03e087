"""Parsed seeds kept between builds, keyed by file content, so unchanged seeds are not re-parsed.

The cache lives in `.scholarsite-cache/seeds.pickle` beside the project (git-ignored). A key
is (seed path, sha256 of its bytes, latest allowed year, version of the parser's code), so an
edited seed or an upgraded scholarsite never reuses a stale result. Only entries used by the
last build are kept. A missing or unreadable cache is simply rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
from collections.abc import Iterable
from pathlib import Path

from scholarsite.errors import Diagnostic, Severity
from scholarsite.inputs.seeds import SeedParse, parse_seed
from scholarsite.outputs.registry import code_version

Key = tuple[str, str, int, str]
CACHE_FILE = Path(".scholarsite-cache") / "seeds.pickle"
INPUTS = ("seeds", "content", "templates", "assets", "site.yaml")  # everything a build reads


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


LAST_BUILD_FILE = Path(".scholarsite-cache") / "last-build.json"


def inputs_fingerprint(root: Path, *settings: str) -> str:
    """A digest of everything a build reads (and of the code reading it).

    Equal fingerprints mean equal outputs, so a build whose inputs are unchanged since the
    last one into the same site can stop after checking that the site is intact.
    """
    summary = hashlib.sha256("\0".join([code_version(), *settings]).encode())
    for name in INPUTS:
        path = root / name
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in files:
            summary.update(file.relative_to(root).as_posix().encode() + b"\0")
            summary.update(hashlib.sha256(file.read_bytes()).digest())
    return summary.hexdigest()


def read_last_build(root: Path, site_dir: Path, fingerprint: str) -> list[Diagnostic] | None:
    """The diagnostics of the last build into `site_dir` if its inputs had this fingerprint."""
    try:
        record = json.loads((root / LAST_BUILD_FILE).read_text(encoding="utf-8"))
        if record["inputs"] != fingerprint or record["site"] != str(site_dir.resolve()):
            return None
        return [
            Diagnostic(d["path"], d["line"], Severity(d["severity"]), d["message"], d["hint"])
            for d in record["diagnostics"]
        ]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save_last_build(root: Path, site_dir: Path, fingerprint: str, diagnostics: Iterable[Diagnostic]) -> None:
    """Remember a successful build's inputs and diagnostics."""
    record = {
        "inputs": fingerprint,
        "site": str(site_dir.resolve()),
        "diagnostics": [d.as_dict() for d in diagnostics],
    }
    file = root / LAST_BUILD_FILE
    file.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(
        "w", dir=file.parent, delete=False, prefix=".tmp-", encoding="utf-8"
    ) as tmp:
        json.dump(record, tmp, ensure_ascii=False)
    os.replace(tmp.name, file)

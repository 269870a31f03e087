"""Results of pure text functions (TeX to HTML and text, BibTeX) kept between builds.

Rendering the TeX of every title and abstract and writing every BibTeX entry cost seconds at
10,000 papers, though few of them change between two builds. The memo keeps each result by
a digest of its input and of scholarsite's code, in `.scholarsite-cache/derived.json` (plain
JSON, so loading it runs no code). Only entries used by the last build are kept; a missing or
unreadable file is simply rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from markupsafe import Markup

from scholarsite.outputs.registry import code_version

MEMO_FILE = Path(".scholarsite-cache") / "derived.json"


class Memo:
    """A dictionary of computed strings by (function name, input), saved as JSON."""

    def __init__(self, file: Path | None = None):
        self.file = file
        self.entries: dict[str, str] = self.load()
        self.used: set[str] = set()
        self.changed = False

    def load(self) -> dict[str, str]:
        """The saved entries, or none when the file is missing, damaged or from other code."""
        if self.file is None:
            return {}
        try:
            saved = json.loads(self.file.read_text(encoding="utf-8"))
            entries = saved["entries"]
            valid = saved["code"] == code_version() and isinstance(entries, dict)
            return entries if valid and all(isinstance(v, str) for v in entries.values()) else {}
        except (OSError, ValueError, KeyError, TypeError):
            return {}

    def text(self, name: str, compute: Callable[[str], str], source: str) -> str:
        """`compute(source)`, from the memo when it was computed before."""
        key = hashlib.sha256(f"{name}\0{source}".encode("utf-8", "surrogatepass")).hexdigest()
        self.used.add(key)
        found = self.entries.get(key)
        if found is None:
            found = self.entries[key] = compute(source)
            self.changed = True
        return found

    def markup(self, name: str, compute: Callable[[str], Markup], source: str) -> Markup:
        """Like `text`, for functions that return safe HTML."""
        return Markup(self.text(name, compute, source))

    def save(self) -> None:
        """Keep the entries this build used; write them if anything changed."""
        stale = self.entries.keys() - self.used
        if self.file is None or not (self.changed or stale):
            return
        self.entries = {key: self.entries[key] for key in sorted(self.used)}
        self.file.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", dir=self.file.parent, delete=False, prefix=".tmp-", encoding="utf-8"
        ) as tmp:
            json.dump({"code": code_version(), "entries": self.entries}, tmp, ensure_ascii=False)
        os.replace(tmp.name, self.file)
        self.used, self.changed = set(), False

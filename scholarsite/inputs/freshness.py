"""Whether a build has anything to do: a fingerprint of every input, and the last build's record.

Kept free of heavy imports: `python build.py` with nothing changed answers from here
without loading the rest of scholarsite.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from scholarsite import theme
from scholarsite.errors import Diagnostic, Severity
from scholarsite.inputs.config import Overrides
from scholarsite.inputs.digests import code_version
from scholarsite.inputs.files import fingerprint_digest, present, visible_files
from scholarsite.inputs.store import CACHE_FOLDER, write_atomically

INPUTS = (  # everything a build reads (visible files only, so static/'s one hidden folder is named)
    *("seeds", "content", "templates", "assets", "static", "static/.well-known"),
    *("site.yaml", "sources.yaml"),
)
LAST_BUILD_FILE = CACHE_FOLDER / "last-build.json"


def inputs_fingerprint(root: Path, *settings: str) -> str:
    """A digest of everything a build reads (and of the code reading it).

    Equal fingerprints mean equal outputs, so a build whose inputs are unchanged since the
    last one into the same site can stop after checking that the site is intact.
    """
    summary = hashlib.sha256("\0".join([code_version(), *settings]).encode())
    for name in INPUTS:
        path = root / name
        files = visible_files(path) if path.is_dir() else [path] if present(path) else []  # a pipe too
        for file in files:
            summary.update(file.relative_to(root).as_posix().encode() + b"\0")
            summary.update(fingerprint_digest(file, root))
    for folder in (theme.TEMPLATES, theme.ASSETS):  # the built-in theme, which projects build on
        for file in visible_files(folder):
            summary.update(f"theme/{folder.name}/{file.relative_to(folder).as_posix()}".encode() + b"\0")
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
    write_atomically(root / LAST_BUILD_FILE, json.dumps(record, ensure_ascii=False).encode("utf-8"))


def latest_possible_year() -> int:
    """Records cannot be from later than next year (so the fingerprint depends on the year)."""
    return datetime.date.today().year + 1


def fingerprint_of(root: Path, overrides: Overrides) -> str:
    """The fingerprint of a project's inputs today, with the settings given over site.yaml's."""
    return inputs_fingerprint(root, str(latest_possible_year()), overrides.base_url, str(overrides.portable))

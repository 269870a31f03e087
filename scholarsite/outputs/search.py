"""Full-text search, built at build time with Pagefind (the `pagefind` package's binary).

Only pages whose `<main>` carries `data-pagefind-body` (papers, authors, subjects) are
indexed. Pagefind runs as a command over a temporary copy of those pages and its bundle is
returned as outputs, so it goes through the same compare-and-write step as every file.

Pagefind 1.5 writes its filter indexes in an arbitrary order (a known upstream issue), so
two indexings of the same pages can differ byte for byte. To keep "no change, no write",
the bundle records a key of what it indexed (`pagefind/scholarsite-index.json`); when the
searchable pages are unchanged, the bundle already in `site/` is reused as it is.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from importlib.metadata import version
from pathlib import Path

from scholarsite.errors import BuildError, error

SEARCH_FOLDER = "pagefind"
KEY_FILE = f"{SEARCH_FOLDER}/scholarsite-index.json"
INDEXED_MARK = b"data-pagefind-body"


def searchable(outputs: Mapping[str, bytes]) -> dict[str, bytes]:
    """The HTML pages that ask to be indexed."""
    return {p: b for p, b in outputs.items() if p.endswith(".html") and INDEXED_MARK in b}


def digest(data: bytes) -> str:
    """sha256 hex digest."""
    return hashlib.sha256(data).hexdigest()


def index_key(pages: Mapping[str, bytes], language: str) -> str:
    """Identifies the input of an indexing run."""
    summary = "\n".join(f"{path} {digest(html)}" for path, html in sorted(pages.items()))
    return digest(f"pagefind {version('pagefind')} {language}\n{summary}".encode())


def key_file(key: str, files: Mapping[str, bytes]) -> bytes:
    """The record of what a bundle indexed and which files it consists of."""
    listing = {path: digest(data) for path, data in sorted(files.items())}
    return json.dumps({"key": key, "files": listing}, indent=1, sort_keys=True).encode("utf-8")


def reusable(previous: Mapping[str, bytes], key: str) -> bool:
    """True when `previous` is a complete bundle indexed from the same pages."""
    try:
        record = json.loads(previous[KEY_FILE])
        files = record["files"]
        complete = all(p in previous and digest(previous[p]) == h for p, h in files.items())
        return record["key"] == key and complete and len(files) + 1 == len(previous)
    except (KeyError, ValueError, TypeError):
        return False


def run_pagefind(pages: Mapping[str, bytes], language: str) -> dict[str, bytes]:
    """Index `pages` with the Pagefind command in a temporary folder; the bundle it wrote."""
    with tempfile.TemporaryDirectory(prefix="scholarsite-search-") as tmp:
        source, bundle = Path(tmp) / "site", Path(tmp) / "bundle"
        for path, html in pages.items():
            target = source / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(html)
        command = [
            sys.executable,
            "-m",
            "pagefind",
            "--site",
            str(source),
            "--output-path",
            str(bundle),
            "--force-language",
            language.split("-")[0],
        ]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            detail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise BuildError([error("pagefind", 0, "search indexing failed: " + " / ".join(detail))])
        return {
            f"{SEARCH_FOLDER}/{file.relative_to(bundle).as_posix()}": file.read_bytes()
            for file in sorted(bundle.rglob("*"))
            if file.is_file()
        }


def search_files(
    outputs: Mapping[str, bytes], language: str, previous: Mapping[str, bytes]
) -> dict[str, bytes]:
    """The Pagefind bundle for `outputs`, reusing `previous` (site/pagefind/) when still valid."""
    pages = searchable(outputs)
    key = index_key(pages, language)
    if reusable(previous, key):
        return dict(previous)
    files = run_pagefind(pages, language)
    files[KEY_FILE] = key_file(key, files)
    return files


def read_previous(site_dir: Path) -> dict[str, bytes]:
    """The search bundle of the last build, as it is on disk (empty if none)."""
    folder = site_dir / SEARCH_FOLDER
    if not folder.is_dir():
        return {}
    return {
        f"{SEARCH_FOLDER}/{file.relative_to(folder).as_posix()}": file.read_bytes()
        for file in sorted(folder.rglob("*"))
        if file.is_file() and not file.is_symlink()
    }

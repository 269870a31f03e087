"""Checks over the site's XML files: the sitemap and Atom feeds."""

from __future__ import annotations

import importlib
import re
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from .core import SITEMAP_XSD, CheckResult, ToolMissingError, node_tool

if TYPE_CHECKING:
    from xmlschema import XMLSchema

SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
ATOM = "http://www.w3.org/2005/Atom"
A = f"{{{ATOM}}}"
ATOM_ROOT = re.compile(r"<(?:\w+:)?feed\b[^>]*" + re.escape(ATOM))
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")


def _absolute(url: str) -> bool:
    """True for an absolute http(s) URL."""
    parts = urlsplit(url.strip())
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _import(name: str) -> ModuleType:
    """Import an optional Python dependency of the gate, or ToolMissingError."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise ToolMissingError(f"python package {name}") from None


@cache
def _sitemap_schema(xsd: Path) -> XMLSchema:
    """The sitemaps.org schema, compiled once per process."""
    return _import("xmlschema").XMLSchema(str(xsd))


def check_sitemap(site_dir: Path) -> CheckResult:
    """site/sitemap.xml (if any) is valid against sitemaps.org's XSD; every <loc> is absolute."""
    result = CheckResult("sitemap")
    path = site_dir / "sitemap.xml"
    if not path.is_file():
        return result
    xmlschema = _import("xmlschema")
    schema = _sitemap_schema(node_tool(SITEMAP_XSD))
    try:
        errors = list(schema.iter_errors(str(path)))
        root = ET.parse(path).getroot()
    except (ET.ParseError, xmlschema.XMLSchemaException) as exc:
        result.problems.append(f"sitemap.xml: not well-formed: {exc}")
        return result
    result.problems += [f"sitemap.xml {err.path}: {err.reason}" for err in errors]
    locs = [loc.text or "" for loc in root.iter(f"{SITEMAP_NS}loc")]
    result.checked = len(locs)
    result.problems += [f"sitemap.xml: <loc> not absolute: {loc!r}" for loc in locs if not _absolute(loc)]
    return result


def atom_files(site_dir: Path) -> list[Path]:
    """Every *.xml file under the site whose root element is an Atom <feed>."""
    return [
        p
        for p in sorted(site_dir.rglob("*.xml"))
        if ATOM_ROOT.search(p.read_text(encoding="utf-8", errors="replace")[:4096])
    ]


def _missing(element: ET.Element, what: str) -> list[str]:
    """Atom-required children (id, title, updated) that are absent, empty or malformed."""
    problems = []
    for tag in ("id", "title", "updated"):
        child = element.find(A + tag)
        text = (child.text or "").strip() if child is not None else ""
        if not text and (child is None or len(child) == 0):
            problems.append(f"{what} lacks <{tag}>")
        elif tag == "updated" and not RFC3339.match(text):
            problems.append(f"{what} <updated> is not an RFC 3339 date-time: {text!r}")
        elif tag == "id" and not urlsplit(text).scheme:
            problems.append(f"{what} <id> is not an absolute IRI: {text!r}")
    return problems


def _has_author(element: ET.Element) -> bool:
    """True when the element (or an entry's <source>) has an <author> with a <name>."""
    return any(
        (a.findtext(A + "name") or "").strip()
        for a in [*element.findall(A + "author"), *element.findall(f"{A}source/{A}author")]
    )


def _atom_problems(root: ET.Element) -> list[str]:
    """Atom-required elements missing from a parsed feed."""
    problems = _missing(root, "feed")
    feed_author = _has_author(root)
    for number, entry in enumerate(root.findall(A + "entry"), start=1):
        what = f"entry {number}"
        problems += _missing(entry, what)
        if not feed_author and not _has_author(entry):
            problems.append(f"{what} has no author (and the feed has none)")
    return problems


def check_feeds(site_dir: Path) -> CheckResult:
    """Every Atom feed is well-formed for feedparser and has the Atom-required elements."""
    feedparser = _import("feedparser")
    result = CheckResult("feeds")
    for path in atom_files(site_dir):
        rel = path.relative_to(site_dir).as_posix()
        result.checked += 1
        parsed = feedparser.parse(str(path))
        if parsed.bozo:
            result.problems.append(f"{rel}: not well-formed: {parsed.bozo_exception}")
            continue
        result.problems += [f"{rel}: {p}" for p in _atom_problems(ET.parse(path).getroot())]
    return result

"""Finding the pages of a built site, sampling them for the browser checks, scanning their markup."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

URL_ATTRIBUTES = {"href", "src", "srcset", "action", "formaction", "poster", "data", "cite"}
MATH_TAG = re.compile(rb"<math[\s>]", re.IGNORECASE)
LIST_ITEM_TAG = re.compile(rb"<li[\s>]", re.IGNORECASE)
FOLDED = re.compile(rb"<details[\s>].*?</details>", re.IGNORECASE | re.DOTALL)  # closed: not laid out
HEAVIEST = 2  # pages sampled for the most formulas, and as many for the longest lists
REDIRECT = re.compile(rb"<meta\s+http-equiv=[\"']?refresh", re.IGNORECASE)  # moves on at once: no kind


def html_files(site: Path) -> list[Path]:
    """Every .html file under the site, sorted."""
    return sorted(site.rglob("*.html"))


def _first_of_each_kind(site: Path) -> list[str]:
    """The root index.html and 404.html, then the alphabetically first index.html of each kind.

    A page kind is a (top-level folder, depth) pair, so `publications/index.html` (the list)
    and `publications/<slug>/index.html` (a detail page) are two kinds; a folder whose name
    starts with "_" (`authors/_network/`: no slug does) holds a kind of its own. A redirect page
    (an old URL) is of no kind: a browser leaves it at once.
    """
    picks = [name for name in ("index.html", "404.html") if (site / name).is_file()]
    kinds: dict[tuple[str, int], str] = {}
    for path in sorted(site.rglob("index.html")):
        rel = path.relative_to(site)
        if len(rel.parts) > 1 and not REDIRECT.search(path.read_bytes()[:2048]):
            own = rel.parts[1] if len(rel.parts) > 2 and rel.parts[1].startswith("_") else ""
            kinds.setdefault((rel.parts[0], len(rel.parts), own), rel.as_posix())
    return picks + sorted(kinds.values(), key=lambda rel: (rel.split("/")[0], rel.count("/")))


def _heaviest(counts: dict[str, int], top: int) -> list[str]:
    """The `top` pages with the highest non-zero count; ties go to the alphabetically first."""
    ranked = sorted((rel for rel, count in counts.items() if count), key=lambda rel: (-counts[rel], rel))
    return ranked[:top]


def sample_pages(site: Path, heaviest: int = HEAVIEST) -> list[str]:
    """The pages the browser checks open, as site-relative file paths, in a fixed order.

    One page per page kind, then the `heaviest` pages with the most `<math>` elements shown
    (not folded in a closed `<details>`) and
    the `heaviest` pages with the most `<li>` elements (formulas and long lists are where
    layouts break), each page listed once.
    """
    math: dict[str, int] = {}
    items: dict[str, int] = {}
    for path in html_files(site):
        rel = path.relative_to(site).as_posix()
        markup = path.read_bytes()
        math[rel] = len(MATH_TAG.findall(FOLDED.sub(b"", markup)))  # formulas shown, not folded away
        items[rel] = len(LIST_ITEM_TAG.findall(markup))
    picks = _first_of_each_kind(site) + _heaviest(math, heaviest) + _heaviest(items, heaviest)
    return list(dict.fromkeys(picks))


def normalize_base_path(base_path: str) -> str:
    """'/scholarsite' or 'scholarsite/' -> '/scholarsite/'; '' -> '/'."""
    inner = base_path.strip("/")
    return f"/{inner}/" if inner else "/"


def page_file(url_path: str, base_path: str) -> str:
    """Map a URL path ('publications/', '/scholarsite/about/') to a site-relative file path."""
    base = normalize_base_path(base_path)
    path = url_path.removeprefix(base) if url_path.startswith(base) else url_path
    path = path.lstrip("/")
    return path + "index.html" if path == "" or path.endswith("/") else path


def page_url(base_url: str, rel: str) -> str:
    """URL of a site-relative file under the served base URL (index.html left implicit)."""
    return base_url + rel.removesuffix("index.html")


def resolve_pages(site: Path, pages: Iterable[str] | None, base_path: str) -> list[str]:
    """The explicit URL paths mapped to files, or the default sample of the site."""
    if pages is None:
        return sample_pages(site)
    return [page_file(p, base_path) for p in pages]


@dataclass
class PageScan:
    """What the Python checks need from one page's markup."""

    urls: list[tuple[str, str, str]] = field(default_factory=list)
    jsonld: list[str] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)


class _Scanner(HTMLParser):
    """Collects URL-bearing attributes, element ids and JSON-LD script bodies."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scan = PageScan()
        self._jsonld: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in URL_ATTRIBUTES and value is not None:
                self.scan.urls.append((tag, name, value))
            if value and (name == "id" or (name == "name" and tag == "a")):
                self.scan.ids.add(value)
        kind = (dict(attrs).get("type") or "").split(";")[0].strip().lower()
        if tag == "script" and kind == "application/ld+json":
            self._jsonld = []

    def handle_data(self, data: str) -> None:
        if self._jsonld is not None:
            self._jsonld.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._jsonld is not None:
            self.scan.jsonld.append("".join(self._jsonld))
            self._jsonld = None


def scan_page(path: Path) -> PageScan:
    """Parse one HTML file for its URLs, ids and JSON-LD blocks."""
    scanner = _Scanner()
    scanner.feed(path.read_text(encoding="utf-8", errors="replace"))
    scanner.close()
    return scanner.scan

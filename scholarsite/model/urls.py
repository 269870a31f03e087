"""The one place that knows output paths and the relative links between them.

Output paths are POSIX paths inside `site/` (`authors/ziheng-jiang/index.html`). Links between
pages are always relative, so the same site works at a domain root and under any sub-path.
"""

from __future__ import annotations

import posixpath

INDEX = "index.html"

HOME = INDEX
AUTHORS = "authors/index.html"
COAUTHORS = "authors/_network/index.html"  # "_" never occurs in an author slug
PAPERS = "papers/index.html"
MOVED = "papers/moved.json"  # the 404 page's redirects: folder before -> folder now
SUBJECTS = "subjects/index.html"
YEARS = "years/index.html"
SEARCH = "search/index.html"
NOT_FOUND = "404.html"
STYLESHEET = "assets/style.css"
FAVICON = "assets/favicon.svg"
SITE_SCRIPT = "assets/site.js"
SEARCH_SCRIPT = "assets/search.js"
CITE_SCRIPT = "assets/cite.js"
LLMS_TXT = "llms.txt"
FEED = "feed.xml"
SITEMAP = "sitemap.xml"
PAPERS_JSON = "data/papers.json"
AUTHORS_JSON = "data/authors.json"

RESERVED = {"authors", "papers", "subjects", "years", "search", "assets", "data", "pagefind"}


def author(slug: str) -> str:
    """An author's page."""
    return f"authors/{slug}/{INDEX}"


def authors_letter(letter: str) -> str:
    """The A-Z index page of one initial ('#' for names not starting with A-Z)."""
    name = letter.lower() if letter.isalpha() else "other"
    return f"authors/_initial/{name}/{INDEX}"  # "_" never occurs in an author slug


def paper(year: int, slug: str) -> str:
    """A paper's page, grouped under its year."""
    return f"papers/{year}/{slug}/{INDEX}"


def subject(slug: str) -> str:
    """A subject's page."""
    return f"subjects/{slug}/{INDEX}"


def year(value: int) -> str:
    """A year's page."""
    return f"years/{value}/{INDEX}"


def new(subject_slug: str = "") -> str:
    """The "What's new" page of the collection, or of a subject."""
    return f"subjects/{subject_slug}/new/{INDEX}" if subject_slug else f"papers/new/{INDEX}"


def content_page(name: str) -> str:
    """A hand-written page from `content/<name>.md`."""
    return f"{name}/{INDEX}"


def paged(first: str, number: int) -> str:
    """Page `number` (1-based) of a listing whose first page is `first`."""
    if number == 1:
        return first
    return posixpath.join(posixpath.dirname(first), "page", str(number), INDEX)


def data_part(path: str, number: int) -> str:
    """Part `number` of a data list split into parts: `data/papers.json` -> `data/papers-1.json`."""
    stem, extension = posixpath.splitext(path)
    return f"{stem}-{number}{extension}"


def bibtex_part(number: int) -> str:
    """The file of part `number` of the authors' BibTeX."""
    return f"data/bibtex/authors-{number}.bib"


def beside(page: str, filename: str) -> str:
    """A file in the same folder as `page` (its feed, its BibTeX)."""
    return posixpath.join(posixpath.dirname(page), filename)


def relative(from_page: str, to_path: str, portable: bool = False) -> str:
    """The relative link from one output file to another; folder URLs for index pages, or
    `folder/index.html` when `portable` (a site that works opened from `file://`).

    Both are clean site paths (no '.' or '..' parts), so this is plain segment arithmetic;
    it runs for every link of every page.
    """
    source = from_page.split("/")[:-1]
    target = to_path.split("/")
    is_index = target[-1] == INDEX
    if is_index:
        target.pop()
    common = 0
    for a, b in zip(source, target, strict=False):
        if a != b:
            break
        common += 1
    link = "/".join([".."] * (len(source) - common) + target[common:])
    if is_index and portable:
        return f"{link}/{INDEX}" if link else INDEX
    if is_index:
        return link + "/" if link else "./"
    return link


def root_of(page: str) -> str:
    """The prefix that leads from a page to the site root: '' at the top, '../../' two deep."""
    return "../" * page.count("/")


def absolute(base_url: str, to_path: str) -> str:
    """The absolute URL of an output file, for canonical links, sitemaps and feeds."""
    if posixpath.basename(to_path) == INDEX:
        to_path = to_path[: -len(INDEX)]
    return base_url + to_path


def named(name: str, *args: int | str) -> str:
    """The output path templates ask for by name: `link('authors')`, `link('year', 2024)`."""
    fixed = {
        "home": HOME,
        "authors": AUTHORS,
        "coauthors": COAUTHORS,
        "papers": PAPERS,
        "subjects": SUBJECTS,
        "years": YEARS,
        "search": SEARCH,
        "stylesheet": STYLESHEET,
        "favicon": FAVICON,
        "site_script": SITE_SCRIPT,
        "search_script": SEARCH_SCRIPT,
        "cite_script": CITE_SCRIPT,
        "feed": FEED,
        "papers_json": PAPERS_JSON,
        "authors_json": AUTHORS_JSON,
        "llms_txt": LLMS_TXT,
    }
    if name in fixed and not args:
        return fixed[name]
    makers = {"year": year, "author": author, "subject": subject, "content_page": content_page}
    if name in makers and len(args) == 1:
        return makers[name](args[0])  # type: ignore[arg-type]
    raise ValueError(f"no output named {name!r} with {len(args)} argument(s)")

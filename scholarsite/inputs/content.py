"""Hand-written pages: Markdown with YAML front matter, under `content/`.

`content/index.md` is the home page's introduction, `content/<name>.md` a page at `<name>/`,
and `content/authors/<slug>.md` adds affiliation, homepage, ORCID and a bio to an author.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from scholarsite.errors import BuildError, Diagnostic, error, note, warning
from scholarsite.inputs.config import MAX_LENGTHS, MAX_TEXT, URL_RE
from scholarsite.inputs.files import hidden, read_input
from scholarsite.inputs.memo import Memo
from scholarsite.inputs.setting import Setting, excerpt
from scholarsite.inputs.text import CONTROL_RE, decode
from scholarsite.inputs.yamlsettings import remembered_settings

if TYPE_CHECKING:
    from scholarsite.inputs.sanitize import Dropped

FRONT_MATTER_RE = re.compile(r"\A---[ \t]*\n(.*?\n)?---[ \t]*(?:\n|\Z)", re.S)
ORCID_RE = re.compile(r"\d{4}-\d{4}-\d{4}-\d{3}[\dX]")
PAGE_NAME_RE = re.compile(r"[a-z0-9][a-z0-9-]*")
MAX_PAGE_BYTES = 4 * 2**20
PAGE_KEYS = {"title", "description"}
AUTHOR_KEYS = {"affiliation", "homepage", "orcid", "aliases", "seeds", "profiles"}
LIST_KEYS = {"aliases", "seeds", "profiles"}  # lists of text: other spellings, seed files, profile URLs
UNSAFE_HINT = "content pages carry no raw HTML; set 'unsafe_html: true' in site.yaml if you trust the authors"
LINK_HINT = "javascript:, vbscript: and data: links are never kept; link to web addresses or the site's files"
MARKDOWN_PAGE = "markdown page"  # the memo's name for a page's body as HTML, with what cleaning dropped


@dataclass(frozen=True)
class Page:
    """One Markdown file: its name, front matter and body rendered to HTML."""

    path: str
    name: str
    meta: dict[str, Any] = field(default_factory=dict)
    body: Markup = Markup("")

    @property
    def title(self) -> str:
        """The front-matter title, or the name."""
        return str(self.meta.get("title", self.name.replace("-", " ").capitalize()))


def rendered_body(body: str, trusted: bool, memo: Memo) -> tuple[Markup, list[Dropped]]:
    """A page's body as clean HTML and what cleaning dropped (`markdown_html.render_markdown`),
    kept in the memo by the body and whether raw HTML is kept."""

    def render(_: str) -> str:
        from scholarsite.inputs.markdown_html import render_markdown  # loaded when a page is rendered

        html, removed = render_markdown(body, trusted)
        return json.dumps([str(html), removed], ensure_ascii=False)

    html, removed = json.loads(memo.text(MARKDOWN_PAGE, render, f"{int(trusted)}\0{body}"))
    if not removed:
        return Markup(html), []
    from scholarsite.inputs.sanitize import Dropped  # with nh3 and html.parser: where something was dropped

    return Markup(html), [Dropped(*item) for item in removed]


def dropped_warnings(items: list[Dropped], body: str, first_line: int, path: str) -> list[Diagnostic]:
    """A warning for each thing cleaning dropped from a page, at its line (found in `body`,
    which starts at line `first_line` of the file)."""
    if not items:
        return []
    from scholarsite.inputs.sanitize import line_of

    problems = []
    for item in items:
        found = line_of(body, item.needle)
        line = found + first_line - 1 if found else 0
        link = item.description.startswith("link")
        hint = LINK_HINT if link else UNSAFE_HINT
        problems.append(warning(path, line, f"{item.description} dropped", hint))
    return problems


def split_front_matter(text: str, path: str, memo: Memo | None = None) -> tuple[list[Setting], str]:
    """(front matter settings, body), the settings from `memo` when it holds them; BuildError
    on bad YAML."""
    match = FRONT_MATTER_RE.match(text)
    if not match:
        return [], text
    return remembered_settings(match.group(1) or "", path, memo, first_line=2), text[match.end() :]


def orcid_checksum_ok(orcid: str) -> bool:
    """Whether the last character of an ORCID iD is its ISO 7064 MOD 11-2 check character."""
    total = 0
    for digit in orcid.replace("-", "")[:-1]:
        total = (total + int(digit)) * 2
    check = (12 - total % 11) % 11
    return orcid[-1] == ("X" if check == 10 else str(check))


def list_problems(key: str, value: Any, path: str, line: int) -> list[Diagnostic]:
    """A list key must hold text items (and, for `profiles`, http(s) URLs)."""
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        return [error(path, line, f"'{key}' must be a list of text items, found {excerpt(value)}")]
    if any(len(item) > MAX_TEXT for item in value):
        return [error(path, line, f"'{key}' items may have at most {MAX_TEXT:,} characters")]
    if any(CONTROL_RE.search(item) for item in value):
        return [error(path, line, f"'{key}' contains control characters")]
    wrong = [item for item in value if key == "profiles" and not URL_RE.fullmatch(item)]
    return [error(path, line, f"'profiles' must be http(s) URLs, found {excerpt(wrong[0])}")] if wrong else []


def check_meta(settings: list[Setting], allowed: set[str], path: str) -> list[Diagnostic]:
    """Unknown keys, non-text values, invalid URLs and ORCIDs, and the PyYAML TAB pitfall."""
    problems: list[Diagnostic] = []
    for key, value, line in settings:
        if key not in allowed:
            known = ", ".join(sorted(allowed))
            problems.append(error(path, line, f"unknown front matter key {excerpt(key)}", f"known: {known}"))
        elif key in LIST_KEYS:
            problems += list_problems(key, value, path, line)
        elif not isinstance(value, str):
            problems.append(error(path, line, f"'{key}' must be text, found {excerpt(value)}"))
        elif len(value) > (limit := MAX_LENGTHS.get(key, MAX_TEXT)):
            problems.append(error(path, line, f"'{key}' may have at most {limit:,} characters"))
        elif CONTROL_RE.search(value):
            problems.append(error(path, line, f"'{key}' contains control characters, found {excerpt(value)}"))
        elif "\t" in value:
            problems.append(
                warning(
                    path,
                    line,
                    f"'{key}' contains a TAB character",
                    "in double quotes YAML reads '\\t' in '\\textit' as a TAB; use single quotes",
                )
            )
        elif key == "homepage" and not URL_RE.fullmatch(value):
            problems.append(error(path, line, f"'homepage' must be an http(s) URL, found {excerpt(value)}"))
        elif key == "orcid" and not (ORCID_RE.fullmatch(value) and orcid_checksum_ok(value)):
            problems.append(
                error(
                    path,
                    line,
                    f"'orcid' must be an ORCID iD such as 0000-0002-1825-0097, found {excerpt(value)}",
                    "its last character is a checksum: copy the iD from orcid.org",
                )
            )
    return problems


def page_size_problem(size: int, display: str) -> Diagnostic | None:
    """An error for a page over `MAX_PAGE_BYTES`."""
    if size <= MAX_PAGE_BYTES:
        return None
    return error(display, 0, f"the page is over {MAX_PAGE_BYTES // 2**20} MiB; pages may have at most that")


def read_page(
    file: Path, root: Path, display: str, allowed: set[str], trusted: bool, memo: Memo
) -> tuple[Page | None, list[Diagnostic]]:
    """One Markdown file of the project in `root` as a Page, or the problems that stop it;
    `trusted` keeps raw HTML; its body is rendered unless the memo holds it."""
    try:
        data = read_input(file, root, display, page_size_problem)
    except BuildError as exc:
        return None, list(exc.diagnostics)
    decoded, cleaned = decode(data, display)
    if decoded is None:
        return None, cleaned
    try:
        text = decoded.replace("\r\n", "\n")
        settings, body = split_front_matter(text, display, memo)
    except BuildError as exc:
        return None, cleaned + list(exc.diagnostics)
    problems = cleaned + check_meta(settings, allowed, display)
    if any(p.severity.value == "error" for p in problems):
        return None, problems
    meta = {key: value for key, value, _ in settings}
    html, removed = rendered_body(body, trusted, memo)
    first_line = text.count("\n", 0, len(text) - len(body)) + 1
    problems += dropped_warnings(removed, body, first_line, display)
    return Page(display, file.stem, meta, html), problems


def read_pages(
    content_dir: Path, display_dir: str, trusted: bool = False, memo: Memo | None = None
) -> tuple[list[Page], list[Page], list[Diagnostic]]:
    """(site pages, author pages, problems) from `content/` and `content/authors/`; raw HTML
    in them is kept only when `trusted` (site.yaml's `unsafe_html`); their bodies are kept in
    `memo` (one of their own without it)."""
    memo = memo or Memo()
    problems: list[Diagnostic] = []
    sections: list[list[Page]] = []
    for folder, allowed in ((content_dir, PAGE_KEYS), (content_dir / "authors", AUTHOR_KEYS)):
        pages: list[Page] = []
        shown = display_dir if folder == content_dir else f"{display_dir}/authors"
        for file in sorted(folder.glob("*.md")) if folder.is_dir() else []:
            display = f"{shown}/{file.name}"
            if not PAGE_NAME_RE.fullmatch(file.stem):
                problems.append(error(display, 0, "page names use a-z, 0-9 and '-' only"))
                continue
            page, found = read_page(file, content_dir.parent, display, allowed, trusted, memo)
            problems.extend(found)
            if page:
                pages.append(page)
        sections.append(pages)
    return sections[0], sections[1], problems + unread_folders(content_dir, display_dir)


UNREAD_FOLDER = "a folder in content/ is not read: no page is built from it"


def unread_folders(content_dir: Path, display_dir: str) -> list[Diagnostic]:
    """A note for each folder in `content/` (but `authors/`) or in `content/authors/`: the
    pages in it are not built, which would otherwise go unsaid."""
    found = []
    for folder in (content_dir, content_dir / "authors"):
        for sub in sorted(folder.iterdir()) if folder.is_dir() else []:
            if sub.is_dir() and not hidden(sub.name) and sub != content_dir / "authors":
                shown = f"{display_dir}/{sub.relative_to(content_dir).as_posix()}/"
                hint = "move its .md files into content/ (pages) or content/authors/ (author pages)"
                found.append(note(shown, 0, UNREAD_FOLDER, hint))
    return found
